"""How a record is indexed: the text its full-text entry holds and the texts its vectors embed.

One place decides this for every kind, so the write path (client, pipeline steps) and any
re-indexing agree:

======================  =================================  =============================
kind                    full-text / ``content`` vector      extra vector fields
======================  =================================  =============================
turn                    ``"{speaker}: {content}"``          -
interaction             flattened turns + topics/entities   ``summary``: its summary
summary                 summary text + key topics           -
fact / insight          ``retrieval_key`` or content        -
profile                 profile text                        -
======================  =================================  =============================
"""

from __future__ import annotations

from collections.abc import Sequence

from .embedders.base import Embedder
from .models import Fact, Interaction, MemoryRecord, ThreadSummary, Turn
from .stores.base import CONTENT, Indexed

SUMMARY = "summary"
"""Vector field holding an interaction's summary embedding (seed 001: two vectors)."""


def index_text(record: MemoryRecord) -> str:
    """The text a record is found by (full-text index and ``content`` vector)."""
    if isinstance(record, Turn):
        return f"{record.author}: {record.content}"
    if isinstance(record, Fact):
        return record.retrieval_key or record.content
    if isinstance(record, ThreadSummary):
        topics = ", ".join(record.key_topics)
        return f"{record.content}\nTopics: {topics}" if topics else record.content
    if isinstance(record, Interaction):
        extra = ", ".join([*record.topics, *record.entities])
        return f"{record.content}\n{extra}" if extra else record.content
    return record.content


def vector_texts(record: MemoryRecord) -> dict[str, str]:
    """Field name -> text to embed for ``record`` (always has :data:`CONTENT`)."""
    texts = {CONTENT: index_text(record)}
    if isinstance(record, Interaction) and record.summary:
        texts[SUMMARY] = record.summary
    return texts


async def build_indexed(records: Sequence[MemoryRecord], embedder: Embedder) -> list[Indexed]:
    """Embed every vector text of ``records`` in one batched call and wrap them for the store.

    Returns:
        One :class:`Indexed` per record, in order, with float32 vectors of ``embedder.dim``.

    Raises:
        EmbedderError: the embedding model failed (nothing is written by this function).
    """
    per_record = [vector_texts(r) for r in records]
    flat = [text for texts in per_record for text in texts.values()]
    matrix = await embedder.embed(flat) if flat else None
    out: list[Indexed] = []
    row = 0
    for record, texts in zip(records, per_record, strict=True):
        vectors = {}
        for name in texts:
            vectors[name] = matrix[row]
            row += 1
        out.append(Indexed(record=record, text=texts[CONTENT], vectors=vectors))
    return out

"""How a record is indexed: the text its full-text entry holds and the texts its vectors embed.

One place decides this for every kind, so the write path (client, pipeline steps) and any
re-indexing agree:

======================  ==========================================  ======================
kind                    full-text / ``content`` vector              extra vector fields
======================  ==========================================  ======================
turn                    previous turn (context) + ``"{speaker}:     -
                        {content}"``
interaction             flattened turns + topics/entities           ``summary``: its summary
summary                 summary text + key topics                   -
fact / insight          ``retrieval_key`` or content                -
profile                 profile text                                -
======================  ==========================================  ======================

Why a turn is indexed with the turn before it: in a conversation the answer turn often lacks
the words of the question it answers ("What did you do yesterday?" / "Went to a support
group."), so a query phrased like the question only finds the answer through its context.
This is seed 004's ``vector_txt`` idea (index a memory by the situation it was made in) applied
to raw turns. Measured on the LoCoMo dev set (BENCHMARKS.md, "Recall on LoCoMo"): turn-level
recall_any@10 0.768 -> 0.818 with evidence-level fusion. The previous turn is cut to
:data:`CONTEXT_TOKENS` tokens so it cannot push the turn itself out of the embedder's window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .embedders.base import Embedder
from .models import Fact, Interaction, MemoryRecord, RecordKind, ThreadSummary, Turn
from .stores.base import CONTENT, Indexed, MemoryStore, RecordQuery
from .tokens import truncate_tokens

SUMMARY = "summary"
"""Vector field holding an interaction's summary embedding (seed 001: two vectors)."""

CONTEXT_TOKENS = 64
"""Most tokens of the previous turn kept in a turn's index text (estimated tokens)."""


def _line(turn: Turn, max_tokens: int | None = None) -> str:
    text = turn.content if max_tokens is None else truncate_tokens(turn.content, max_tokens)
    return f"{turn.author}: {text}"


def index_text(
    record: MemoryRecord, previous: Turn | None = None, context_tokens: int = CONTEXT_TOKENS
) -> str:
    """The text a record is found by (full-text index and ``content`` vector).

    Args:
        record: any record.
        previous: for a turn, the turn before it in its thread (its context), if any.
        context_tokens: most tokens of ``previous`` kept (0: a turn is indexed alone).
    """
    if isinstance(record, Turn):
        own = _line(record)
        if previous is None or context_tokens <= 0:
            return own
        return f"{_line(previous, context_tokens)}\n{own}"
    if isinstance(record, Fact):
        return record.retrieval_key or record.content
    if isinstance(record, ThreadSummary):
        topics = ", ".join(record.key_topics)
        return f"{record.content}\nTopics: {topics}" if topics else record.content
    if isinstance(record, Interaction):
        extra = ", ".join([*record.topics, *record.entities])
        return f"{record.content}\n{extra}" if extra else record.content
    return record.content


def vector_texts(
    record: MemoryRecord, previous: Turn | None = None, context_tokens: int = CONTEXT_TOKENS
) -> dict[str, str]:
    """Field name -> text to embed for ``record`` (always has :data:`CONTENT`)."""
    texts = {CONTENT: index_text(record, previous, context_tokens)}
    if isinstance(record, Interaction) and record.summary:
        texts[SUMMARY] = record.summary
    return texts


async def previous_turns(
    records: Sequence[MemoryRecord], store: MemoryStore | None = None
) -> dict[str, Turn]:
    """The turn before each turn of ``records`` in its thread: turn id -> previous turn.

    The previous turn (``seq - 1`` in the same user's thread) is taken from ``records`` when
    the batch holds it, else read from ``store`` (one query per thread). Turns at ``seq`` 0,
    and turns whose predecessor is nowhere to be found, have no entry.
    """
    turns = [r for r in records if isinstance(r, Turn) and r.thread_id and r.seq > 0]
    in_batch = {
        (r.user_id, r.thread_id, r.seq): r for r in records if isinstance(r, Turn) and r.thread_id
    }
    found: dict[str, Turn] = {}
    missing: dict[tuple[str, str], int] = {}
    for turn in turns:
        prev = in_batch.get((turn.user_id, turn.thread_id, turn.seq - 1))
        if prev is not None:
            found[turn.id] = prev
        else:
            key = (turn.user_id, turn.thread_id or "")
            missing[key] = min(missing.get(key, turn.seq), turn.seq)
    if store is None or not missing:
        return found
    stored: dict[tuple[str, str, int], Turn] = {}
    for (user_id, thread_id), low in missing.items():
        wanted = {t.seq - 1 for t in turns if (t.user_id, t.thread_id) == (user_id, thread_id)}
        query = RecordQuery(
            kinds=frozenset({RecordKind.TURN}), thread_id=thread_id, after_seq=low - 2
        )
        for record in await store.list(user_id, query):
            if isinstance(record, Turn) and record.seq in wanted:
                stored[(user_id, thread_id, record.seq)] = record
    for turn in turns:
        if turn.id not in found:
            prev = stored.get((turn.user_id, turn.thread_id or "", turn.seq - 1))
            if prev is not None:
                found[turn.id] = prev
    return found


async def build_indexed(
    records: Sequence[MemoryRecord],
    embedder: Embedder,
    *,
    store: MemoryStore | None = None,
    previous: Mapping[str, Turn] | None = None,
    context_tokens: int = CONTEXT_TOKENS,
) -> list[Indexed]:
    """Embed every vector text of ``records`` in one batched call and wrap them for the store.

    Args:
        records: records to index.
        embedder: the store's embedder.
        store: where to look up the previous turn of a turn whose predecessor is not in
            ``records`` (see :func:`previous_turns`); without it such turns are indexed alone.
        previous: turn id -> previous turn, when the caller already knows them.
        context_tokens: most tokens of a turn's previous turn in its index text
            (``Settings.turn_context_tokens``; 0 indexes turns alone and skips the look-ups).

    Returns:
        One :class:`Indexed` per record, in order, with float32 vectors of ``embedder.dim``.

    Raises:
        EmbedderError: the embedding model failed (nothing is written by this function).
    """
    if context_tokens <= 0:
        context: dict[str, Turn] = {}
    elif previous is not None:
        context = dict(previous)
    else:
        context = await previous_turns(records, store)
    per_record = [vector_texts(r, context.get(r.id), context_tokens) for r in records]
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

"""Offline map-reduce summary of recalled memories (the SUMMARY recall strategy, seed 004).

Map and reduce are the same operation here: keep the sentences of the memories that share the
most content terms with the recall context, in the order given (the caller passes memories
best first), until the token budget is spent. Near-duplicate sentences (content-term Jaccard
>= :data:`DUPLICATE_JACCARD`) are kept once. Transparent and deterministic; no embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInputError
from ...tokens import count_tokens, truncate_tokens
from ..base import SummaryDraft
from .sentences import content_terms, jaccard, split_sentences

DUPLICATE_JACCARD = 0.7
"""Content-term overlap above which a sentence repeats one already kept."""


def summarize_memories(context: str, memories: Sequence[str], max_tokens: int) -> SummaryDraft:
    """Condense ``memories`` (best first) into at most ``max_tokens`` tokens for ``context``
    (see the module docstring; ties keep the memories' order, so the best-scored memory wins).

    Raises:
        InvalidInputError: ``max_tokens`` < 1 or no memory has text.
    """
    if max_tokens < 1:
        raise InvalidInputError("max_tokens must be at least 1")
    sentences = [s for m in memories for s in split_sentences(m) if s.strip()]
    if not sentences:
        raise InvalidInputError("there are no memories to summarize")
    wanted = set(content_terms(context))
    terms = [set(content_terms(s)) for s in sentences]
    order = sorted(range(len(sentences)), key=lambda i: (-len(wanted & terms[i]), i))
    kept: list[int] = []
    kept_terms: list[set[str]] = []
    used = 0
    for i in order:
        if any(jaccard(terms[i], other) >= DUPLICATE_JACCARD for other in kept_terms):
            continue
        cost = count_tokens(sentences[i])
        if used + cost > max_tokens:
            continue
        kept.append(i)
        kept_terms.append(terms[i])
        used += cost
    if not kept:  # the best sentence alone is over budget: cut it
        return SummaryDraft(text=truncate_tokens(sentences[order[0]], max_tokens) or "...")
    return SummaryDraft(text=" ".join(sentences[i] for i in sorted(kept)))


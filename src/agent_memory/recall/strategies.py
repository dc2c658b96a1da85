"""How many recalled memories are kept, and how (seed 004 ``max_memory_strategy``).

* HARD_LIMIT: the ``max_memories`` best-scoring memories across all collections.
* COLLECTION_LIMIT: an even spread over the collections searched: each collection gets
  ``max_memories // n`` places (the remainder goes to the collections whose best memory scores
  highest); places a collection cannot fill go to the best remaining memories of any
  collection. The kept memories are returned best first.
* SUMMARY: every memory above ``min_score`` is condensed by the reasoner in map-reduce: the
  memories (best first) are cut into batches of ``reduce_batch_size``, each batch is summarized
  (map), and the partial summaries are summarized again in batches until one remains (reduce).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TypeVar

from ..errors import InvalidInputError
from ..reasoners.base import Reasoner

T = TypeVar("T")


class Strategy(StrEnum):
    """Seed 004's ``max_memory_strategy`` values."""

    HARD_LIMIT = "HARD_LIMIT"
    COLLECTION_LIMIT = "COLLECTION_LIMIT"
    SUMMARY = "SUMMARY"


def hard_limit(items: Sequence[T], score: Callable[[T], float], limit: int) -> list[T]:
    """The ``limit`` best items by ``score`` (stable for ties)."""
    return sorted(items, key=lambda x: -score(x))[:limit]


def collection_limit(
    items: Sequence[T],
    score: Callable[[T], float],
    collection: Callable[[T], str | None],
    limit: int,
    collections: Sequence[str | None] | None = None,
) -> list[T]:
    """An even spread of at most ``limit`` items over collections, best first.

    Args:
        items: scored candidates.
        score / collection: accessors.
        limit: places in all.
        collections: the collections to spread over (default: those present in ``items``);
            a collection with no candidates still counts, its places going to the others.

    Returns:
        The kept items sorted by score, best first.
    """
    ranked = sorted(items, key=lambda x: -score(x))
    groups: dict[str | None, list[T]] = {
        c: [] for c in (collections if collections is not None else [])
    }
    for item in ranked:
        groups.setdefault(collection(item), []).append(item)
    if not groups or limit <= 0:
        return []
    share, extra = divmod(limit, len(groups))
    by_best = sorted(groups, key=lambda c: -score(groups[c][0]) if groups[c] else 1.0)
    quota = {c: share + (1 if i < extra else 0) for i, c in enumerate(by_best)}
    kept = [item for c, members in groups.items() for item in members[: quota[c]]]
    chosen = {id(x) for x in kept}
    for item in ranked:  # places left by small collections go to the best of the rest
        if len(kept) >= limit:
            break
        if id(item) not in chosen:
            kept.append(item)
            chosen.add(id(item))
    return sorted(kept, key=lambda x: -score(x))


async def map_reduce_summary(
    reasoner: Reasoner,
    context: str,
    texts: Sequence[str],
    *,
    batch_size: int = 10,
    max_tokens: int = 300,
) -> tuple[str, int]:
    """Condense ``texts`` (best first) for ``context`` through ``reasoner.summarize_memories``.

    Returns:
        ``(summary text, number of reasoner calls)``.

    Raises:
        InvalidInputError: ``batch_size`` < 2 (the reduce could not shrink), ``max_tokens`` < 1
            or no texts.
        ReasonerError: a map or reduce call failed.
    """
    if batch_size < 2:
        raise InvalidInputError("reduce_batch_size must be at least 2")
    if max_tokens < 1:
        raise InvalidInputError("max_tokens must be at least 1")
    if not texts:
        raise InvalidInputError("there are no memories to summarize")
    layer = list(texts)
    calls = 0
    while True:
        batches = [layer[i : i + batch_size] for i in range(0, len(layer), batch_size)]
        layer = []
        for batch in batches:
            layer.append((await reasoner.summarize_memories(context, batch, max_tokens)).text)
            calls += 1
        if len(layer) == 1:
            return layer[0], calls

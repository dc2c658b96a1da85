"""Reciprocal rank fusion.

Source: G. V. Cormack, C. L. A. Clarke, S. Buettcher, "Reciprocal Rank Fusion outperforms
Condorcet and individual Rank Learning Methods", SIGIR 2009: ``score(d) = sum_r 1 / (k + rank_r(d))``
with ``k = 60``. We default to ``k = 10``: over one user's memories the top ranks carry most of
the evidence, and on the LoCoMo dev set k = 10 beat k = 60 by 4-5 points of recall@10 (every
pool size tried; BENCHMARKS.md, "Recall on LoCoMo").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DEFAULT_RRF_K = 10


def rrf(
    rankings: Mapping[str, Sequence[str]],
    k: int = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse several rankings of ids into one.

    Args:
        rankings: signal name -> ids, best first (each id at most once per ranking).
        k: the RRF constant (> 0); larger values flatten the contribution of top ranks.
        weights: optional per-signal multipliers (default 1.0 each).

    Returns:
        ``(id, fused score)`` pairs, best first; ties keep the order of first appearance.

    Raises:
        ValueError: ``k`` is not positive.
    """
    if k <= 0:
        raise ValueError("rrf k must be positive")
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))

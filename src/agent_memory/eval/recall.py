"""Turn-level evidence recall: the ranking scored, recall_any@k / recall_all@k, their means.

Pure functions, no I/O. The evaluation protocol ("eval locomo"):

* The ranking scored is a list of **turn ids**, as the product retrieves them for one user.
  A search hit on a turn stands for that turn. A hit on a derived record (interaction, summary,
  fact, insight, profile) stands for the turns in its ``evidence``, each taking one of the k
  places at that rank, in evidence order; a turn already placed is skipped (it does not take a
  second place); the list is cut at k. So a derived record costs as many places as the turns
  it stands for: a summary of a whole session cannot bring the whole session into the top 10
  through one place.
* ``recall_any@k`` is 1 when at least one gold evidence turn is among the first k ranked turns,
  else 0; ``recall_all@k`` is 1 only when every gold turn is. The reported figures are their
  means over questions. For a question with one evidence turn the two agree; for multi-turn
  evidence ``recall_any`` is the lenient reading and ``recall_all`` the strict one.

Because placement is greedy, ``expand_ranking(hits, k) == expand_ranking(hits, K)[:k]`` for
``k <= K``: expand once at the largest k and slice for the others.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ..errors import InvalidInputError

DEFAULT_KS: tuple[int, ...] = (1, 5, 10, 25)
"""The cut-offs reported by ``agent-memory eval``."""

TURN_KIND = "turn"
"""``record_kind`` of a hit on a raw turn (equal to ``RecordKind.TURN``)."""

Hit = tuple[str, str, Sequence[str]]
"""One search hit as ``(record_kind, record_id, evidence_turn_ids)``, best first in a list."""


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be a positive integer, got {k!r}")
    return k


def expand_ranking(hits: Iterable[Hit], k: int) -> list[str]:
    """Turn a ranked list of hits into the ranked list of at most ``k`` turn ids scored.

    Args:
        hits: ``(record_kind, record_id, evidence_turn_ids)`` best first. For ``"turn"`` hits
            the turn id is ``record_id`` (the evidence is ignored); for any other kind the
            evidence turn ids, in order, each take one place at that rank. A derived hit with
            no evidence takes no place.
        k: number of places (positive).

    Returns:
        Distinct turn ids, best first, ``len <= k``.

    Raises:
        InvalidInputError: ``k`` is not a positive integer or a hit is not a 3-tuple.
    """
    _check_k(k)
    ranked: list[str] = []
    placed: set[str] = set()
    for hit in hits:
        if len(ranked) >= k:
            break
        try:
            kind, record_id, evidence = hit
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"a hit must be (record_kind, record_id, evidence_turn_ids), got {hit!r}"
            ) from None
        turn_ids = (record_id,) if str(kind) == TURN_KIND else evidence
        for turn_id in turn_ids:
            if turn_id in placed:
                continue
            if len(ranked) >= k:
                break
            ranked.append(turn_id)
            placed.add(turn_id)
    return ranked


def _gold(gold: Collection[str]) -> set[str]:
    gold_set = set(gold)
    if not gold_set:
        raise InvalidInputError("recall needs at least one gold turn id")
    return gold_set


def recall_any(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 if any gold turn id is among ``ranked[:k]``, else 0.0.

    Raises:
        InvalidInputError: ``gold`` is empty or ``k`` is not a positive integer.
    """
    gold_set, top = _gold(gold), ranked[: _check_k(k)]
    return 1.0 if any(turn_id in gold_set for turn_id in top) else 0.0


def recall_all(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 if every gold turn id is among ``ranked[:k]``, else 0.0.

    Raises:
        InvalidInputError: ``gold`` is empty or ``k`` is not a positive integer.
    """
    gold_set, top = _gold(gold), set(ranked[: _check_k(k)])
    return 1.0 if gold_set <= top else 0.0


def metric_names(ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    """The metric keys in report order: every ``recall_any@k``, then every ``recall_all@k``."""
    return [f"recall_any@{k}" for k in ks] + [f"recall_all@{k}" for k in ks]


def score_question(
    ranked: Sequence[str], gold: Collection[str], ks: Sequence[int] = DEFAULT_KS
) -> dict[str, float]:
    """Both recalls of one question at every k: ``{"recall_any@1": 0.0 or 1.0, ...}``.

    ``ranked`` should hold at least ``max(ks)`` places when that many exist.

    Raises:
        InvalidInputError: ``gold`` is empty or a k is not a positive integer.
    """
    scores = {f"recall_any@{k}": recall_any(ranked, gold, k) for k in ks}
    scores.update({f"recall_all@{k}": recall_all(ranked, gold, k) for k in ks})
    return scores


def _means(rows: Sequence[Mapping[str, float]], names: Sequence[str]) -> dict[str, float]:
    if not rows:
        return dict.fromkeys(names, 0.0)
    return {name: sum(row[name] for row in rows) / len(rows) for name in names}


def aggregate(
    results: Iterable[tuple[int | str, Mapping[str, float]]], ks: Sequence[int] = DEFAULT_KS
) -> dict[str, Any]:
    """Mean recalls overall and per category, in the JSON shape of ``agent-memory eval``.

    Args:
        results: one ``(category, score_question(...))`` pair per scored question.
        ks: the cut-offs the scores were computed at.

    Returns:
        ``{"n": int, "overall": {"recall_any@1": float, ..., "recall_all@25": float},
        "by_category": {"1": {"n": int, "recall_any@1": float, ...}, ...}}``: means in [0, 1];
        categories as strings in numeric order, each with its own question count ``n``. With no
        question every mean is 0.0 and ``n`` is 0.

    Raises:
        InvalidInputError: a score row lacks one of the metrics for ``ks``.
    """
    names = metric_names(ks)
    by_category: dict[str, list[Mapping[str, float]]] = {}
    every: list[Mapping[str, float]] = []
    for category, scores in results:
        missing = [name for name in names if name not in scores]
        if missing:
            raise InvalidInputError(f"score row lacks {', '.join(missing)}")
        by_category.setdefault(str(category), []).append(scores)
        every.append(scores)
    ordered = sorted(by_category, key=lambda c: (0, int(c)) if c.isdigit() else (1, c))
    return {
        "n": len(every),
        "overall": _means(every, names),
        "by_category": {
            c: {"n": len(by_category[c]), **_means(by_category[c], names)} for c in ordered
        },
    }

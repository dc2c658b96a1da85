"""Budgeted recall: is a question's evidence inside the context retrieval fits in N tokens?

For each question, the hits retrieval returned (best first) are rendered as context lines
(:func:`render_hit`) and packed greedily: a hit whose line still fits in the budget is added, a
hit that does not fit is skipped and packing goes on with the next (a small hit further down
can still fit). Tokens are :func:`agent_memory.tokens.count_tokens` of each line, so a derived
record (fact, summary) costs its own text.

Two readings are reported per question (``1.0`` or ``0.0``):

* ``turns``: every gold evidence turn is itself in the context (strict);
* ``cited``: every gold turn is in the context or cited (``evidence``) by a derived record in it
  (the reading :func:`~agent_memory.eval.recall.expand_ranking` uses for recall@k).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import InvalidInputError
from ..tokens import count_tokens


@dataclass(frozen=True)
class ContextHit:
    """One hit as context: kind, id, cited turn ids, and the rendered line."""

    kind: str
    record_id: str
    evidence: Sequence[str]
    text: str


def render_hit(kind: str, content: str, created_at: datetime, speaker: str | None) -> str:
    """The context line of a hit: ``[YYYY-MM-DD] Speaker: text`` for a turn, ``[kind
    YYYY-MM-DD] text`` for a derived record."""
    day = f"{created_at:%Y-%m-%d}"
    if kind == "turn":
        return f"[{day}] {speaker or 'user'}: {content}"
    return f"[{kind} {day}] {content}"


def pack(hits: Iterable[ContextHit], budget: int) -> tuple[list[ContextHit], int]:
    """Greedy packing of ``hits`` (best first) into ``budget`` tokens.

    Returns:
        ``(kept hits, tokens used)``.

    Raises:
        InvalidInputError: ``budget`` < 1.
    """
    if budget < 1:
        raise InvalidInputError("budget must be at least 1 token")
    kept: list[ContextHit] = []
    used = 0
    for hit in hits:
        cost = count_tokens(hit.text) + 1  # one for the line break
        if used + cost <= budget:
            kept.append(hit)
            used += cost
    return kept, used


def coverage(hits: Sequence[ContextHit], gold: Iterable[str], budget: int) -> dict[str, float]:
    """``{"turns": 0/1, "cited": 0/1, "tokens": used}`` for one question (see module doc)."""
    kept, used = pack(hits, budget)
    wanted = set(gold)
    own = {h.record_id for h in kept if h.kind == "turn"}
    cited = own | {t for h in kept if h.kind != "turn" for t in h.evidence}
    return {
        "turns": 1.0 if wanted <= own else 0.0,
        "cited": 1.0 if wanted <= cited else 0.0,
        "tokens": float(used),
    }


def summarize(
    rows: Iterable[tuple[int | str, Mapping[str, float]]], budget: int
) -> dict[str, object]:
    """Means of :func:`coverage` rows overall and per category.

    Returns:
        ``{"budget": int, "n": int, "overall": {"turns": .., "cited": .., "tokens": ..},
        "by_category": {"1": {"n": .., "turns": .., ...}}}``.
    """
    per: dict[str, list[Mapping[str, float]]] = {}
    every: list[Mapping[str, float]] = []
    for category, row in rows:
        per.setdefault(str(category), []).append(row)
        every.append(row)

    def means(group: list[Mapping[str, float]]) -> dict[str, float]:
        if not group:
            return {"turns": 0.0, "cited": 0.0, "tokens": 0.0}
        return {k: sum(r[k] for r in group) / len(group) for k in ("turns", "cited", "tokens")}

    return {
        "budget": budget,
        "n": len(every),
        "overall": means(every),
        "by_category": {c: {"n": len(per[c]), **means(per[c])} for c in sorted(per, key=str)},
    }

"""Evidence-level fusion: a derived record's fused score lifts the turns it cites (RRF itself is
:func:`agent_memory.text.fusion.rrf`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..text.fusion import DEFAULT_RRF_K, rrf

__all__ = ["DEFAULT_RRF_K", "FACT_FOLD_WEIGHT", "fold_evidence", "rrf"]

FACT_FOLD_WEIGHT = 0.4
"""Share of a fact's (or insight's) fused score added onto each turn it cites, in search.

A fact restates part of its turn, so its match is not independent evidence for the turn: added
whole, it lifted every turn that has a fact above better-matching turns that have none, once
the extractor kept facts only for the turns worth one (about one in two). Chosen on LoCoMo
conv-26 and conv-30 (turn-level recall@10 any / all: 1.0 gave 0.827 / 0.706, 0.25-0.5 gave
0.866-0.870 / 0.758-0.762, 0 gave 0.857 / 0.745); on conv-41, 42 and 43, not looked at while
choosing, 1.0 gave 0.802 / 0.692 and 0.4 gave 0.837 / 0.716 (BENCHMARKS.md, "Recall on
LoCoMo")."""


def fold_evidence(
    scores: Mapping[str, float],
    evidence: Mapping[str, Sequence[str]],
    *,
    per_turn: Mapping[str, bool] | None = None,
    whole_weight: float = 1.0,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Evidence-level fusion: add each derived record's fused score onto the turns it cites.

    A turn supported by its own text, by a fact extracted from it and by its session's summary
    collects all three contributions, so agreement between records of different kinds lifts
    the turn (our own scheme, measured in BENCHMARKS.md "Recall on LoCoMo").

    Args:
        scores: record id -> fused score (e.g. from :func:`rrf`), turns and derived records.
        evidence: derived record id -> the turn ids it cites (records absent here, e.g. turns,
            fold nothing).
        per_turn: derived record id -> ``True`` when each cited turn receives the record's whole
            score (a fact stands for its one or two source turns), ``False`` when the score is
            shared out evenly (a summary stands for a whole session). Default: shared.

    Returns:
        ``(turn_scores, support)``: turn id -> the folded contributions alone (add the turn's
        own score when it has one), and turn id -> {derived record id: contribution}.
    """
    folded: dict[str, float] = {}
    support: dict[str, dict[str, float]] = {}
    for record_id, turn_ids in evidence.items():
        score = scores.get(record_id)
        if score is None or not turn_ids:
            continue
        whole = bool(per_turn and per_turn.get(record_id))
        share = score * whole_weight if whole else score / len(turn_ids)
        for turn_id in dict.fromkeys(turn_ids):
            folded[turn_id] = folded.get(turn_id, 0.0) + share
            support.setdefault(turn_id, {})[record_id] = share
    return folded, support

"""Evidence-level fusion: a derived record's fused score lifts the turns it cites (RRF itself is
:func:`agent_memory.text.fusion.rrf`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..text.fusion import DEFAULT_RRF_K, rrf

__all__ = ["DEFAULT_RRF_K", "fold_evidence", "rrf"]


def fold_evidence(
    scores: Mapping[str, float],
    evidence: Mapping[str, Sequence[str]],
    *,
    per_turn: Mapping[str, bool] | None = None,
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
        share = score if whole else score / len(turn_ids)
        for turn_id in dict.fromkeys(turn_ids):
            folded[turn_id] = folded.get(turn_id, 0.0) + share
            support.setdefault(turn_id, {})[record_id] = share
    return folded, support

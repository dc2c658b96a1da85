"""Recall math on hand-built rankings."""

from __future__ import annotations

import json

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.eval.recall import (
    aggregate,
    expand_ranking,
    metric_names,
    recall_all,
    recall_any,
    score_question,
)
from agent_memory.models import RecordKind


def test_turn_hits_rank_in_order():
    hits = [("turn", "t3", []), ("turn", "t1", []), ("turn", "t2", [])]
    assert expand_ranking(hits, 10) == ["t3", "t1", "t2"]
    assert expand_ranking(hits, 2) == ["t3", "t1"]


def test_derived_hit_takes_one_place_per_evidence_turn():
    hits = [
        ("turn", "t9", []),
        ("summary", "summary_u_s1", ["t1", "t2", "t3", "t4"]),
        ("turn", "t5", []),
    ]
    assert expand_ranking(hits, 10) == ["t9", "t1", "t2", "t3", "t4", "t5"]
    # the summary is cut at k like anything else: it cannot bring the whole session in
    assert expand_ranking(hits, 3) == ["t9", "t1", "t2"]


def test_turn_hit_ignores_its_evidence_and_enum_kinds_work():
    hits = [(RecordKind.TURN, "t1", ["t7"]), (RecordKind.FACT, "f1", ["t2"])]
    assert expand_ranking(hits, 5) == ["t1", "t2"]


def test_duplicates_take_no_second_place():
    hits = [
        ("fact", "f1", ["t2", "t1"]),
        ("turn", "t1", []),
        ("interaction", "i1", ["t1", "t2", "t3"]),
        ("turn", "t4", []),
    ]
    assert expand_ranking(hits, 3) == ["t2", "t1", "t3"]
    assert expand_ranking(hits, 10) == ["t2", "t1", "t3", "t4"]


def test_derived_hit_without_evidence_takes_no_place():
    assert expand_ranking([("profile", "user_summary_u", []), ("turn", "t1", [])], 1) == ["t1"]


def test_expansion_is_prefix_consistent():
    hits = [("summary", "s", [f"t{i}" for i in range(8)]), ("fact", "f", ["t3", "t20", "t21"]),
            ("turn", "t22", [])]
    full = expand_ranking(hits, 25)
    assert full == [f"t{i}" for i in range(8)] + ["t20", "t21", "t22"]
    for k in range(1, 26):
        assert expand_ranking(hits, k) == full[:k]


def test_expand_rejects_bad_input():
    for k in (0, -1, 2.5, True):
        with pytest.raises(InvalidInputError):
            expand_ranking([], k)
    with pytest.raises(InvalidInputError, match="record_kind"):
        expand_ranking([("turn", "t1")], 5)


def test_recall_any_vs_all():
    ranked = ["a", "b", "c", "d"]
    gold = ["c", "a"]
    assert recall_any(ranked, gold, 1) == 1.0
    assert recall_all(ranked, gold, 1) == 0.0
    assert recall_all(ranked, gold, 2) == 0.0
    assert recall_all(ranked, gold, 3) == 1.0
    assert recall_any(ranked, ["z"], 4) == 0.0
    assert recall_any(ranked, ["d"], 3) == 0.0 and recall_any(ranked, ["d"], 4) == 1.0
    # k beyond the ranking's length: only what was ranked counts
    assert recall_all(ranked, ["d", "z"], 25) == 0.0
    with pytest.raises(InvalidInputError, match="gold"):
        recall_any(ranked, [], 5)
    with pytest.raises(InvalidInputError):
        recall_all(ranked, ["a"], 0)


def test_score_question_keys_and_values():
    scores = score_question(["x", "g1", "y", "z", "w", "g2"], ["g1", "g2"], ks=(1, 5, 10))
    assert list(scores) == metric_names((1, 5, 10)) == [
        "recall_any@1", "recall_any@5", "recall_any@10",
        "recall_all@1", "recall_all@5", "recall_all@10",
    ]
    assert scores == {
        "recall_any@1": 0.0, "recall_any@5": 1.0, "recall_any@10": 1.0,
        "recall_all@1": 0.0, "recall_all@5": 0.0, "recall_all@10": 1.0,
    }


def test_aggregate_shape_and_means():
    ks = (1, 5, 10, 25)
    rows = [
        (2, score_question(["g"], ["g"], ks)),                # all hits
        (1, score_question(["x"] * 3 + ["g"], ["g"], ks)),    # found at rank 4
        (1, score_question(["g", "x"], ["g", "h"], ks)),      # one of two
        (10, score_question(["x"], ["g"], ks)),               # missed
    ]
    report = aggregate(rows, ks)
    assert json.loads(json.dumps(report)) == report
    assert set(report) == {"n", "overall", "by_category"}
    assert report["n"] == 4
    assert list(report["overall"]) == metric_names(ks)
    assert report["overall"]["recall_any@1"] == pytest.approx(2 / 4)
    assert report["overall"]["recall_any@5"] == pytest.approx(3 / 4)
    assert report["overall"]["recall_all@25"] == pytest.approx(2 / 4)
    assert list(report["by_category"]) == ["1", "2", "10"]  # numeric order, as strings
    one = report["by_category"]["1"]
    assert one["n"] == 2
    assert one["recall_any@1"] == 0.5 and one["recall_any@5"] == 1.0
    assert one["recall_all@5"] == 0.5 and one["recall_all@25"] == 0.5
    assert report["by_category"]["10"]["recall_any@25"] == 0.0


def test_aggregate_empty_and_incomplete_rows():
    empty = aggregate([], (1, 5))
    assert empty == {
        "n": 0,
        "overall": {"recall_any@1": 0.0, "recall_any@5": 0.0,
                    "recall_all@1": 0.0, "recall_all@5": 0.0},
        "by_category": {},
    }
    with pytest.raises(InvalidInputError, match="recall_any@5"):
        aggregate([(1, score_question(["a"], ["a"], (1,)))], (1, 5))

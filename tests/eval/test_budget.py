"""Budgeted recall: greedy packing by tokens, strict and cited coverage."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.eval.budget import ContextHit, coverage, pack, render_hit, summarize
from agent_memory.tokens import count_tokens

DAY = datetime(2023, 5, 8, tzinfo=UTC)


def hit(kind, rid, text, evidence=()):
    return ContextHit(kind, rid, list(evidence), text)


def test_render_and_pack_skip_what_does_not_fit():
    line = render_hit("turn", "I went hiking.", DAY, "Caroline")
    assert line == "[2023-05-08] Caroline: I went hiking."
    assert render_hit("fact", "Caroline hikes.", DAY, None).startswith("[fact 2023-05-08]")
    small, big = hit("turn", "t1", "a b c"), hit("turn", "t2", " ".join(["w"] * 50))
    tail = hit("turn", "t3", "d e")
    kept, used = pack([small, big, tail], budget=10)
    assert [h.record_id for h in kept] == ["t1", "t3"]
    assert used == count_tokens("a b c") + 1 + count_tokens("d e") + 1
    with pytest.raises(InvalidInputError):
        pack([small], 0)


def test_coverage_strict_and_cited():
    hits = [hit("fact", "f1", "Caroline hikes.", ["t1"]), hit("turn", "t2", "x y")]
    assert coverage(hits, ["t2"], 100)["turns"] == 1.0
    row = coverage(hits, ["t1", "t2"], 100)
    assert row["turns"] == 0.0 and row["cited"] == 1.0
    assert coverage(hits, ["t1", "t2"], 3)["cited"] == 0.0  # only the turn fits
    summary = summarize([(1, row), (2, coverage(hits, ["t2"], 100))], 100)
    assert summary["n"] == 2 and summary["overall"]["turns"] == 0.5
    assert summary["by_category"]["1"]["cited"] == 1.0

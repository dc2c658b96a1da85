"""Evidence-level fusion and the turn context key, on real SQLite files and the local embedder."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.indexing import index_text, previous_turns
from agent_memory.models import Fact, Turn
from agent_memory.retrieval.fusion import FACT_FOLD_WEIGHT, fold_evidence, rrf

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def test_fold_evidence_whole_and_shared():
    scores = {"f1": 0.3, "s1": 0.4, "t1": 0.1}
    folded, support = fold_evidence(
        scores, {"f1": ["t1"], "s1": ["t1", "t2", "t2", "t3", "t4"]},
        per_turn={"f1": True, "s1": False},
    )
    assert folded["t1"] == pytest.approx(0.3 + 0.4 / 5)
    assert folded["t2"] == pytest.approx(0.4 / 5)  # a duplicate citation counts once
    assert support["t1"] == {"f1": 0.3, "s1": pytest.approx(0.08)}
    assert "f9" not in folded and fold_evidence({}, {"f1": ["t1"]}) == ({}, {})


def test_a_fact_adds_a_weighted_share_and_a_summary_is_not_weighted():
    scores = {"f1": 0.3, "s1": 0.4}
    folded, support = fold_evidence(
        scores, {"f1": ["t1"], "s1": ["t1", "t2"]}, per_turn={"f1": True, "s1": False},
        whole_weight=FACT_FOLD_WEIGHT)
    assert folded["t1"] == pytest.approx(0.3 * FACT_FOLD_WEIGHT + 0.2)
    assert support["t1"]["f1"] == pytest.approx(0.12) and folded["t2"] == pytest.approx(0.2)


def test_rrf_rejects_bad_k_and_weights_signals():
    assert rrf({"a": ["x", "y"], "b": ["y"]}, k=1)[0][0] == "y"
    with pytest.raises(ValueError):
        rrf({"a": ["x"]}, k=0)


async def add_dialogue(memory):
    lines = [
        ("Melanie", "What did you do over the weekend, Caroline?"),
        ("Caroline", "Went to a pottery workshop downtown, it was so relaxing."),
        ("Melanie", "Sounds lovely. I mostly read at home."),
        ("Caroline", "Honestly I needed the break after the week I had."),
    ]
    return await memory.add_turns([
        {"user_id": "u1", "thread_id": "s1", "role": "user", "speaker": s, "content": c,
         "created_at": T0 + timedelta(minutes=i)}
        for i, (s, c) in enumerate(lines)
    ])


async def test_turn_is_indexed_with_the_previous_turn(memory):
    turns = await add_dialogue(memory)
    assert index_text(turns[1], turns[0]).startswith("Melanie: What did you do")
    # the first turn of a later batch finds its predecessor in the store
    (late,) = await memory.add_turns([{"user_id": "u1", "thread_id": "s1", "role": "user",
                                       "speaker": "Melanie", "content": "Take care!"}])
    found = await previous_turns([late], memory.store)
    assert found[late.id].id == turns[-1].id
    assert await previous_turns([turns[0]], memory.store) == {}
    # the context is searchable: the answer turn holds none of the question's content words
    hits = await memory.search("u1", "weekend", mode="text", k=1)
    assert hits[0].record.id in {turns[0].id, turns[1].id}
    ids = [h.record.id for h in await memory.search("u1", "weekend", mode="text", k=2)]
    assert turns[1].id in ids


async def test_a_turn_cited_by_a_fact_ranks_above_its_neighbours(memory):
    turns = await add_dialogue(memory)
    fact = Fact(id="fact_pottery", user_id="u1", thread_id="s1", subject="Caroline",
                content="Caroline took a pottery workshop in May 2023.",
                evidence=[turns[1].id], created_at=turns[1].created_at)
    await memory.components.write([fact])
    hits = await memory.search("u1", "Which workshop did Caroline attend?", k=5)
    by_id = {h.record.id: h for h in hits}
    turn_hit = by_id[turns[1].id]
    assert turn_hit.support == {"fact_pottery": pytest.approx(turn_hit.support["fact_pottery"])}
    assert turn_hit.support["fact_pottery"] > 0
    assert turn_hit.prior == 2.0  # the question names the turn's speaker (test_subjects.py)
    assert turn_hit.score == pytest.approx(turn_hit.prior * (
        sum(1 / (10 + s.rank) for s in turn_hit.signals.values())
        + turn_hit.support["fact_pottery"]))
    assert hits[0].record.id in {turns[1].id, "fact_pottery"}
    # without evidence fusion nothing is folded
    from agent_memory.retrieval.search import SearchRequest, search

    plain = await search(memory.store, memory.embedder, "u1", SearchRequest(
        query="Which workshop did Caroline attend?", k=5, evidence_fusion=False))
    assert all(not h.support for h in plain)


async def test_fused_turn_respects_filters(memory):
    turns = await add_dialogue(memory)
    fact = Fact(id="f_other", user_id="u1", thread_id="s2", content="Caroline likes pottery.",
                evidence=[turns[1].id])
    await memory.components.write([fact])
    hits = await memory.search("u1", "pottery", thread_id="s2", k=5)
    assert [h.record.id for h in hits] == ["f_other"]  # the cited turn is in s1: filtered out
    other = await memory.search("u2", "pottery", k=5)
    assert other == []


def test_a_long_previous_turn_is_cut():
    prev = Turn(id="a", user_id="u", thread_id="s", role="user", speaker="A",
                content=" ".join(["word"] * 500), seq=0)
    turn = Turn(id="b", user_id="u", thread_id="s", role="user", speaker="B", content="yes",
                seq=1)
    text = index_text(turn, prev)
    assert text.endswith("B: yes") and text.count("word") == 64


async def test_a_failing_text_search_fails_the_search_and_leaves_no_embedding_running(
    memory, monkeypatch
):
    """The query is embedded while the full-text lists are found: when the store fails, the
    error reaches the caller and the embedding task is not left behind."""
    from agent_memory.errors import StoreError

    await add_dialogue(memory)

    async def broken(*args, **kwargs):
        raise StoreError("disk I/O error")

    monkeypatch.setattr(memory.store, "text_search", broken)
    before = len(asyncio.all_tasks())
    with pytest.raises(StoreError, match="disk I/O"):
        await memory.search("u1", "pottery workshop", k=3)
    assert len(asyncio.all_tasks()) == before
    hits = await memory.search("u1", "pottery workshop", mode="vector", k=1)
    assert hits and "pottery" in hits[0].record.content

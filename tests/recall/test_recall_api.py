"""Recall through the client on a real SQLite file with the local embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.errors import ConflictError, InvalidInputError
from agent_memory.models import Fact, RecordKind
from agent_memory.reasoners.openai import OpenAIReasoner
from agent_memory.reasoners.scripted import ScriptedChatModel
from agent_memory.stores.base import RecordQuery

T0 = datetime(2024, 3, 1, tzinfo=UTC)

MEMORIES = [
    {"content": "The user is allergic to peanuts.", "collection": "health", "importance": 9},
    {"content": "The user takes ibuprofen for back pain.", "collection": "health",
     "importance": 6},
    {"content": "The user jogs every morning before work.", "collection": "health",
     "importance": 3},
    {"content": "The user prefers window seats on flights.", "collection": "travel",
     "importance": 4},
    {"content": "The user is flying to Lisbon in May.", "collection": "travel", "importance": 7},
    {"content": "The user's favourite food is Thai curry.", "collection": "food",
     "importance": 5},
]


@pytest.fixture
async def filled(memory):
    items = [dict(m, created_at=T0 + timedelta(days=i)) for i, m in enumerate(MEMORIES)]
    result = await memory.add_memories("u1", items)
    assert not result.failed
    await memory.bind_collections("u1", "doctor", ["health", "food"])
    await memory.bind_collections("u1", "planner", ["travel", "food", "health"])
    return memory


async def test_agent_recall_spans_only_its_collections_and_explains_scores(filled):
    result = await filled.recall("u1", "what can the user not eat?", agent_id="doctor",
                                 max_memories=3, recency_alpha=0, update_access=False)
    assert result.collections == ["health", "food"]
    assert {m.collection for m in result.memories} <= {"health", "food"}
    assert all(m.record.collection in {"health", "food"} for m in result.memories)
    assert result.memories[0].record.content == "The user is allergic to peanuts."
    scores = [m.score for m in result.memories]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3
    for m in result.memories:
        e = m.explanation
        assert m.score == pytest.approx(e.relevance.weighted + e.importance.weighted
                                        + e.recency.weighted)
        assert e.importance.raw == m.record.importance


async def test_min_score_and_max_memories(filled):
    everything = await filled.recall("u1", "user", agent_id="planner", max_memories=50,
                                     update_access=False)
    assert len(everything.memories) == everything.candidates == 6
    cut = sorted(m.score for m in everything.memories)[3]
    above = await filled.recall("u1", "user", agent_id="planner", max_memories=50,
                                min_score=cut, update_access=False)
    assert len(above.memories) == 3 and all(m.score >= cut for m in above.memories)
    two = await filled.recall("u1", "user", agent_id="planner", max_memories=2,
                              update_access=False)
    assert [m.record.id for m in two.memories] == [m.record.id for m in everything.memories[:2]]


async def test_fused_relevance_from_one_hybrid_search(filled):
    result = await filled.recall("u1", "peanuts", agent_id="doctor", relevance="fused",
                                 importance_alpha=0, recency_alpha=0, update_access=False)
    best = result.memories[0]
    assert best.record.content == "The user is allergic to peanuts."
    assert best.score == 1.0 and best.explanation.relevance.note == "fused"
    assert all(m.collection in {"health", "food"} for m in result.memories)


async def test_importance_alpha_alone_orders_by_importance(filled):
    result = await filled.recall("u1", "user", agent_id="planner", relevance_alpha=0,
                                 recency_alpha=0, max_memories=6, update_access=False)
    assert [m.record.importance for m in result.memories] == [9, 7, 6, 5, 4, 3]


async def test_collection_limit_spreads_over_the_agents_collections(filled):
    hard = await filled.recall("u1", "the user's health and medicine", agent_id="planner",
                               max_memories=3, importance_alpha=0, recency_alpha=0,
                               update_access=False)
    assert [m.collection for m in hard.memories].count("health") >= 2
    spread = await filled.recall("u1", "the user's health and medicine", agent_id="planner",
                                 max_memories=3, strategy="COLLECTION_LIMIT",
                                 importance_alpha=0, recency_alpha=0, update_access=False)
    assert sorted(m.collection for m in spread.memories) == ["food", "health", "travel"]


async def test_access_is_updated_unless_told_not_to(filled):
    await filled.recall("u1", "peanuts allergy", collections=["health"], max_memories=1,
                        update_access=False)
    facts = await filled.store.list("u1", RecordQuery(kinds=frozenset({RecordKind.FACT})))
    assert all(f.access_count == 0 and f.last_accessed_at is None for f in facts)

    result = await filled.recall("u1", "peanuts allergy", collections=["health"],
                                 max_memories=1)
    (recalled,) = result.memories
    (stored,) = await filled.store.get("u1", [recalled.record.id])
    assert stored.access_count == 1 and stored.last_accessed_at is not None
    others = [f for f in await filled.store.list("u1", RecordQuery()) if f.id != stored.id]
    assert all(isinstance(f, Fact) and f.access_count == 0 for f in others)
    # recency now favours the accessed memory: recency alone ranks it first
    again = await filled.recall("u1", "user", collections=["health"], relevance_alpha=0,
                                importance_alpha=0, max_memories=1, update_access=False)
    assert again.memories[0].record.id == stored.id
    assert again.memories[0].explanation.recency.note == "last_accessed_at"


async def test_summary_strategy_with_the_extractive_reasoner(filled):
    result = await filled.recall("u1", "peanuts food allergy", agent_id="doctor",
                                 strategy="SUMMARY", reduce_batch_size=2, update_access=False)
    assert result.summary and "peanuts" in result.summary
    assert result.reasoner_calls >= 2 and len(result.memories) == result.candidates


async def test_summary_strategy_through_the_openai_reasoner(tmp_path, local_embedder):
    def answer(request):
        user = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
        assert "<memories>" in user and "Situation" in user
        count = user.count("\n- ") + user.count("<memories>\n- ")
        return {"text": f"note of {count} items", "key_topics": [], "evidence": []}

    chat = ScriptedChatModel([answer] * 10)
    reasoner = OpenAIReasoner("gpt-test", client=chat.async_client())
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder, reasoner=reasoner) as mem:
        await mem.add_memories("u1", MEMORIES)
        result = await mem.recall("u1", "user", collections=["health", "travel", "food"],
                                  strategy="SUMMARY", reduce_batch_size=4,
                                  update_access=False)
    # 6 memories in batches of 4: two map calls, then one reduce over the 2 partial notes
    assert result.reasoner_calls == 3 and len(chat.requests) == 3
    assert result.summary.startswith("note of")
    reduce_prompt = chat.requests[-1]["messages"][-1]["content"]
    assert "note of" in reduce_prompt


async def test_bad_recall_arguments(filled):
    with pytest.raises(InvalidInputError):
        await filled.recall("u1", "   ")
    with pytest.raises(InvalidInputError):
        await filled.recall("u1", "x", relevance_alpha=0, importance_alpha=0, recency_alpha=0)
    with pytest.raises(InvalidInputError):
        await filled.recall("u1", "x", min_score=2)
    with pytest.raises(ValueError):
        await filled.recall("u1", "x", strategy="NOPE")


async def test_an_access_count_never_revives_a_fact_retired_meanwhile(filled) -> None:
    from agent_memory.recall.api import _touch  # the recall path's access update

    memory = filled
    result = await memory.recall("u1", "peanut allergy", max_memories=2, update_access=False)
    read = [m.model_copy() for m in result.memories]  # the copies scoring worked on
    target = read[0].record
    winner = Fact(id="fact-newer", user_id="u1", content="The user outgrew the allergy.",
                  created_at=target.created_at + timedelta(days=30))
    (winner,) = await memory.components.write([winner])
    (stored,) = await memory.store.get("u1", [target.id])
    await memory.store.update([stored.model_copy(update={"superseded_by": winner.id})])
    await _touch(memory.components, read)  # arrives after the fact was retired
    (after,) = await memory.store.get("u1", [target.id])
    assert after.superseded_by == winner.id  # still retired
    assert after.access_count == 1  # and the access is counted
    with pytest.raises(ConflictError):  # writing back the stale copy is refused
        await memory.store.update([stored.model_copy(update={"importance": 2})])

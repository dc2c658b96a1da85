"""Session reflection, aggregation of no-insight sessions, long-term reflection, profile."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from agent_memory import AsyncMemory
from agent_memory.errors import ProfileSchemaError
from agent_memory.models import Fact, RecordKind, ReflectionStatus
from agent_memory.reasoners import OpenAIReasoner, ScriptedChatModel

from .conftest import ADVISOR_TURNS, settings_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from financial_profile import FinancialClientProfile

TRIVIAL = [("user", "Hello there."), ("assistant", "Hi! How can I help today?")]
HEDGED = [("user", "I think I might be worried about inflation eating my savings."),
          ("assistant", "That is a common worry.")]


async def run_session(memory, sid: str, turns) -> object:
    await memory.start_session("u1", sid)
    for role, text in turns:
        await memory.add_session_turn("u1", sid, role, text)
    return await memory.end_session("u1", sid)


async def insights(memory, **kw) -> list[Fact]:
    return [f for f in await memory.get_memories("u1", kinds=[RecordKind.INSIGHT], **kw)
            if isinstance(f, Fact)]


async def test_insight_session_is_processed_and_lists_its_insights(keeper_memory):
    ended = await run_session(keeper_memory, "s1", ADVISOR_TURNS)
    assert ended.reflection.reflection_flag == "insight"
    assert ended.session.reflection_status == ReflectionStatus.PROCESSED
    stored = await insights(keeper_memory)
    assert ended.session.insight_ids == [f.id for f in stored]
    by_category = {f.category: f for f in stored}
    assert {"demographics", "financial_goals", "concern", "preference"} <= set(by_category)
    turn_ids = {t.id for t in await keeper_memory.get_thread("u1", "s1")}
    for fact in stored:
        assert fact.kind == RecordKind.INSIGHT and not fact.processed
        assert fact.confidence >= 0.7 and 1 <= fact.importance <= 10
        assert fact.evidence and set(fact.evidence) <= turn_ids
        assert fact.metadata["session_ids"] == ["s1"]
    goals = [f.content for f in stored if f.category == "financial_goals"]
    assert any("retire at 60" in g for g in goals) and any("2027" in g for g in goals)


async def test_trivial_session_is_flagged_no_insight(keeper_memory):
    ended = await run_session(keeper_memory, "s1", TRIVIAL)
    assert ended.reflection.reflection_flag == "no-insight"
    assert ended.session.reflection_status == ReflectionStatus.NO_INSIGHT
    assert ended.aggregation is None  # one no-insight session is not enough
    assert await insights(keeper_memory) == []


async def test_no_insight_sessions_are_aggregated_after_min_sessions(keeper_memory):
    memory = keeper_memory
    assert memory.settings.min_sessions_for_aggregation == 3
    first = await run_session(memory, "s1", HEDGED)
    assert first.reflection.below_threshold == 1  # 0.65 < 0.7: not stored
    second = await run_session(memory, "s2", TRIVIAL + HEDGED)
    assert second.aggregation is None
    third = await run_session(memory, "s3", HEDGED)
    assert third.reflection.reflection_flag == "no-insight"
    aggregated = third.aggregation
    assert aggregated is not None and aggregated.session_ids == ["s1", "s2", "s3"]
    assert [f.category for f in aggregated.insights] == ["concern"]
    fact = aggregated.insights[0]
    assert fact.confidence >= 0.7 and fact.metadata["session_ids"] == ["s1", "s2", "s3"]
    assert len(fact.evidence) == 3  # one hedged turn per session
    sessions = {s.thread_id: s for s in await memory.list_sessions("u1")}
    for sid in ("s1", "s2", "s3"):
        assert sessions[sid].reflection_status == ReflectionStatus.PROCESSED
        assert sessions[sid].insight_ids == [fact.id]
    fourth = await run_session(memory, "s4", TRIVIAL)
    assert fourth.aggregation is None  # s1-s3 are not gathered again


async def test_confidence_threshold_with_the_llm_reasoner(tmp_path, local_embedder):
    reflection = {"reflection_flag": "insight", "insights": [
        {"category": "concern", "insight_text": "The user fears a market crash.",
         "confidence": 0.9, "importance": "high", "evidence": []},
        {"category": "preference", "insight_text": "The user may like phone calls.",
         "confidence": 0.4, "importance": "low", "evidence": []},
    ]}
    chat = ScriptedChatModel([
        {"summary": "Greeting and a worry about markets.", "topics": ["markets"],
         "entities": []},
        {"text": "The user worries about a crash.", "key_topics": ["crash"], "evidence": []},
        reflection,
    ])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder,
                                reasoner=reasoner) as memory:
        ended = await run_session(memory, "s1", [("user", "Markets scare me."),
                                                 ("assistant", "Understood.")])
        assert ended.reflection.below_threshold == 1
        stored = await insights(memory)
    assert [(f.content, f.importance) for f in stored] == [("The user fears a market crash.", 8)]
    assert chat.remaining == 0
    assert "concern" in chat.requests[2]["messages"][0]["content"]


async def test_longterm_reflection_marks_processed_and_keeps_sources(keeper_memory):
    memory = keeper_memory
    await run_session(memory, "s1", ADVISOR_TURNS)
    first = await memory.run_longterm_reflection("u1")
    ids = [f.id for f in await insights(memory)]
    assert first.changed and first.merged == ids
    assert first.profile.sources == ids
    assert all(f.processed for f in await insights(memory))
    assert "retire at 60" in first.profile.content
    again = await memory.run_longterm_reflection("u1")
    assert not again.changed and again.profile.sources == ids

    await run_session(memory, "s2", [("user", "I now want to retire at 55 instead."),
                                     ("assistant", "Let us revisit the plan.")])
    second = await memory.run_longterm_reflection("u1")
    new_ids = [f.id for f in await insights(memory, thread_id="s2")]
    assert second.merged == new_ids and second.profile.sources == ids + new_ids
    assert "retire at 55" in second.profile.content


async def test_structured_profile_filled_and_validated(keeper_memory):
    memory = keeper_memory
    await run_session(memory, "s1", ADVISOR_TURNS)
    update = await memory.run_longterm_reflection("u1", FinancialClientProfile)
    structured = FinancialClientProfile.model_validate(update.profile.structured)
    assert any("42 years old" in item for item in structured.background)
    assert any("retire at 60" in item for item in structured.goals)
    assert any("volatility" in item for item in structured.concerns)
    assert any("quarterly" in item for item in structured.preferences)


class TinyProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    goals: list[str] = Field(default_factory=list, max_length=1,
                             json_schema_extra={"insight_categories": ["financial_goals"]})


async def test_invalid_structured_profile_is_rejected_and_old_profile_kept(keeper_memory):
    memory = keeper_memory
    await run_session(memory, "s1", ADVISOR_TURNS[:4])  # one financial goal
    kept = (await memory.run_longterm_reflection("u1", TinyProfile)).profile
    assert len(kept.structured["goals"]) == 1 and "retire at 60" in kept.structured["goals"][0]
    await run_session(memory, "s2", ADVISOR_TURNS[8:10])  # a second, different goal
    pending = [f.id for f in await insights(memory) if not f.processed]
    with pytest.raises(ProfileSchemaError, match="TinyProfile") as caught:
        await memory.run_longterm_reflection("u1", TinyProfile)
    assert "goals" in str(caught.value)
    assert (await memory.get_profile("u1")) == kept
    assert [f.id for f in await insights(memory) if not f.processed] == pending
    with pytest.raises(ProfileSchemaError):
        await memory.set_structured_profile("u1", {"goals": ["a"], "age": 3}, TinyProfile)
    assert (await memory.get_profile("u1")) == kept


async def test_llm_structured_profile_that_never_validates_keeps_old(tmp_path, local_embedder):
    bad = json.dumps({"goals": ["a", "b"]})
    chat = ScriptedChatModel([bad, bad, bad])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder,
                                reasoner=reasoner) as memory:
        await memory.components.write([Fact(
            id="insight_x", kind=RecordKind.INSIGHT, user_id="u1", content="Wants a boat.",
            category="financial_goals", evidence=["t1"])])
        with pytest.raises(ProfileSchemaError, match="TinyProfile"):
            await memory.run_longterm_reflection("u1", TinyProfile)
        assert await memory.get_profile("u1") is None
        assert not (await insights(memory))[0].processed
    assert chat.remaining == 0 and "TinyProfile" in json.dumps(chat.requests[0])


async def test_longterm_reflection_profile_holds_only_the_insights_own_sentences(
        tmp_path, local_embedder):
    reflection = {"reflection_flag": "insight", "insights": [
        {"category": "concern", "insight_text": "The user fears a market crash.",
         "confidence": 0.9, "importance": "high", "evidence": []},
    ]}
    chat = ScriptedChatModel([
        {"summary": "A worry about markets.", "topics": ["markets"], "entities": []},
        {"text": "The user worries about a crash.", "key_topics": ["crash"], "evidence": []},
        reflection,
        # a weak model names a field the schema does not have and a fact that does not exist:
        # the answer is refused and repaired
        {"fields": [{"field": "wealth", "facts": [1]}, {"field": "finances", "facts": [2]}]},
        {"fields": [{"field": "finances", "facts": [1]}]},
    ])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder,
                                reasoner=reasoner) as memory:
        await run_session(memory, "s1", [("user", "Markets scare me."),
                                         ("assistant", "Understood.")])
        update = await memory.run_longterm_reflection("u1")
        (insight,) = await insights(memory)
    assert chat.remaining == 0
    repair = chat.requests[4]["messages"][-1]["content"]
    assert "unknown field 'wealth'" in repair and "fact number 2" in repair
    assert update.profile.content == "Finances: The user fears a market crash."
    assert [(f.name, f.facts) for f in update.profile.fields] == [("finances", [insight.id])]
    assert update.merged == [insight.id] and insight.processed

"""Contextual fact retrieval: the three tools, the offline planner, the LLM tool loop."""

from __future__ import annotations

import json

import pytest

from agent_memory import AsyncMemory
from agent_memory.errors import InvalidInputError
from agent_memory.reasoners import OpenAIReasoner, ScriptedChatModel
from agent_memory.sessions.cfr import CFRTools

from .conftest import ADVISOR_TURNS, settings_for

OTHER_USER = [("user", "I keep bees and sell honey at the farmers market."),
              ("assistant", "Lovely hobby.")]


async def seed(memory) -> None:
    await memory.start_session("u1", "s1")
    for role, text in ADVISOR_TURNS:
        await memory.add_session_turn("u1", "s1", role, text)
    await memory.end_session("u1", "s1")
    await memory.run_longterm_reflection("u1")
    await memory.start_session("u2", "x1")
    for role, text in OTHER_USER:
        await memory.add_session_turn("u2", "x1", role, text)
    await memory.end_session("u2", "x1")


async def test_tools_search_their_kinds_and_stay_in_the_user(keeper_memory):
    await seed(keeper_memory)
    tools = CFRTools(keeper_memory.components, "u1")
    found = await tools.search_interactions("401k retirement savings", top_k=2)
    assert found and all(i.kind == "interaction" and i.session_id == "s1" for i in found)
    assert "401k" in found[0].text
    insights = await tools.search_insights("market volatility worries", insight_type="session")
    assert insights and {i.kind for i in insights} == {"insight"}
    concern = await tools.search_insights("volatility", category="concern")
    assert concern and {i.category for i in concern} == {"concern"}
    profile = await tools.search_insights("retire", insight_type="long_term")
    assert [i.id for i in profile] == ["user_summary_u1"]
    summaries = await tools.search_session_summaries("retirement")
    assert [i.id for i in summaries] == ["summary_u1_s1"]
    assert not await tools.search_interactions("bees honey")  # only u2 talked about bees
    with pytest.raises(InvalidInputError, match="insight_type"):
        await tools.run("search_insights", {"query": "x", "insight_type": "weekly"})
    with pytest.raises(InvalidInputError, match="unknown tool"):
        await tools.run("drop_tables", {"query": "x"})


async def test_offline_planner_returns_facts_with_provenance(keeper_memory):
    await seed(keeper_memory)
    result = await keeper_memory.retrieve_facts_detailed("u1", "What did we discuss about my 401k?")
    assert [c.name for c in result.calls] == [
        "search_insights", "search_insights", "search_interactions",
        "search_session_summaries"]
    assert result.calls[0].arguments["category"] == "current_situation"
    assert any("401k" in i.text for i in result.items)
    text = await keeper_memory.retrieve_facts("u1", "What did we discuss about my 401k?")
    first_line = text.splitlines()[1]
    assert first_line.startswith("- (profile)") and "[user_summary_u1, " in first_line
    assert "interaction_s1_0" in text and "\nSources:\n" in text
    assert "- interaction_s1_0: interaction, session s1, " in text
    assert "bees" not in text


async def test_llm_tool_loop_runs_the_tools_it_asks_for(tmp_path, local_embedder):
    def answer(request: dict) -> str:
        tool_messages = [m for m in request["messages"] if m["role"] == "tool"]
        results = [r for m in tool_messages for r in json.loads(m["content"])
                   if isinstance(m["content"], str) and m["content"].startswith("[")]
        ids = [r["id"] for r in results]
        assert "interaction_s1_0" in ids
        return "- The user has about $150k in a 401k [interaction_s1_0, 2025-01-01]"

    chat = ScriptedChatModel([
        {"tool_calls": [{"name": "search_interactions",
                         "arguments": {"query": "401k balance", "top_k": 3}},
                        {"name": "search_insights",
                         "arguments": {"query": "401k", "insight_type": "weekly"}}]},
        {"tool_calls": [{"name": "search_session_summaries",
                         "arguments": {"query": "retirement"}}]},
        answer,
    ])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder) as mem:
        await seed(mem)
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder,
                                reasoner=reasoner) as mem:
        result = await mem.retrieve_facts_detailed("u1", "What is in my 401k?")
        text = await _render(result)
    assert result.rounds == 3 and chat.remaining == 0
    assert [c.name for c in result.calls] == [
        "search_interactions", "search_insights", "search_session_summaries"]
    assert result.calls[1].error and "insight_type" in result.calls[1].error
    first = chat.requests[0]
    assert {t["function"]["name"] for t in first["tools"]} == {
        "search_interactions", "search_insights", "search_session_summaries"}
    assert first["tool_choice"] == "auto"
    assert "What is in my 401k?" in first["messages"][1]["content"]
    assert "\n\nSources:\n- interaction_s1_0: interaction, session s1, " in text


async def _render(result):
    from agent_memory.sessions.cfr import render

    return render(result)


async def test_llm_loop_is_bounded(tmp_path, local_embedder):
    call = {"tool_calls": [{"name": "search_insights", "arguments": {"query": "goals"}}]}
    chat = ScriptedChatModel([call, call, "- Nothing relevant was found."])
    reasoner = OpenAIReasoner("test-model", client=chat.async_client())
    async with AsyncMemory.open(settings_for(tmp_path / "m.db"), embedder=local_embedder,
                                reasoner=reasoner) as mem:
        result = await mem.retrieve_facts_detailed("u1", "goals?", max_rounds=2)
    assert result.rounds == 3 and len(result.calls) == 2
    assert chat.requests[-1]["tool_choice"] == "none"
    assert result.answer == "- Nothing relevant was found."

"""The Agent Framework provider with a real Agent and the offline chat client."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agent_framework")

from agent_framework import Agent

from agent_memory import AsyncMemory, Settings
from agent_memory.errors import InvalidInputError
from agent_memory.integrations.agent_framework import AgentMemoryProvider
from agent_memory.integrations.local_chat import LocalChatClient
from agent_memory.models import RecordKind, SessionStatus


@pytest.fixture
async def memory(tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "m.db"), k_turn_buffer=4, n_active_turns=2)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        yield mem


def agent_with(memory, **kw):
    client = LocalChatClient()
    provider = AgentMemoryProvider(memory, "u1", **kw)
    agent = Agent(client, instructions="You are a financial advisor.",
                  context_providers=[provider])
    return agent, client, provider


async def test_context_injected_turns_stored_and_tool_callable(memory):
    agent, client, _provider = agent_with(memory)
    session = agent.create_session()
    await agent.run("I want to retire at 60 and I have $150k in my 401k.", session=session)
    sid = session.session_id
    turns = await memory.get_thread("u1", sid)
    assert [(t.role.value, t.content) for t in turns] == [
        ("user", "I want to retire at 60 and I have $150k in my 401k."),
        ("assistant", "Noted.")]

    await agent.run("Also I prefer quarterly reviews.", session=session)
    instructions = client.requests[-1][1]["instructions"]
    assert instructions.startswith("You are a financial advisor.")
    assert "<session_initialization>" in instructions
    assert "user: I want to retire at 60 and I have $150k in my 401k." in instructions
    assert "retrieve_user_facts" in [t.name for t in client.requests[-1][1]["tools"]]

    response = await agent.run("What did we discuss about my 401k?", session=session)
    assert response.text.startswith("From memory: Facts from memory relevant to")
    assert "401k" in response.text and "Sources:" in response.text
    stored = await memory.get_thread("u1", sid)
    assert stored[-2].content == "What did we discuss about my 401k?"
    assert stored[-1].content == response.text
    assert len(stored) == 6  # the tool call itself is not a turn


async def test_automatic_mode_ends_the_previous_session_when_a_new_one_starts(memory):
    agent, _client, provider = agent_with(memory)
    first = agent.create_session()
    await agent.run("I am worried about market volatility.", session=first)
    second = agent.create_session()
    await agent.run("Hello again.", session=second)
    record = await memory.get_summary("u1", first.session_id)
    assert record.status == SessionStatus.COMPLETED
    assert [e.session.thread_id for e in provider.ended] == [first.session_id]
    insights = await memory.get_memories("u1", kinds=[RecordKind.INSIGHT])
    assert [i.category for i in insights] == ["concern"]
    async with provider:
        pass
    assert (await memory.get_summary("u1", second.session_id)).status == SessionStatus.COMPLETED


async def test_manual_mode_shares_one_session_across_agent_sessions(memory):
    agent, client, provider = agent_with(memory, auto_sessions=False)
    with pytest.raises(InvalidInputError, match="start_session"):
        await agent.run("Hi", session=agent.create_session())
    sid = await provider.start_session("advice-1")
    await agent.run("I have two kids.", session=agent.create_session())
    await agent.run("I prefer email.", session=agent.create_session())
    turns = await memory.get_thread("u1", sid)
    assert [t.content for t in turns if t.role.value == "user"] == [
        "I have two kids.", "I prefer email."]
    ended = await provider.end_session()
    assert ended is not None and ended.session.status == SessionStatus.COMPLETED
    await provider.start_session("advice-2")
    await agent.run("Hello.", session=agent.create_session())
    instructions = client.requests[-1][1]["instructions"]
    assert "### Recent sessions\n- " in instructions  # advice-1's summary is now init context


async def test_closing_the_provider_ends_only_the_sessions_it_used(memory):
    agent, _client, provider = agent_with(memory)
    session = agent.create_session()
    await agent.run("I have two kids.", session=session)
    other = await memory.start_session("u1", "another-client")  # not the provider's
    async with provider:
        pass
    assert [e.session.thread_id for e in provider.ended] == [session.session_id]
    assert await memory.open_session_ids("u1") == [other]
    await memory.add_session_turn("u1", other, "user", "Still here.")


async def test_automatic_mode_going_back_to_an_ended_session_starts_a_new_one(memory):
    agent, _client, provider = agent_with(memory)
    first = agent.create_session()
    await agent.run("I want to retire at 60.", session=first)
    second = agent.create_session()
    await agent.run("Hello again.", session=second)  # ends the first memory session
    await agent.run("Back to retirement: I also want a boat.", session=first)
    resumed = first.state[provider.source_id]["memory_session_id"]
    assert resumed != first.session_id
    assert (await memory.get_summary("u1", first.session_id)).status == SessionStatus.COMPLETED
    assert [t.content for t in await memory.get_thread("u1", first.session_id)] == [
        "I want to retire at 60.", "Noted."]
    assert [t.content for t in await memory.get_thread("u1", resumed)] == [
        "Back to retirement: I also want a boat.", "Noted."]
    assert [e.session.thread_id for e in provider.ended] == [
        first.session_id, second.session_id]
    await agent.run("And a house.", session=first)  # the new memory session goes on
    assert len(await memory.get_thread("u1", resumed)) == 4
    await provider.end_session(first)
    await agent.run("One more thing.", session=first)  # ended explicitly: a new one again
    assert first.state[provider.source_id]["memory_session_id"] not in (
        resumed, first.session_id)
    await provider.aclose()
    assert await memory.open_session_ids("u1") == []


async def test_a_session_ended_by_another_client_is_replaced_on_the_next_run(memory):
    agent, _client, provider = agent_with(memory)
    session = agent.create_session()
    await agent.run("I like tea.", session=session)
    await memory.end_session("u1", session.session_id)  # another client ends it
    await agent.run("And coffee in the morning.", session=session)
    now = session.state[provider.source_id]["memory_session_id"]
    assert now != session.session_id and now in await memory.open_session_ids("u1")
    assert [t.content for t in await memory.get_thread("u1", now)] == [
        "And coffee in the morning.", "Noted."]


async def test_providers_closing_at_once_end_each_session_once_without_error(memory):
    first_agent, _c1, first = agent_with(memory)
    second_agent, _c2, second = agent_with(memory)
    session = first_agent.create_session()
    await first_agent.run("I like tea.", session=session)
    await second_agent.run("I like jam too.", session=session)
    await second_agent.run("A second topic.", session=second_agent.create_session())
    results = await asyncio.gather(first.aclose(), second.aclose(), return_exceptions=True)
    assert results == [None, None]
    assert await memory.open_session_ids("u1") == []
    # the other provider ended the shared session: a later run there starts a new one
    await second_agent.run("Back again.", session=session)
    assert session.state[second.source_id]["memory_session_id"] != session.session_id

"""AgentMemorySession is an Agents SDK SessionABC on a real SQLite file; Runner.run drives it
offline with the scripted model; memory_tool searches the user's memory only."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner
from agents.memory import SessionABC, SessionSettings

from agent_memory import Memory, Settings
from agent_memory.errors import InvalidInputError, InvalidNumberError
from agent_memory.integrations.openai_agents import AgentMemorySession, item_text, memory_tool
from agent_memory.integrations.scripted_agents import ScriptedModel, ScriptedProvider, ToolCall

ITEMS = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "I'm moving to Lisbon in March. ¿Vale? 🚚"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text",
                                                       "text": "User relocates."}]},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "lookup_city",
     "arguments": '{"city": "Lisbon"}', "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1",
     "output": {"country": "Portugal", "population": 545923, "tags": [None, True, 1.5]}},
    {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Lisbon is lovely in spring.",
                  "annotations": []}]},
]


@pytest.fixture
def memory(tmp_path, local_embedder):
    with Memory(Settings.load(store=str(tmp_path / "s.db")), embedder=local_embedder) as mem:
        yield mem


async def test_items_round_trip_in_order_as_turns(memory):
    session = AgentMemorySession("chat-1", memory=memory, user_id="alice")
    assert isinstance(session, SessionABC)
    await session.add_items(ITEMS[:2])
    await session.add_items(ITEMS[2:])
    assert await session.get_items() == ITEMS
    assert await session.get_items(limit=2) == ITEMS[-2:]
    assert await session.get_items(limit=0) == []
    assert await session.get_items(limit=5000) == ITEMS
    turns = memory.get_thread("alice", "chat-1")
    assert [t.role.value for t in turns] == ["system", "user", "assistant", "assistant", "tool",
                                             "assistant"]
    assert [t.content for t in turns][3:] == [
        'lookup_city({"city": "Lisbon"})',
        '{"country": "Portugal", "population": 545923, "tags": [null, true, 1.5]}',
        "Lisbon is lovely in spring."]
    assert item_text({"type": "function_call_output", "output": [
        {"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}) == "a\nb"
    assert item_text({"type": "mystery"}) == '{"type": "mystery"}'
    assert turns[2].content == "User relocates."
    hit = memory.search("alice", "Which city is the user relocating to?", k=1)[0]
    assert hit.record.thread_id == "chat-1" and "Lisbon" in hit.record.content
    limited = AgentMemorySession("chat-1", memory=memory, user_id="alice",
                                 session_settings=SessionSettings(limit=1))
    assert await limited.get_items() == ITEMS[-1:]


async def test_pop_and_clear(memory):
    session = AgentMemorySession("chat-1", memory=memory, user_id="alice")
    other = AgentMemorySession("chat-2", memory=memory, user_id="alice")
    bob = AgentMemorySession("chat-1", memory=memory, user_id="bob")
    await session.add_items(ITEMS)
    await other.add_items(ITEMS[:2])
    await bob.add_items(ITEMS[:1])
    assert await session.pop_item() == ITEMS[-1]
    assert await session.get_items() == ITEMS[:-1]
    popped = await asyncio.gather(session.pop_item(), session.pop_item())
    assert sorted(map(str, popped)) == sorted(map(str, ITEMS[-3:-1]))  # never the same twice
    await session.clear_session()
    assert await session.get_items() == []
    assert await session.pop_item() is None
    assert await other.get_items() == ITEMS[:2] and await bob.get_items() == ITEMS[:1]
    await session.add_items([ITEMS[1]])  # a cleared session is usable again
    assert await session.get_items() == [ITEMS[1]]


async def test_turns_from_other_paths_and_bad_input(memory):
    memory.add_turn("alice", "chat-9", "user", "Hello there.")
    session = AgentMemorySession("chat-9", memory=memory, user_id="alice")
    assert await session.get_items() == [{"role": "user", "content": "Hello there."}]
    for bad in (["not a dict"], [ITEMS[1], {"role": "user", "content": object()}]):
        with pytest.raises(InvalidInputError):
            await session.add_items(bad)
    assert len(await session.get_items()) == 1  # nothing of a bad batch is written
    with pytest.raises(InvalidNumberError):
        await session.get_items(limit=-1)
    with pytest.raises(InvalidInputError):
        AgentMemorySession(" ", memory=memory, user_id="alice")
    with pytest.raises(InvalidInputError):
        memory_tool(memory, "")


async def test_runner_second_run_sees_the_first_and_tool_recalls(memory):
    memory.add_turn("bob", "b1", "user", "My beagle is called Rex.")
    model = ScriptedModel(["Congratulations on Pixel!",
                           ToolCall("search_memory", {"query": "the user's dog"}),
                           "Your beagle is called Pixel."])
    agent = Agent(name="Assistant", instructions="Be brief.",
                  tools=[memory_tool(memory, "alice", k=3)])
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    session = AgentMemorySession("chat-1", memory=memory, user_id="alice")
    first = await Runner.run(agent, "I adopted a beagle called Pixel.", session=session,
                             run_config=config)
    assert first.final_output == "Congratulations on Pixel!"
    second = await Runner.run(agent, "What is my dog called?", session=session,
                              run_config=config)
    assert second.final_output == "Your beagle is called Pixel."
    seen = model.inputs[1]  # the second run's first model call
    assert seen[0] == {"role": "user", "content": "I adopted a beagle called Pixel."}
    assert seen[1]["content"][0]["text"] == "Congratulations on Pixel!"
    assert seen[-1] == {"role": "user", "content": "What is my dog called?"}
    tool_output = next(i for i in model.inputs[2] if i.get("type") == "function_call_output")
    assert "Pixel" in tool_output["output"] and "Rex" not in tool_output["output"]
    items = await session.get_items()
    assert [i.get("type") for i in items][-3:] == ["function_call", "function_call_output",
                                                   "message"]
    assert len(items) == 6


async def test_session_and_tool_over_the_service(tmp_path, local_embedder):
    pytest.importorskip("fastapi")
    import httpx

    from agent_memory import AsyncMemory
    from agent_memory.remote import RemoteMemory
    from agent_memory.service import ServiceSettings, create_app

    settings = Settings.load(store=str(tmp_path / "svc.db"))
    served = AsyncMemory(settings, embedder=local_embedder)
    app = create_app(settings, service=ServiceSettings.load(no_auth=True), memory=served)
    async with app.router.lifespan_context(app), RemoteMemory(
            "http://service", transport=httpx.ASGITransport(app=app)) as remote:
        session = AgentMemorySession("chat-1", memory=remote, user_id="alice")
        await session.add_items(ITEMS)
        assert await session.get_items() == ITEMS
        assert await session.pop_item() == ITEMS[-1]
        model = ScriptedModel([ToolCall("search_memory", {"query": "relocation city"}), "ok"])
        agent = Agent(name="A", model=model, tools=[memory_tool(remote, "alice", k=1)])
        await Runner.run(agent, "Where am I moving?", run_config=RunConfig(
            tracing_disabled=True))
        output = next(i for i in model.inputs[1] if i.get("type") == "function_call_output")
        assert "Lisbon" in output["output"]
        await session.clear_session()
        assert await session.get_items() == []
    await served.close()

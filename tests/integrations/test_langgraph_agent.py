"""A LangGraph ReAct agent (create_react_agent) writes and then recalls a memory offline:
the scripted chat model decides the tool calls, the tools use AgentMemoryStore through
LangGraph's store injection, the records are real (SQLite file, local embedder)."""

from __future__ import annotations

import uuid
import warnings
from typing import Annotated

import pytest

pytest.importorskip("langgraph.prebuilt")

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.prebuilt import InjectedStore, create_react_agent
from langgraph.store.base import BaseStore

from agent_memory import Memory, Settings
from agent_memory.integrations.langgraph import AgentMemoryStore
from agent_memory.integrations.scripted_langchain import ScriptedChatModel, tool_call


@tool
def save_memory(content: str, config: RunnableConfig,
                store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save a memory about the user."""
    store.put((config["configurable"]["user_id"], "memories"), uuid.uuid4().hex,
              {"text": content})
    return "saved"


@tool
def recall_memory(query: str, config: RunnableConfig,
                  store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Search memories about the user."""
    items = store.search((config["configurable"]["user_id"], "memories"), query=query, limit=1)
    return items[0].value["text"] if items else "nothing"


@tool("save_memory")
async def asave_memory(content: str, config: RunnableConfig,
                       store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save a memory about the user."""
    await store.aput((config["configurable"]["user_id"], "memories"), uuid.uuid4().hex,
                     {"text": content})
    return "saved"


@tool("recall_memory")
async def arecall_memory(query: str, config: RunnableConfig,
                         store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Search memories about the user."""
    items = await store.asearch((config["configurable"]["user_id"], "memories"), query=query,
                                limit=1)
    return items[0].value["text"] if items else "nothing"


def script(fact: str, query: str) -> ScriptedChatModel:
    return ScriptedChatModel(responses=[
        tool_call("save_memory", {"content": fact}), AIMessage(content="Noted."),
        tool_call("recall_memory", {"query": query}), AIMessage(content="Here it is.")])


def agent_for(model, memory, tools=(save_memory, recall_memory)):
    with warnings.catch_warnings():  # create_react_agent moved to langchain in LangGraph 1.x
        warnings.simplefilter("ignore")
        return create_react_agent(model, list(tools), store=AgentMemoryStore(memory))


@pytest.fixture
def memory(tmp_path, local_embedder):
    with Memory(Settings.load(store=str(tmp_path / "agent.db")), embedder=local_embedder) as mem:
        yield mem


def test_graph_writes_then_recalls(memory):
    alice = {"configurable": {"user_id": "alice"}}
    bob = {"configurable": {"user_id": "bob"}}
    agent_for(script("Bob's favourite food is sushi.", "x"), memory).invoke(
        {"messages": [("user", "I love sushi.")]}, bob)
    agent = agent_for(script("The user's beagle is called Pixel.", "what is her dog named?"),
                      memory)
    agent.invoke({"messages": [("user", "My beagle is called Pixel.")]}, alice)
    stored = memory.get_memories("alice", kinds=["fact"])
    assert [r.content for r in stored] == ["The user's beagle is called Pixel."]
    assert stored[0].collection == "memories"
    out = agent.invoke({"messages": [("user", "What's my dog called?")]}, alice)
    recalled = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert recalled[-1].content == "The user's beagle is called Pixel."


async def test_async_graph_writes_then_recalls(memory):
    alice = {"configurable": {"user_id": "alice"}}
    agent = agent_for(script("Alice is allergic to peanuts.", "food allergy"), memory,
                      tools=(asave_memory, arecall_memory))
    await agent.ainvoke({"messages": [("user", "I'm allergic to peanuts.")]}, alice)
    out = await agent.ainvoke({"messages": [("user", "Any allergies?")]}, alice)
    assert [m.content for m in out["messages"] if isinstance(m, ToolMessage)][-1] == (
        "Alice is allergic to peanuts.")
    hits = memory.search("alice", "nut allergy", k=1)
    assert hits[0].record.content == "Alice is allergic to peanuts."

"""The MCP server through the official MCP client: over stdio (``agent-memory mcp`` spawned as
a process) and over streamable HTTP (uvicorn on a loopback port, standalone and mounted in a
host app). Every tool is called and its effect checked in the store; users A and B share one
store and B never reaches A's records, whatever the tool arguments say."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from starlette.applications import Starlette
from starlette.routing import Mount

from agent_memory import AsyncMemory, Settings
from agent_memory.models import RecordKind
from agent_memory.service.mcp import mcp_http_app, mcp_lifespan, trusted_header

from .conftest import Served, serve

SRC = Path(__file__).resolve().parents[2] / "src"
TOOLS = {"add_memories", "add_turns", "search", "retrieve_facts", "get_profile", "forget"}
KEYS = {"key-ana": "ana", "key-bo": "bo"}

ANA_TURNS = [
    {"role": "user", "content": "I moved to Lisbon last month for a new job at a bakery.",
     "speaker": "Ana"},
    {"role": "assistant", "content": "Congratulations! How do you like Lisbon so far?"},
    {"role": "user", "content": "I love it. My daughter Maya started cello lessons there.",
     "speaker": "Ana"},
]


# -- transports --------------------------------------------------------------------------


def stdio_client(store: Path, user: str) -> Client:
    """A client of ``agent-memory mcp --user <user>`` spawned as a process on ``store``."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "AGENT_MEMORY_STORE": str(store)}
    env.pop("AGENT_MEMORY_USER", None)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from agent_memory.cli.app import main; main()", "mcp", "--user", user],
        env=env)
    return Client(params, read_timeout_seconds=120)


def http_client(url: str, key: str | None) -> Client:
    """A streamable HTTP client sending ``key`` as a bearer token."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = _streamable(url, httpx2.AsyncClient(headers=headers, timeout=120))
    return Client(transport, read_timeout_seconds=120)


def _streamable(url: str, http: httpx2.AsyncClient):
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=http)


def resolve_key(request) -> str | None:
    """Bearer key -> user (what the REST service does with its key file)."""
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return KEYS.get(key) if scheme.lower() == "bearer" else None


@pytest.fixture(params=["standalone", "mounted"])
def http_server(request, tmp_path, local_embedder) -> Iterator[tuple[Served, Path]]:
    """The MCP HTTP app on a loopback port: served directly (endpoint ``/mcp``), or mounted
    at ``/mcp`` in a host app that runs its lifespan (endpoint ``/mcp/``)."""
    store = tmp_path / "memory.db"
    memory = AsyncMemory(Settings.load(store=str(store)), embedder=local_embedder)
    if request.param == "standalone":
        app = mcp_http_app(memory, resolve_key, path="/mcp")
        suffix = "/mcp"
    else:
        inner = mcp_http_app(memory, resolve_key)

        @asynccontextmanager
        async def lifespan(_app) -> AsyncIterator[None]:
            async with mcp_lifespan(inner):
                yield

        app = Starlette(routes=[Mount("/mcp", app=inner)], lifespan=lifespan)
        suffix = "/mcp/"
    running = serve(app, None)
    running.url += suffix
    try:
        yield running, store
    finally:
        running.stop()
        asyncio.run(memory.close())


@asynccontextmanager
async def store_view(store: Path, embedder) -> AsyncIterator[AsyncMemory]:
    """The same store seen through the Python API (to check effects and run the pipeline)."""
    async with AsyncMemory.open(Settings.load(store=str(store)), embedder=embedder) as memory:
        yield memory


# -- the scenario, run over every transport ----------------------------------------------


COMPACT_HIT = {"id", "kind", "date", "text", "score", "speaker"}
"""The fields of a search hit without ``detail``."""


async def call(client: Client, tool: str, args: dict) -> dict:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def refused(client: Client, tool: str, args: dict) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return result.content[0].text


async def exercise(ana: Client, bo: Client, store: Path, embedder) -> None:
    """List the tools, call each as ana, check its effect in the store, and show that bo
    reaches none of ana's records whatever the arguments say."""
    listed = (await ana.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert "user_id" not in tool.input_schema.get("properties", {})
        assert tool.input_schema.get("additionalProperties") is False
        assert tool.output_schema is not None
    assert {t.name for t in listed if t.annotations.destructive_hint} == {"forget"}

    turns = await call(ana, "add_turns", {"thread_id": "t1", "turns": ANA_TURNS})
    assert [t["seq"] for t in turns["turns"]] == [0, 1, 2]
    added = await call(ana, "add_memories", {"memories": [
        {"content": "Ana is allergic to peanuts.", "category": "health", "importance": 9},
        {"content": "   "}]})
    assert [a["index"] for a in added["added"]] == [0] and added["failed"][0]["index"] == 1
    fact_id = added["added"][0]["id"]
    async with store_view(store, embedder) as memory:
        assert [t.content for t in await memory.get_thread("ana", "t1")] == \
            [t["content"] for t in ANA_TURNS]
        assert [f.id for f in await memory.get_memories("ana", kinds=["fact"])] == [fact_id]
        assert await memory.get_memories("bo") == []
        await memory.process_thread("ana", "t1")
        await memory.generate_user_summary("ana")

    hits = (await call(ana, "search", {"query": "peanut allergy", "k": 3}))["hits"]
    assert fact_id in [h["id"] for h in hits]
    # compact by default: what an agent needs, nothing null
    assert all(set(h) <= COMPACT_HIT and {"id", "kind", "date", "text", "score"} <= set(h)
               for h in hits)
    compact = (await call(ana, "search", {"query": "peanut allergy", "kinds": ["fact"]}))["hits"]
    hits = (await call(ana, "search", {"query": "peanut allergy", "kinds": ["fact"],
                                       "detail": True}))["hits"]
    assert hits[0]["id"] == fact_id and hits[0]["category"] == "health"
    assert set(hits[0]["signals"]) == {"vector", "text"}
    assert [(h["id"], h["text"], h["score"]) for h in hits] == \
        [(h["id"], h["text"], h["score"]) for h in compact]
    text_hits = (await call(ana, "search", {"query": "Lisbon", "mode": "text",
                                            "kinds": ["turn"], "thread_id": "t1"}))["hits"]
    assert text_hits and all(h["kind"] == "turn" for h in text_hits)
    assert "Lisbon" in text_hits[0]["text"]
    facts = await call(ana, "retrieve_facts", {"query": "Where does Ana live?"})
    assert "Lisbon" in facts["answer"] and facts["items"]
    profile = await call(ana, "get_profile", {})
    assert profile["found"] and profile["sources"] and profile["fields"]
    assert profile["covers_from"] and profile["subject"]
    named = await call(ana, "get_profile", {"subject": profile["subject"]})
    assert named["content"] == profile["content"]
    assert not (await call(ana, "get_profile", {"subject": "Nobody"}))["found"]
    assert "subject" in await refused(ana, "get_profile", {"subject": ""})

    # bo: the same store, none of ana's records, whatever the arguments say
    for args in ({"query": "peanut allergy"}, {"query": "Lisbon", "mode": "text"}):
        assert (await call(bo, "search", args))["hits"] == []
    assert "user_id" in await refused(bo, "search", {"query": "Lisbon", "user_id": "ana"})
    assert "extra" in (await refused(bo, "get_profile", {"user_id": "ana"})).lower()
    assert "user_id" in await refused(bo, "add_turns", {"thread_id": "t1", "user_id": "ana",
                                                        "turns": ANA_TURNS[:1]})
    assert not (await call(bo, "get_profile", {}))["found"]
    assert "Lisbon" not in (await call(bo, "retrieve_facts", {"query": "Where does Ana live?"}))[
        "answer"]
    gone = await call(bo, "forget", {"ids": [fact_id, turns["turns"][0]["id"]]})
    assert gone["records"] == {} and len(gone["missing"]) == 2
    bo_wipe = await call(bo, "forget", {"everything": True, "confirm": True})
    assert bo_wipe["records"] == {}

    # typed errors become tool errors with the class and the message
    assert "mode" in await refused(ana, "search", {"query": "x", "mode": "?"})  # schema
    text = await refused(ana, "add_turns", {"thread_id": " t1", "turns": ANA_TURNS[:1]})
    assert "InvalidScopeError" in text
    text = await refused(ana, "forget", {"everything": True})
    assert "InvalidInputError" in text and "confirm" in text

    # forget: by id, then everything (with confirm)
    gone = await call(ana, "forget", {"ids": [fact_id, "fact_unknown"]})
    assert gone["records"] == {"fact": 1} and gone["missing"] == ["fact_unknown"]
    async with store_view(store, embedder) as memory:
        assert await memory.store.get("ana", [fact_id]) == []
        assert await memory.get_memories("ana", kinds=[RecordKind.TURN])
    wiped = await call(ana, "forget", {"everything": True, "confirm": True})
    assert wiped["records"]["turn"] == 3
    async with store_view(store, embedder) as memory:
        assert await memory.get_memories("ana", include_superseded=True) == []


async def test_stdio_tools_effects_and_isolation(tmp_path, local_embedder) -> None:
    store = tmp_path / "memory.db"
    async with stdio_client(store, "ana") as ana, stdio_client(store, "bo") as bo:
        await exercise(ana, bo, store, local_embedder)


async def test_http_tools_effects_and_isolation(http_server, local_embedder) -> None:
    server, store = http_server
    async with http_client(server.url, "key-ana") as ana, \
            http_client(server.url, "key-bo") as bo:
        await exercise(ana, bo, store, local_embedder)


async def test_http_refuses_requests_without_a_valid_key(http_server) -> None:
    server, _ = http_server
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(follow_redirects=True) as raw:
        for auth in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic key-ana"}):
            response = await raw.post(server.url, json=body, headers={**headers, **auth})
            assert response.status_code == 401
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["status"] == 401
    with pytest.raises(ExceptionGroup) as caught:  # the SDK client's task group re-raises
        async with http_client(server.url, None) as anonymous:
            await anonymous.list_tools()
    assert caught.group_contains(MCPError, depth=None)


async def test_trusted_header_resolver_takes_the_user_from_the_gateway_header(
        tmp_path, local_embedder) -> None:
    store = tmp_path / "memory.db"
    memory = AsyncMemory(Settings.load(store=str(store)), embedder=local_embedder)
    app = mcp_http_app(memory, trusted_header("X-User"), path="/mcp")
    running = serve(app, None)
    url = f"{running.url}/mcp"
    try:
        async with Client(_streamable(url, httpx2.AsyncClient(headers={"X-User": "cy"})),
                          read_timeout_seconds=120) as cy:
            await call(cy, "add_memories", {"memories": [{"content": "Cy keeps bees."}]})
        async with store_view(store, local_embedder) as view:
            assert [f.content for f in await view.get_memories("cy")] == ["Cy keeps bees."]
        async with httpx.AsyncClient() as raw:
            for header in ({"X-User": b"cy\x85"}, {}):  # a control character; no header
                response = await raw.post(
                    url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    headers={**header, "Accept": "application/json, text/event-stream"})
                assert response.status_code == 401  # refused, never stripped into "cy"
    finally:
        running.stop()
        await memory.close()


def test_cli_mcp_needs_a_clean_user(tmp_path) -> None:
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(SRC), "AGENT_MEMORY_STORE": str(tmp_path / "m.db")}
    env.pop("AGENT_MEMORY_USER", None)
    command = [sys.executable, "-c", "from agent_memory.cli.app import main; main()", "mcp"]
    for args, error in (([], "ConfigError"), (["--user", "ana "], "InvalidScopeError")):
        done = subprocess.run([*command, *args], env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 2 and error in done.stderr, done.stderr
    assert "--user" in subprocess.run(command, env=env, capture_output=True, text=True,
                                      timeout=120, check=False).stderr

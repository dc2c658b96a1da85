"""``/mcp`` inside the REST service: the official MCP client over streamable HTTP with the
service's API keys; the user comes from the key (or a header inside the key's scope), never
from tool arguments."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def mcp_client(served, key: str, user: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {served.secrets[key]}"}
    if user is not None:
        headers["X-Agent-Memory-User"] = user
    http = httpx2.AsyncClient(headers=headers, timeout=120)
    return Client(streamable_http_client(f"{served.url}/mcp/", http_client=http))


async def add_and_search(client: Client, text: str, query: str) -> list[str]:
    added = await client.call_tool("add_memories", {"memories": [{"content": text}]})
    assert not added.is_error, added.content[0].text
    found = await client.call_tool("search", {"query": query, "k": 5})
    assert not found.is_error, found.content[0].text
    return [hit["text"] for hit in found.structured_content["hits"]]


async def test_a_single_user_key_acts_for_its_user_only(served) -> None:
    async with mcp_client(served, "alice") as alice:
        names = {tool.name for tool in (await alice.list_tools()).tools}
        assert {"add_memories", "search", "retrieve_facts", "get_profile", "forget"} <= names
        hits = await add_and_search(alice, "Alice keeps bees on her roof.", "bees roof")
        assert "Alice keeps bees on her roof." in hits
    with served.client("bob") as bob:  # the REST API sees what MCP wrote, for alice only
        listed = bob.get("/v1/users/alice/memories")
        assert listed.status_code == 404
    with served.client("alice") as rest:
        body = rest.get("/v1/users/alice/memories", params={"kinds": "fact"}).json()
        assert any("bees" in item["content"] for item in body["records"])


async def test_bob_never_reaches_alice_through_mcp(served) -> None:
    async with mcp_client(served, "alice") as alice:
        await add_and_search(alice, "Alice's locker code is 7719.", "locker code")
    async with mcp_client(served, "bob") as bob:
        found = await bob.call_tool("search", {"query": "locker code", "k": 10})
        assert not found.is_error
        assert all("7719" not in hit["text"] for hit in found.structured_content["hits"])
        smuggled = await bob.call_tool("search", {"query": "locker", "user_id": "alice"})
        assert smuggled.is_error


@pytest.mark.parametrize(("key", "user"), [
    ("bob", "alice"),      # a header outside the key's scope
    ("team", None),        # a prefix key must name its user
    ("team", "alice"),     # ... inside its prefix
    ("admin", None),       # an admin key must name its user
    ("revoked", None),     # a revoked key
])
async def test_requests_outside_the_scope_are_refused(served, key, user) -> None:
    with pytest.raises(Exception):  # noqa: B017 - the SDK client fails on the 401 answer
        async with mcp_client(served, key, user) as client:
            await client.list_tools()


async def test_a_prefix_key_names_a_user_inside_its_prefix(served) -> None:
    async with mcp_client(served, "team", "team-red") as red:
        hits = await add_and_search(red, "The red team meets on Fridays.", "red team meets")
        assert "The red team meets on Fridays." in hits
    async with mcp_client(served, "admin", "team-blue") as blue:
        found = await blue.call_tool("search", {"query": "red team meets", "k": 10})
        assert all("Fridays" not in hit["text"] for hit in found.structured_content["hits"])


def test_the_mcp_endpoint_answers_401_without_a_key(served) -> None:
    with served.client() as anonymous:
        answer = anonymous.post("/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                headers={"Accept": "application/json, text/event-stream"})
        assert answer.status_code == 401


def test_a_foreign_host_is_refused_at_mcp_without_a_redirect(served) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = "application/json, text/event-stream"
    with served.client("alice") as alice:
        for path in ("/mcp", "/mcp/"):
            answer = alice.post(path, json=body, headers={"Host": "evil.example",
                                                          "Accept": accept})
            assert answer.status_code not in (301, 302, 307, 308), answer.headers
            assert 400 <= answer.status_code < 500
            assert "evil.example" not in answer.headers.get("location", "")
        ok = alice.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                      "params": {"protocolVersion": "2025-06-18",
                                                 "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "1"}}},
                        headers={"Accept": accept})
        assert ok.status_code == 200, ok.text


async def test_add_memories_checks_each_item_like_the_rest_route(served) -> None:
    batch = [{"content": "Alice swims on Mondays."},
             {"content": "Alice likes figs.", "importance": 11},        # out of range
             {"content": "Alice reads at night.", "mood": "calm"},      # not a field
             {"content": "Alice plays chess."}]
    async with mcp_client(served, "alice") as alice:
        result = await alice.call_tool("add_memories", {"memories": batch})
    assert not result.is_error, result.content[0].text
    added, failed = result.structured_content["added"], result.structured_content["failed"]
    assert [(a["index"], a["content"]) for a in added] == [
        (0, "Alice swims on Mondays."), (3, "Alice plays chess.")]
    assert [(f["index"], f["item"]) for f in failed] == [(1, batch[1]), (2, batch[2])]
    assert "importance" in failed[0]["error"] and "mood" in failed[1]["error"]
    with served.client("alice") as rest:
        over_rest = rest.post("/v1/users/alice/memories", json={"items": batch}).json()
        stored = rest.get("/v1/users/alice/memories", params={"kinds": "fact"}).json()
    assert [(f["index"], f["item"], f["error"]) for f in over_rest["failed"]] == [
        (f["index"], f["item"], f["error"]) for f in failed]
    sent = {i["content"] for i in batch}
    mine = [r["content"] for r in stored["records"] if r["content"] in sent]
    assert sorted(mine) == sorted(["Alice swims on Mondays.", "Alice plays chess."] * 2)

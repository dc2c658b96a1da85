"""Tenant isolation through every route: a key never reads or changes another user's records.

The routes are taken from the app itself, so a new endpoint is covered by default: every
route with a ``{user_id}`` must answer 404 with the body of a missing record for a user
outside the key's scope, and leave that user's records as they were. A route without a
``{user_id}`` must be listed in :data:`UNSCOPED` with the reason it is safe.
"""

from __future__ import annotations

import re

import pytest

from agent_memory.service.app import endpoints
from agent_memory.service.problems import NOT_FOUND

from .conftest import SCOPES

UNSCOPED = {
    "/healthz": "no data",
    "/readyz": "no data",
    "/openapi.json": "the API's description, no data (authenticated)",
    "/v1/jobs": "admin scopes only; 404 for others (test_admin_routes_are_404_for_others)",
    "/v1/me": "the caller's own scope, nobody else's",
}


MOUNTS = {
    "/mcp": "the MCP endpoint: isolation through the MCP client in test_mcp_mount.py",
    "/ui": "static files of the inspector, no data (test_inspector.py checks them)",
}


def _routes(app) -> list[tuple[str, str]]:
    found = endpoints(app)
    for method, path in found:
        assert method != "MOUNT" or path in MOUNTS, \
            f"mounted app at {path}: add its isolation test here"
    return [(method, path) for method, path in found if method != "MOUNT"]


@pytest.fixture(scope="module")
def victim(served) -> dict[str, str]:
    """Bob's records, written with Bob's key: the ids the intruder aims at."""
    with served.client("bob") as bob:
        turn = bob.post("/v1/users/bob/threads/b-thread/turns",
                        json={"role": "user", "content": "My PIN is 4921."}).json()
        bob.post("/v1/users/bob/threads/b-thread/summary")
        bob.post("/v1/users/bob/threads/b-thread/facts")
        bob.post("/v1/users/bob/profile")
        bob.post("/v1/users/bob/sessions", json={"session_id": "b-session"})
        bob.post("/v1/users/bob/sessions/b-session/turns",
                 json={"role": "user", "content": "I bank with Northwind."})
        added = bob.post("/v1/users/bob/memories", json={"items": [
            {"content": "Bob's PIN is 4921.", "collection": "secrets"}]}).json()
        bob.put("/v1/users/bob/agents/b-agent/collections", json={"collections": ["secrets"]})
    return {"thread_id": "b-thread", "session_id": "b-session", "agent_id": "b-agent",
            "record_id": turn["id"], "fact_id": added["added"][0][1]["id"]}


def _snapshot(served) -> list[dict]:
    with served.client("admin") as admin:
        page = admin.get("/v1/users/bob/memories",
                         params={"limit": 1000, "include_superseded": True}).json()
    assert page["cursor"] is None
    return page["records"]


def test_every_route_is_scoped_or_listed(served) -> None:
    routes = _routes(served.app)
    assert len(routes) >= 35
    for _, path in routes:
        assert "{user_id}" in path or path in UNSCOPED, f"{path}: not scoped by user"


@pytest.mark.parametrize("intruder", ["alice", "team"])
def test_no_route_reaches_another_users_records(served, victim, intruder) -> None:
    before = _snapshot(served)
    assert before, "bob has records"
    checked = 0
    with served.client(intruder) as client:
        for method, path in _routes(served.app):
            if "{user_id}" not in path:
                continue
            url = re.sub(r"{(\w+)}", lambda m: "bob" if m[1] == "user_id" else victim[m[1]],
                         path)
            for body in ({}, {"query": "PIN", "context": "PIN", "role": "user",
                              "content": "x", "turns": [], "items": [], "collections": []}):
                response = client.request(method, url, json=body)
                assert response.status_code == 404, (method, url, response.text)
                assert response.json() == NOT_FOUND.model_dump(exclude_none=True)
            checked += 1
    assert checked >= 30
    assert _snapshot(served) == before
    with served.client("bob") as bob:  # the same requests reach Bob's own records
        assert bob.get(f"/v1/users/bob/memories/{victim['record_id']}").status_code == 200
        assert bob.get("/v1/users/bob/sessions/b-session/context").status_code == 200


def test_prefix_scope_is_a_prefix_not_a_pattern(served) -> None:
    assert SCOPES["team"][2] == "team-"
    with served.client("team") as team:
        assert team.get("/v1/users/team-1/threads").status_code == 200
        for outside in ("team", "Team-1", "xteam-1", "team_1"):
            assert team.get(f"/v1/users/{outside}/threads").status_code == 404


def test_admin_routes_are_404_for_others(served) -> None:
    for name in ("alice", "bob", "team"):
        with served.client(name) as client:
            response = client.get("/v1/jobs")
            assert response.status_code == 404
            assert response.json() == NOT_FOUND.model_dump(exclude_none=True)
    with served.client("admin") as admin:
        assert admin.get("/v1/jobs").status_code == 200


def test_bodies_cannot_name_another_user(served, victim) -> None:
    before = _snapshot(served)
    with served.client("alice") as alice:
        batch = alice.post("/v1/users/alice/turns", json={"turns": [
            {"thread_id": "t", "role": "user", "content": "x", "user_id": "bob"}]})
        assert batch.status_code == 422
        added = alice.post("/v1/users/alice/memories", json={"items": [
            {"content": "planted", "user_id": "bob"}]}).json()
        assert added["added"] == [] and len(added["failed"]) == 1
    assert _snapshot(served) == before

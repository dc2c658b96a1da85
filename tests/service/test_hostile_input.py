"""Issue 18 cases over REST: crafted cursors, lone surrogates, unaddressable ids, coerced
types. Each answers a 4xx problem and leaves the store byte-for-byte the same."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

from agent_memory.service.problems import PROBLEM_JSON

USER = "/v1/users/alice"


def dump(path: Path) -> list[str]:
    """Every row of the store, as SQL (a refused call must not change one)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


@pytest.fixture(scope="module")
def store_path(served) -> Path:
    return Path(served.app.state.memory.settings.store)


@pytest.fixture(scope="module")
def alice(served):
    with served.client("alice") as client:
        assert client.post(f"{USER}/threads/t1/turns", json={
            "role": "user", "content": "I moved to Lisbon last spring."}).status_code == 201
        yield client


def _refused(response, status: int = 422) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    body = response.json()
    assert body["status"] == status and body["type"].startswith("urn:agent-memory:problem:")
    return body


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def test_crafted_cursors_are_422(alice, store_path) -> None:
    before = dump(store_path)
    for raw in ("[0, 1e400, \"x\"]", "[0, " + "9" * 400 + ", \"x\"]", "[" * 5000,
                "[1e400, 1, \"x\"]", "[0, true, \"x\"]", "[0, 1, 2]", "{}", "[0, 1]",
                "[-1e300, 1, \"x\"]", "[0, -5, \"x\"]", "[0, 1, \"\\ud800\"]"):
        body = _refused(alice.get(f"{USER}/memories", params={"cursor": _cursor(raw)}))
        assert "cursor" in body["detail"]
    _refused(alice.get(f"{USER}/memories", params={"cursor": "A" * 5000}))
    assert dump(store_path) == before


def test_lone_surrogates_in_bodies_are_422(alice, store_path) -> None:
    before = dump(store_path)
    raw = '{"items": [{"content": "\\ud800 tea", "subject": "\\udfff"}]}'
    response = alice.post(f"{USER}/memories", content=raw,
                          headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text  # a bulk add reports items it refuses
    assert response.json()["added"] == [] and len(response.json()["failed"]) == 1
    _refused(alice.post(f"{USER}/threads/t1/turns", content='{"role": "user", "content": '
                        '"\\ud800"}', headers={"content-type": "application/json"}))
    _refused(alice.post(f"{USER}/threads/t1/turns", content='{"role": "user", "content": '
                        '"hi", "metadata": {"\\ud800": 1}}',
                        headers={"content-type": "application/json"}))
    assert dump(store_path) == before


def test_ids_that_could_not_be_addressed_are_refused(alice, store_path) -> None:
    before = dump(store_path)
    for bad in ("a\u0000b", "x" * 10_000, "", " a", "a/b", ".."):
        _refused(alice.post(f"{USER}/threads/t1/turns", json={
            "role": "user", "content": "hello", "id": bad}))
        _refused(alice.post(f"{USER}/turns", json={"turns": [{
            "thread_id": "t1", "role": "user", "content": "hello", "id": bad}]}))
    _refused(alice.post(f"{USER}/threads/{'t' * 300}/turns", json={
        "role": "user", "content": "hello"}))
    for bad in ("", "a\u0000b"):
        _refused(alice.post(f"{USER}/sessions", json={"session_id": bad}))
    assert dump(store_path) == before


def test_values_are_never_coerced(alice, store_path) -> None:
    before = dump(store_path)
    for k in ("10", True, 1.5, None):
        _refused(alice.post(f"{USER}/search", json={"query": "Lisbon", "k": k}))
    _refused(alice.post(f"{USER}/search", json={"query": "Lisbon", "include_superseded": 1}))
    for when in (10**12, 0, "10000000000"):
        _refused(alice.post(f"{USER}/threads/t1/turns", json={
            "role": "user", "content": "hello", "created_at": when}))
    for metadata in ('{"a": NaN}', '{"a": Infinity}', '{"a": 1e400}', '{"a": -Infinity}'):
        _refused(alice.post(f"{USER}/threads/t1/turns", content='{"role": "user", "content": '
                            f'"hi", "metadata": {metadata}}}',
                            headers={"content-type": "application/json"}))
    _refused(alice.post(f"{USER}/threads/t1/turns", json={
        "role": "user", "content": "hi", "seq": "3"}))
    assert dump(store_path) == before
    assert alice.post(f"{USER}/search", json={"query": "Lisbon", "k": 3}).status_code == 200


def test_a_refusal_quoting_the_input_is_valid_json(alice) -> None:
    response = alice.post(f"{USER}/search", content='{"query": "x", "k": "\\ud800"}',
                          headers={"content-type": "application/json"})
    body = _refused(response)
    json.dumps(body, ensure_ascii=False).encode("utf-8")

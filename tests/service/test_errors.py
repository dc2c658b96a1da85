"""Typed errors as RFC 9457 problem details: one table covers the whole error tree; real
requests answer each class's status; body size limit; schema failures list their fields."""

from __future__ import annotations

import http.client
import inspect
from urllib.parse import urlsplit

import pytest

from agent_memory import AsyncMemory, Settings, errors
from agent_memory.service import KeyStore, ServiceSettings, create_app
from agent_memory.service.problems import NOT_FOUND, PROBLEM_JSON, PROBLEMS, problem_type

from .conftest import serve

TREE = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.AgentMemoryError)]


def _build(cls: type[errors.AgentMemoryError]) -> errors.AgentMemoryError:
    return cls("the message")


def test_every_error_class_has_its_own_entry() -> None:
    assert len(TREE) >= 25
    assert set(TREE) == set(PROBLEMS), "a class of errors.py is missing from PROBLEMS"
    for cls in TREE:  # a subclass answers as its family, unless listed otherwise
        kind = problem_type(cls)
        assert 400 <= kind.status < 600 and kind.title and kind.slug
        assert problem_type(cls).status == PROBLEMS[cls].status
    assert problem_type(errors.InvalidScopeError).status == 422
    assert problem_type(errors.SessionNotFoundError).status == 404
    assert problem_type(errors.ConflictError).status == 409


@pytest.fixture(scope="module")
def raising(tmp_path_factory, local_embedder):
    """A service with one extra route raising the error class named in its path."""
    root = tmp_path_factory.mktemp("raising")
    settings = Settings.load(store=str(root / "memory.db"))
    app = create_app(settings, service=ServiceSettings.load(no_auth=True),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    by_name = {cls.__name__: cls for cls in TREE}

    async def raise_error(name: str) -> None:
        raise _build(by_name[name])

    app.add_api_route("/raise/{name}", raise_error, methods=["GET"])
    running = serve(app, KeyStore(root / "keys.db"))
    yield running
    running.stop()


@pytest.mark.parametrize("cls", TREE, ids=lambda c: c.__name__)
def test_each_error_answers_its_status_as_problem_details(raising, cls) -> None:
    with raising.client() as client:
        response = client.get(f"/raise/{cls.__name__}")
    expected = PROBLEMS[cls]
    assert response.status_code == expected.status
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    body = response.json()
    if expected.status == 404:
        assert body == NOT_FOUND.model_dump(exclude_none=True)
    else:
        assert body["type"] == expected.uri and body["title"] == expected.title
        assert body["status"] == expected.status and "the message" in body["detail"]


@pytest.fixture(scope="module")
def alice(served):
    with served.client("alice") as client:
        yield client


@pytest.mark.parametrize(("request_", "status", "slug"), [
    (("post", "/v1/users/alice/threads/t/turns", {"role": "robot", "content": "x"}),
     422, "unknown-role"),
    (("post", "/v1/users/alice/threads/t/turns", {"role": "user", "content": "  "}),
     422, "empty-content"),
    (("post", "/v1/users/alice/threads/t/turns", {"role": "user", "content": "x" * 32_001}),
     422, "content-too-large"),
    (("post", "/v1/users/alice/threads/t%20/turns", {"role": "user", "content": "x"}),
     422, "invalid-scope"),
    (("post", "/v1/users/alice/search", {"query": "x", "k": 0}), 422, "invalid-number"),
    (("post", "/v1/users/alice/search", {"query": "x", "kinds": ["nope"]}),
     422, "unknown-option"),
    (("post", "/v1/users/alice/search", {"query": " "}), 422, "empty-content"),
    (("post", "/v1/users/alice/search", {"query": "x", "since": "9999-12-31T23:59:59-23:00"}),
     422, "invalid-time"),
    (("post", "/v1/users/alice/recall", {"context": "x", "min_score": 2}),
     422, "invalid-number"),
    (("get", "/v1/users/alice/memories?cursor=zz", None), 422, "invalid-input"),
    (("get", "/v1/users/alice/sessions/none", None), 404, "not-found"),
    (("post", "/v1/users/alice/facts/fact_none/restore", None), 404, "not-found"),
])
def test_real_requests_answer_typed_errors(alice, request_, status, slug) -> None:
    method, url, body = request_
    response = alice.request(method.upper(), url, json=body)
    assert response.status_code == status, response.text
    assert response.json()["type"] == f"urn:agent-memory:problem:{slug}"


def test_a_taken_seq_is_a_409_conflict(alice) -> None:
    url = "/v1/users/alice/threads/seq-thread/turns"
    assert alice.post(url, json={"role": "user", "content": "a", "seq": 0}).status_code == 201
    taken = alice.post(url, json={"role": "user", "content": "b", "seq": 0})
    assert taken.status_code == 409 and taken.json()["title"] == "Conflict"


def test_schema_failures_list_every_field(alice) -> None:
    response = alice.post("/v1/users/alice/search", json={"k": "many", "extra": 1})
    assert response.status_code == 422
    body = response.json()
    assert body["type"] == "urn:agent-memory:problem:invalid-input"
    assert {tuple(e["loc"]) for e in body["errors"]} >= {
        ("body", "query"), ("body", "k"), ("body", "extra")}
    broken = alice.post("/v1/users/alice/search", content=b"{not json",
                        headers={"content-type": "application/json"})
    assert broken.status_code == 422 and broken.json()["errors"]


def test_bodies_over_the_limit_answer_413(served, alice) -> None:
    limit = served.app.state.service.max_body_bytes
    big = {"turns": [{"thread_id": "t", "role": "user", "content": "y" * 30_000}] * 40}
    response = alice.post("/v1/users/alice/turns", json=big)
    assert response.status_code == 413 and response.headers["content-type"].startswith(
        PROBLEM_JSON)
    assert str(limit) in response.json()["detail"]
    # chunked, without Content-Length: counted as it streams
    parts = urlsplit(served.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.putrequest("POST", "/v1/users/alice/turns")
    conn.putheader("Authorization", f"Bearer {served.secrets['alice']}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    chunk = b"x" * 65_536
    try:
        for _ in range(limit // len(chunk) + 2):
            conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.send(b"0\r\n\r\n")
    except OSError:
        pass  # the server may answer and close before the whole body is sent
    answer = conn.getresponse()
    assert answer.status == 413
    conn.close()
    nothing = alice.get("/v1/users/alice/threads/t/turns").json()
    assert all(len(t["content"]) < 30_000 for t in nothing)


def test_unknown_routes_and_methods_are_problems(alice) -> None:
    missing = alice.get("/v1/nothing/here")
    assert missing.status_code == 404 and missing.json() == NOT_FOUND.model_dump(
        exclude_none=True)
    wrong = alice.put("/v1/users/alice/search", json={})
    assert wrong.status_code == 405 and wrong.headers["content-type"].startswith(PROBLEM_JSON)

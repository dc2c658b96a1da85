"""Property-based tests of the REST API: Schemathesis' stateful testing over the links it
infers from the OpenAPI document (a turn posted, then read, searched, forgotten...), with
positive and negative (wrong types, out-of-range values, missing fields) requests, plus
hand-written hostile bodies hypothesis draws (huge and negative numbers, NaN / Infinity,
lone surrogates, control characters, deep nesting, wrong JSON types, enormous strings).

Invariants on every response: never a 5xx; every 4xx is RFC 9457 problem details with a
``urn:agent-memory:problem:`` type and valid JSON; a refused call (4xx) leaves the store
file unchanged (full ``iterdump`` compared).

Bounded for CI (about a minute on 2 cores); ``AGENT_MEMORY_DEEP_PROPERTIES=1`` runs 20 times
the examples and longer scenarios.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from agent_memory.service.problems import PROBLEM_JSON

DEEP = os.environ.get("AGENT_MEMORY_DEEP_PROPERTIES", "").strip() not in ("", "0")
SCALE = 20 if DEEP else 1
USER = "alice"


def dump(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


def check_answer(status: int, content_type: str, body: bytes, before: list[str] | None,
                 after: list[str] | None, what: str) -> None:
    """The invariants of one response (see the module docstring)."""
    assert status < 500, f"{what}: {status} {body[:300]!r}"
    if 400 <= status < 500:
        assert content_type.startswith(PROBLEM_JSON), f"{what}: {status} {content_type}"
        problem = json.loads(body)
        assert problem["status"] == status and problem["type"].startswith(
            ("urn:agent-memory:problem:", "about:blank")), (what, problem)
        assert "Traceback" not in body.decode("utf-8")
        if before is not None:
            assert after == before, f"{what}: a refused call ({status}) changed the store"


@pytest.fixture(scope="module")
def store_path(served) -> Path:
    return Path(served.app.state.memory.settings.store)


@pytest.fixture(scope="module")
def api_schema(served):
    with served.client("admin") as admin:
        document = admin.get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(document)
    schema.config.update(base_url=served.url)
    schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
    return schema


def test_stateful_flows_never_5xx_and_refusals_change_nothing(api_schema, served,
                                                              store_path) -> None:
    headers = {"Authorization": f"Bearer {served.secrets['admin']}"}
    base = api_schema.as_state_machine()

    calls: list[str] = []

    class Flows(base):  # type: ignore[misc, valid-type]
        def get_call_kwargs(self, case):
            return {"headers": headers}

        def call(self, case, **kwargs):
            self._before = dump(store_path)
            calls.append(f"{case.method} {case.path}")
            return case.call(**kwargs)

        def validate_response(self, response, case, **kwargs):
            refused = 400 <= response.status_code < 500
            check_answer(response.status_code, response.headers.get("content-type", [""])[0]
                         if isinstance(response.headers.get("content-type"), list)
                         else response.headers.get("content-type", ""), response.content,
                         self._before if refused else None,
                         dump(store_path) if refused else None,
                         f"{case.method} {case.formatted_path}")

    Flows.run(settings=settings(max_examples=12 * SCALE, stateful_step_count=5 + 5 * DEEP,
                                deadline=None, derandomize=not DEEP, database=None,
                                suppress_health_check=list(HealthCheck)))
    assert len(set(calls)) >= 3, calls  # the inferred links chained several operations
    print(f"stateful: {len(calls)} calls over {len(set(calls))} operations")


def _surrogate_json(value: str) -> str:
    """JSON text of ``value`` with lone surrogates escaped (json.dumps does that)."""
    return json.dumps(value)


HOSTILE_NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30), st.just(10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none())
HOSTILE_TEXT = st.one_of(
    st.text(max_size=40), st.sampled_from(["\ud800", "a\udfffb", "\x00", "a\x1fb", " a",
                                           "a/b", "..", "", " ", "x" * 20_000]),
    st.binary(max_size=8).map(lambda b: b.decode("latin-1")))
HOSTILE_JSON = st.recursive(
    st.one_of(HOSTILE_NUMBERS, HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(HOSTILE_TEXT, inner, max_size=3)),
    max_leaves=8)


def _encode(value) -> str:
    """JSON as an attacker may send it: NaN / Infinity literals, huge numbers, escaped lone
    surrogates (``allow_nan`` keeps Python's non-standard literals)."""
    return json.dumps(value, allow_nan=True)


BODIES = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "robot", 5]), "content": HOSTILE_JSON},
                          optional={"created_at": HOSTILE_JSON, "metadata": HOSTILE_JSON,
                                    "id": HOSTILE_JSON, "seq": HOSTILE_NUMBERS,
                                    "speaker": HOSTILE_JSON}),
    HOSTILE_JSON,
)
ROUTES = st.sampled_from([
    ("POST", "/v1/users/alice/threads/t/turns"),
    ("POST", "/v1/users/alice/turns"),
    ("POST", "/v1/users/alice/search"),
    ("POST", "/v1/users/alice/recall"),
    ("POST", "/v1/users/alice/memories"),
    ("POST", "/v1/users/alice/sessions"),
    ("POST", "/v1/users/alice/forget"),
])


def test_hostile_bodies_never_5xx_and_change_nothing(served, store_path) -> None:
    with served.client("alice") as alice:
        assert alice.post(f"/v1/users/{USER}/threads/t/turns", json={
            "role": "user", "content": "I keep bees on my roof."}).status_code == 201

        @given(route=ROUTES, body=BODIES, wrap=st.booleans(), depth=st.integers(0, 3))
        @settings(max_examples=40 * SCALE, deadline=None, derandomize=not DEEP,
                  database=None, suppress_health_check=list(HealthCheck))
        def run(route, body, wrap, depth) -> None:
            method, path = route
            if wrap and path.endswith("/turns") and not path.endswith("t/turns"):
                body = {"turns": [body]}
            elif wrap and path.endswith("/memories"):
                body = {"items": [body]}
            text = _encode(body)
            if depth:
                text = "[" * (10 ** (depth + 1)) + text + "]" * (10 ** (depth + 1))
            before = dump(store_path)
            response = alice.request(method, path, content=text,
                                     headers={"content-type": "application/json"})
            refused = 400 <= response.status_code < 500
            check_answer(response.status_code, response.headers.get("content-type", ""),
                         response.content, before if refused else None,
                         dump(store_path) if refused else None, f"{method} {path} {text[:80]}")
            if response.status_code < 300 and path.endswith("/memories"):
                for failure in response.json().get("failed", []):
                    json.dumps(failure, allow_nan=False)

        run()


@given(cursor=st.one_of(st.text(max_size=60), st.binary(max_size=200).map(
    lambda b: __import__("base64").urlsafe_b64encode(b).decode())), value=HOSTILE_JSON)
@settings(max_examples=25 * SCALE, deadline=None, derandomize=not DEEP, database=None,
          suppress_health_check=list(HealthCheck))
def test_hostile_cursors_and_queries(served, store_path, cursor, value) -> None:
    import base64

    crafted = base64.urlsafe_b64encode(_encode(value).encode("utf-8", "surrogatepass")) \
        .decode().rstrip("=")
    with served.client("alice") as alice:
        for params in ({"cursor": cursor}, {"cursor": crafted}, {"limit": str(value)[:40]},
                       {"since": str(value)[:40]}, {"kind": str(value)[:40]}):
            before = dump(store_path)
            try:
                response = alice.get(f"/v1/users/{USER}/memories", params=params)
            except UnicodeEncodeError:
                continue  # httpx cannot put a lone surrogate in a URL; nothing was sent
            check_answer(response.status_code, response.headers.get("content-type", ""),
                         response.content, before, dump(store_path) if
                         400 <= response.status_code < 500 else before, str(params)[:80])
    assert not math.isnan(0.0)

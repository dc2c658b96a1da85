"""RemoteMemory against the service on a loopback port: the AsyncMemory API method for method,
the same records as the Python API for the same turns, typed errors, retries, the sync
facade, and the Agent Framework provider over it."""

from __future__ import annotations

import inspect
import math
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agent_memory import AsyncMemory, Settings, errors
from agent_memory.models import RecordKind
from agent_memory.remote import PROCESS_LOCAL, Remote, RemoteMemory
from agent_memory.service import KeyStore, ServiceSettings, create_app

from .conftest import free_port, serve

FRESH = {"etag", "updated_at"}
"""Fields written fresh by each store (a version, a write time): left out of comparisons."""


def _coroutines(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(value)
            for name, value in inspect.getmembers(cls, inspect.iscoroutinefunction)
            if not name.startswith("_")}


def test_remote_has_every_method_of_async_memory_with_its_signature() -> None:
    local, remote = _coroutines(AsyncMemory), _coroutines(RemoteMemory)
    assert len(local) >= 40
    for name, signature in local.items():
        if name in PROCESS_LOCAL:
            assert name not in remote, f"{name} is implemented: drop it from PROCESS_LOCAL"
            continue
        assert name in remote, f"RemoteMemory lacks {name}() (or list it in PROCESS_LOCAL)"
        theirs = remote[name].parameters
        for parameter in signature.parameters.values():
            assert parameter.name in theirs, f"{name}(): no parameter {parameter.name}"
            other = theirs[parameter.name]
            assert other.kind == parameter.kind, f"{name}({parameter.name}): kind differs"
            assert other.default == parameter.default, f"{name}({parameter.name}): default"
        extra = [p for p in theirs.values() if p.name not in signature.parameters
                 and p.default is inspect.Parameter.empty]
        assert not extra, f"{name}(): RemoteMemory requires {extra}"
        assert str(remote[name].return_annotation) == str(signature.return_annotation), name
        assert callable(getattr(Remote, name)), f"Remote lacks {name}()"
    assert set(PROCESS_LOCAL) <= set(local), "PROCESS_LOCAL names a method AsyncMemory lacks"


@pytest.fixture
async def remote(served):
    async with RemoteMemory(served.url, api_key=served.secrets["alice"]) as client:
        yield client


@pytest.fixture
async def embedded(tmp_path, local_embedder):
    async with AsyncMemory.open(Settings.load(store=str(tmp_path / "local.db")),
                                embedder=local_embedder) as memory:
        yield memory


def _fields(record, *leave_out: str) -> dict:
    return record.model_dump(exclude=FRESH | set(leave_out))


USER = "team-rest"
"""A user of its own (the ``team`` key's prefix), apart from the other tests' records."""


async def test_same_turns_through_rest_and_python_give_the_same_records(
        served, embedded, conversation) -> None:
    async with RemoteMemory(served.url, api_key=served.secrets["team"]) as remote:
        await _compare(remote, embedded, conversation, USER)


async def _compare(remote, embedded, conversation, user) -> None:
    turns = [{**turn, "user_id": user} for turn in conversation]
    threads = list(dict.fromkeys(t["thread_id"] for t in turns))
    over_rest = await remote.add_turns(turns)
    in_process = await embedded.add_turns(turns)
    assert len(over_rest) == len(turns) >= 20
    assert [_fields(t) for t in over_rest] == [_fields(t) for t in in_process]
    for thread_id in threads:
        assert ([_fields(t) for t in await remote.get_thread(user, thread_id)]
                == [_fields(t) for t in await embedded.get_thread(user, thread_id)])
    # without ids: fresh ids on both sides, every other field the same
    rest_turn = await remote.add_turn(user, "fresh", "user", "I adopted a cat named Miso.",
                                      speaker="Caroline")
    local_turn = await embedded.add_turn(user, "fresh", "user",
                                         "I adopted a cat named Miso.", speaker="Caroline")
    assert rest_turn.id != local_turn.id and rest_turn.id.startswith("turn")
    assert (_fields(rest_turn, "id", "created_at")
            == _fields(local_turn, "id", "created_at"))
    # the same embeddings and index entries: the same hits, scores and ranks
    for query in ("LGBTQ support group", "what did Caroline paint?", "Miso"):
        for mode in ("hybrid", "vector", "text"):
            rest_hits = await remote.search(user, query, mode=mode, k=5)
            local_hits = await embedded.search(user, query, mode=mode, k=5)
            fresh = {local_turn.id: rest_turn.id}
            assert ([h.record.id for h in rest_hits]
                    == [fresh.get(h.record.id, h.record.id) for h in local_hits])
            assert all(math.isclose(a.score, b.score, rel_tol=1e-6)
                       for a, b in zip(rest_hits, local_hits, strict=True))
    # the pipeline steps over the same turns write the same summaries and facts (fact ids
    # are fresh on each side)
    step = {"started_at", "finished_at", "elapsed_seconds", "written"}
    for thread_id in threads:
        rest_steps = await remote.process_thread(user, thread_id)
        local_steps = await embedded.process_thread(user, thread_id)
        assert [r.model_dump(exclude=step) for r in rest_steps] == [
            r.model_dump(exclude=step) for r in local_steps]
        assert [len(r.written) for r in rest_steps] == [len(r.written) for r in local_steps]
    derived = [RecordKind.FACT, RecordKind.SUMMARY]
    rest_records = await remote.get_memories(user, kinds=derived)
    local_records = await embedded.get_memories(user, kinds=derived)
    assert len(rest_records) == len(local_records) > len(threads)

    def comparable(records):
        return sorted((_fields(r, "id", "created_at") for r in records),
                      key=lambda r: (r["kind"], r["content"]))

    assert comparable(rest_records) == comparable(local_records)


async def test_records_pages_and_summaries_parse_into_the_library_models(remote) -> None:
    for i in range(5):
        await remote.add_turn("alice", "paged", "user", f"Message number {i} about gardening.")
    first = await remote.get_memories_page("alice", kinds=["turn"], thread_id="paged", limit=2)
    assert len(first.records) == 2 and first.cursor
    second = await remote.get_memories_page("alice", kinds=["turn"], thread_id="paged",
                                            limit=2, cursor=first.cursor)
    assert [t.seq for t in first.records + second.records] == [0, 1, 2, 3]
    every = await remote.get_memories("alice", kinds=[RecordKind.TURN], thread_id="paged")
    assert [t.content for t in every][-1] == "Message number 4 about gardening."
    assert await remote.get_summary("alice", "paged") is None
    await remote.generate_thread_summary("alice", "paged")
    summary = await remote.get_summary("alice", "paged")
    assert summary is not None and summary.thread_id == "paged"
    assert "paged" in await remote.threads("alice")


async def test_problem_details_come_back_as_the_typed_errors(remote, served) -> None:
    with pytest.raises(errors.UnknownRoleError, match="robot"):
        await remote.add_turn("alice", "t", "robot", "hi")
    with pytest.raises(errors.EmptyContentError):
        await remote.add_turn("alice", "t", "user", "   ")
    with pytest.raises(errors.InvalidNumberError):
        await remote.search("alice", "anything", k=0)
    with pytest.raises(errors.UnknownOptionError):
        await remote.search("alice", "anything", kinds=["planet"])
    with pytest.raises(errors.InvalidScopeError):  # checked before a path is built from it
        await remote.threads("alice ")
    with pytest.raises(errors.InvalidScopeError):  # '/' is refused at the source: never bob's
        await remote.threads("alice/../bob")
    await remote.add_turn("alice", "seqs", "user", "first", seq=0)
    with pytest.raises(errors.ConflictError):
        await remote.add_turn("alice", "seqs", "user", "second", seq=0)
    with pytest.raises(errors.SessionNotFoundError):
        await remote.session_state("alice", "no-such-session")
    with pytest.raises(errors.RecordNotFoundError):  # outside the key's scope: a miss
        await remote.threads("bob")
    with pytest.raises(errors.RecordNotFoundError):
        await remote.history("alice", "fact_missing")
    async with RemoteMemory(served.url, api_key="am_000000000000_wrong") as stranger:
        with pytest.raises(errors.ServiceError) as caught:
            await stranger.threads("alice")
    assert caught.value.status == 401
    assert caught.value.problem_type == "urn:agent-memory:problem:unauthorized"
    with pytest.raises(errors.InvalidInputError, match="one user"):
        await remote.add_turns([{"user_id": "alice", "thread_id": "a", "role": "user",
                                 "content": "x"},
                                {"user_id": "bob", "thread_id": "a", "role": "user",
                                 "content": "y"}])


class Faults(httpx.AsyncBaseTransport):
    """The real HTTP transport, failing the first ``failures`` requests with ``error``
    before anything is sent (to count what the client retries)."""

    def __init__(self, error: type[httpx.TransportError], failures: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.error = error
        self.failures = failures
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.requests <= self.failures:
            raise self.error("injected", request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_retries_idempotent_calls_only(served) -> None:
    key = served.secrets["alice"]
    reads = Faults(httpx.ReadError, failures=2)
    async with RemoteMemory(served.url, api_key=key, transport=reads, backoff=0) as client:
        assert isinstance(await client.threads("alice"), list)
    assert reads.requests == 3
    writes = Faults(httpx.ReadError, failures=1)
    async with RemoteMemory(served.url, api_key=key, transport=writes, backoff=0) as client:
        with pytest.raises(errors.ServiceError) as caught:  # it may have been applied
            await client.add_turn("alice", "retry", "user", "Sent once at most.")
        assert caught.value.status is None and isinstance(caught.value.__cause__,
                                                          httpx.ReadError)
        assert writes.requests == 1
        with_id = await client.add_turn("alice", "retry", "user", "Idempotent by id.",
                                        id="turn_retry_1")  # an id: a retry is a no-op
    assert with_id.id == "turn_retry_1"
    unsent = Faults(httpx.ConnectError, failures=1)
    async with RemoteMemory(served.url, api_key=key, transport=unsent, backoff=0) as client:
        turn = await client.add_turn("alice", "retry", "user", "Never left the client.")
    assert unsent.requests == 2 and turn.content == "Never left the client."


async def test_a_conflicting_re_add_is_a_conflict_error_over_the_service(remote) -> None:
    await remote.add_turn("alice", "t-re", "user", "Original words.", id="turn_re_1")
    await remote.add_turn("alice", "t-re", "user", "Original words.", id="turn_re_1")
    with pytest.raises(errors.ConflictError, match="turn_re_1"):
        await remote.add_turns([{"user_id": "alice", "thread_id": "t-re", "role": "user",
                                 "content": "Rewritten words.", "id": "turn_re_1"}])
    assert [t.content for t in await remote.get_thread("alice", "t-re")] == ["Original words."]


async def test_an_unreachable_service_is_a_service_error() -> None:
    port = free_port()  # nothing listens there
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    async with RemoteMemory(f"http://127.0.0.1:{port}", retries=1, backoff=0) as client:
        with pytest.raises(errors.ServiceError) as caught:
            await client.connect()
    assert caught.value.status is None
    with pytest.raises(errors.ConfigError):
        RemoteMemory("http://127.0.0.1:1", retries=-1)


def test_the_sync_facade(served) -> None:
    with Remote(served.url, api_key=served.secrets["alice"]) as memory:
        memory.connect()
        turn = memory.add_turn("alice", "sync", "user", "I run a bakery in Porto.")
        assert memory.get_thread("alice", "sync")[-1].id == turn.id
        assert memory.search("alice", "bakery", k=3)[0].record.id == turn.id
        session = memory.start_session("alice", "sync-session")
        memory.add_session_turn("alice", session, "user", "I plan to open a second shop.")
        assert "second shop" in memory.get_current_context("alice", session)
        assert session in memory.open_session_ids("alice")
    with pytest.raises(errors.ClientClosedError):
        memory.threads("alice")
    memory.close()  # twice is fine


@pytest.fixture(scope="module")
def provider_service(tmp_path_factory, local_embedder):
    """A service with the settings of the embedded provider tests (tests/integrations): a
    session folds its turns every 4, keeps 2 verbatim; loopback, no keys."""
    root = tmp_path_factory.mktemp("provider")
    settings = Settings.load(store=str(root / "m.db"), k_turn_buffer=4, n_active_turns=2)
    app = create_app(settings, service=ServiceSettings.load(no_auth=True),
                     memory=AsyncMemory(settings, embedder=local_embedder))
    running = serve(app, KeyStore(root / "keys.db"))
    yield running
    running.stop()


async def test_agent_framework_provider_over_remote_memory(provider_service) -> None:
    pytest.importorskip("agent_framework")
    from agent_framework import Agent

    from agent_memory.integrations.agent_framework import AgentMemoryProvider
    from agent_memory.integrations.local_chat import LocalChatClient

    async with RemoteMemory(provider_service.url) as memory:
        client = LocalChatClient()
        provider = AgentMemoryProvider(memory, "alice")
        agent = Agent(client, instructions="You are a financial advisor.",
                      context_providers=[provider])
        session = agent.create_session()
        await agent.run("I want to retire at 60 and I have $150k in my 401k.", session=session)
        stored = await memory.get_thread("alice", session.session_id)
        assert [(t.role.value, t.content) for t in stored] == [
            ("user", "I want to retire at 60 and I have $150k in my 401k."),
            ("assistant", "Noted.")]
        await agent.run("Also I prefer quarterly reviews.", session=session)
        instructions = client.requests[-1][1]["instructions"]
        assert "<session_initialization>" in instructions
        assert "I want to retire at 60" in instructions
        assert "retrieve_user_facts" in [t.name for t in client.requests[-1][1]["tools"]]
        response = await agent.run("What did we discuss about my 401k?", session=session)
        assert response.text.startswith("From memory: Facts from memory relevant to")
        assert "401k" in response.text and "Sources:" in response.text
        assert session.session_id in await memory.open_session_ids("alice")
        async with provider:  # ends the sessions it used, over the service
            pass
        assert [e.session.thread_id for e in provider.ended] == [session.session_id]
        assert session.session_id not in await memory.open_session_ids("alice")


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "service.md"
EXAMPLES = re.findall(r"```python\n(.*?)```",
                      GUIDE.read_text().split("## Remote client", 1)[-1], flags=re.DOTALL)


@pytest.mark.parametrize("script", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_the_guides_remote_client_examples_run(served, script) -> None:
    assert len(EXAMPLES) >= 3
    env = {**os.environ, "AM": served.url, "KEY": served.secrets["alice"],
           "PYTHONPATH": os.pathsep.join(sys.path)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


async def test_forget_records_deletes_by_id_and_reports_the_missing(remote) -> None:
    turns = await remote.add_turns([
        {"user_id": "alice", "thread_id": "forget-me", "role": "user", "content": text}
        for text in ("My locker code is 4411.", "I bike to work.")])
    report = await remote.forget_records("alice", [turns[0].id, "no-such-record"])
    assert report.missing == ["no-such-record"]
    left = await remote.get_thread("alice", "forget-me")
    assert [t.id for t in left] == [turns[1].id]
    with pytest.raises(errors.InvalidInputError):
        await remote.forget_records("alice", [])

"""Bad input is a typed error and changes nothing, at every public call.

Each case runs on a copy of one seeded SQLite file (turns, a fact in a collection, a live
session, a queued job) and compares a full dump of the file (``iterdump``) before and after.
"""

from __future__ import annotations

import asyncio
import math
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent_memory import AsyncMemory, Memory, Settings
from agent_memory.errors import (
    ClientClosedError,
    ConfigError,
    ContentTooLargeError,
    EmptyContentError,
    InvalidInputError,
    InvalidNumberError,
    InvalidScopeError,
    InvalidTextError,
    InvalidTimeError,
    MissingScopeError,
    UnknownOptionError,
    UnknownRoleError,
)

MAX_CHARS = 200
WEST = timezone(timedelta(hours=-5))
EAST = timezone(timedelta(hours=5))
LATEST = datetime.max.replace(tzinfo=WEST)   # past year 9999 in UTC
EARLIEST = datetime.min.replace(tzinfo=EAST)  # before year 1 in UTC
T0 = datetime(2024, 3, 1, tzinfo=UTC)


def settings(path) -> Settings:
    return Settings.load(store=str(path), max_content_chars=MAX_CHARS, thread_summary_every_n=3)


def dump(path) -> list[str]:
    """Every table of the store file, as SQL statements."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory, local_embedder):
    """A store with victim's turns (one job queued), a fact in a collection and a session."""
    path = tmp_path_factory.mktemp("seed") / "seed.db"

    async def seed() -> None:
        async with AsyncMemory.open(settings(path), embedder=local_embedder) as m:
            for i, text in enumerate(["I live in Lisbon and love sardines.",
                                      "My sister Ana is a pilot.", "I run every morning."]):
                await m.add_turn("victim", "t1", "user", text, created_at=T0 + timedelta(hours=i))
            await m.add_memories("victim", [{"content": "Victim is allergic to nuts.",
                                             "collection": "health"}])
            await m.bind_collections("victim", "doctor", ["health"])
            sid = await m.start_session("victim", "s1")
            await m.add_session_turn("victim", sid, "user", "I want to retire at 60.")

    asyncio.run(seed())
    return path


@pytest.fixture
def store(tmp_path, template):
    path = tmp_path / "m.db"
    shutil.copy(template, path)
    return path


NAN, INF = math.nan, math.inf
TOO_LONG = "x" * (MAX_CHARS + 1)

CASES = [
    # scope ids: missing, not a string, surrounding whitespace, control characters
    ("add_turn", (None, "t1", "user", "hi"), {}, MissingScopeError),
    ("add_turn", (7, "t1", "user", "hi"), {}, InvalidScopeError),
    ("add_turn", ("victim ", "t1", "user", "hi"), {}, InvalidScopeError),
    ("add_turn", ("victim", "t1\x1f", "user", "hi"), {}, InvalidScopeError),
    ("add_turn", ("victim", "t1", "user", "hi"), {"agent_id": 3}, InvalidScopeError),
    ("add_turn", ("victim", "t1", "user", "hi"), {"agent_id": " a"}, InvalidScopeError),
    ("add_turns", ([{"user_id": "victim", "thread_id": "t1", "role": "user", "content": "ok"},
                    {"user_id": "victim", "thread_id": None, "role": "user", "content": "x"}],),
     {}, MissingScopeError),
    ("get_thread", ("victim ", "t1"), {}, InvalidScopeError),
    ("get_thread", ("victim\x1f", "t1"), {}, InvalidScopeError),
    ("get_thread", ("\x00", "t1"), {}, InvalidScopeError),
    ("get_thread", ("vic\ud800tim", "t1"), {}, InvalidScopeError),
    ("get_memories", ("victim",), {"thread_id": 5}, InvalidScopeError),
    ("get_summary", ("victim", " t1"), {}, InvalidScopeError),
    ("get_profile", (b"victim",), {}, InvalidScopeError),
    ("search", (None, "sardines"), {}, MissingScopeError),
    ("search", (5, "sardines"), {}, InvalidScopeError),
    ("search", ("victim", "sardines"), {"agent_id": "a\nb"}, InvalidScopeError),
    ("recall", ("victim\t", "sardines"), {}, InvalidScopeError),
    ("start_session", ("victim", "s\x00"), {}, InvalidScopeError),
    ("start_session", ("victim ",), {}, InvalidScopeError),
    ("add_session_turn", ("victim", 7, "user", "hi"), {}, InvalidScopeError),
    ("get_current_context", ("victim", None), {}, MissingScopeError),
    ("end_session", (" victim", "s1"), {}, InvalidScopeError),
    ("flush_session_embeddings", (None,), {}, MissingScopeError),
    ("forget_user", ("victim ",), {}, InvalidScopeError),
    ("forget_thread", ("victim", "t1 "), {}, InvalidScopeError),
    ("forget_records", ("victim ", ["fact_1"]), {}, InvalidScopeError),
    ("expire_turns", ("victim\x7f",), {"older_than": 0}, InvalidScopeError),
    ("reconcile_memories", (None,), {}, MissingScopeError),
    ("history", ("victim", None), {}, InvalidInputError),
    ("restore", ("victim ", "fact_1"), {}, InvalidScopeError),
    ("bind_collections", ("victim", " doctor", ["c"]), {}, InvalidScopeError),
    ("unbind_collections", ("victim", None, ["health"]), {}, MissingScopeError),
    ("agent_collections", ("victim", "doctor\x1f"), {}, InvalidScopeError),
    ("list_sessions", (1,), {}, InvalidScopeError),
    ("jobs", ("victim ",), {}, InvalidScopeError),
    ("generate_thread_summary", ("victim", " t1"), {}, InvalidScopeError),
    ("extract_facts", ("victim ", "t1"), {}, InvalidScopeError),
    ("generate_user_summary", ("victim\x1f",), {}, InvalidScopeError),
    ("run_longterm_reflection", (None,), {}, MissingScopeError),
    ("reflect_pending_sessions", ("victim ",), {}, InvalidScopeError),
    ("retrieve_facts", (" victim", "where do I live?"), {}, InvalidScopeError),
    ("add_memories", ("victim ", [{"content": "x"}]), {}, InvalidScopeError),
    # counts: k <= 0, huge, not an integer
    ("search", ("victim", "sardines"), {"k": 0}, InvalidNumberError),
    ("search", ("victim", "sardines"), {"k": -1}, InvalidNumberError),
    ("search", ("victim", "sardines"), {"k": 10**9}, InvalidNumberError),
    ("search", ("victim", "sardines"), {"k": 2.5}, InvalidNumberError),
    ("search", ("victim", "sardines"), {"k": True}, InvalidNumberError),
    ("get_thread", ("victim", "t1"), {"k": 0}, InvalidNumberError),
    ("get_memories", ("victim",), {"limit": 10**6}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"top_k_vectors": 0}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"max_memories": 10**6}, InvalidNumberError),
    ("reconcile_memories", ("victim", 0), {}, InvalidNumberError),
    ("reconcile_memories", ("victim", NAN), {}, InvalidNumberError),
    ("run_jobs", (), {"max_jobs": 0}, InvalidNumberError),
    ("retrieve_facts", ("victim", "where?"), {"max_rounds": 0}, InvalidNumberError),
    # unknown kinds / modes / strategies / states
    ("search", ("victim", "sardines"), {"mode": "semantic"}, UnknownOptionError),
    ("search", ("victim", "sardines"), {"kinds": ["memo"]}, UnknownOptionError),
    ("get_memories", ("victim",), {"kinds": ["turns"]}, UnknownOptionError),
    ("recall", ("victim", "sardines"), {"strategy": "TOP"}, UnknownOptionError),
    ("recall", ("victim", "sardines"), {"relevance": "bm25"}, UnknownOptionError),
    ("recall", ("victim", "sardines"), {"kinds": ["memo"]}, UnknownOptionError),
    ("jobs", ("victim",), {"states": ["stuck"]}, UnknownOptionError),
    ("add_turn", ("victim", "t1", "bot", "hi"), {}, UnknownRoleError),
    # NaN, infinities and numbers out of range
    ("recall", ("victim", "sardines"), {"relevance_alpha": NAN}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"importance_alpha": INF}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"recency_alpha": -1.0}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"min_score": NAN}, InvalidNumberError),
    ("recall", ("victim", "sardines"), {"min_score": 1.5}, InvalidNumberError),
    ("expire_turns", ("victim",), {"older_than": NAN}, InvalidNumberError),
    ("expire_turns", ("victim",), {"older_than": INF}, InvalidNumberError),
    ("expire_turns", ("victim",), {"older_than": -5}, InvalidNumberError),
    ("expire_turns", ("victim",), {"older_than": 1e300}, InvalidTimeError),
    ("expire_turns", ("victim",), {"older_than": timedelta.max}, InvalidTimeError),
    # datetimes that overflow in UTC
    ("add_turn", ("victim", "t1", "user", "hi"), {"created_at": LATEST}, InvalidTimeError),
    ("add_turn", ("victim", "t1", "user", "hi"), {"created_at": EARLIEST}, InvalidTimeError),
    ("add_session_turn", ("victim", "s1", "user", "hi"), {"created_at": LATEST},
     InvalidTimeError),
    ("search", ("victim", "sardines"), {"since": LATEST}, InvalidTimeError),
    ("search", ("victim", "sardines"), {"until": EARLIEST}, InvalidTimeError),
    ("get_memories", ("victim",), {"since": EARLIEST}, InvalidTimeError),
    ("expire_turns", ("victim",), {"before": LATEST}, InvalidTimeError),
    # text: lone surrogates, blank, too long
    ("add_turn", ("victim", "t1", "user", "hi \ud800"), {}, InvalidTextError),
    ("add_turn", ("victim", "t1", "user", "hi"), {"speaker": "\udfff"}, InvalidTextError),
    ("add_turn", ("victim", "t1", "user", 42), {}, InvalidTextError),
    ("add_turn", ("victim", "t1", "user", TOO_LONG), {}, ContentTooLargeError),
    ("add_turn", ("victim", "t1", "user", " \n"), {}, EmptyContentError),
    ("search", ("victim", "\ud800"), {}, InvalidTextError),
    ("search", ("victim", "   "), {}, EmptyContentError),
    ("recall", ("victim", "sardines \udc80"), {}, InvalidTextError),
    ("retrieve_facts", ("victim", "where \ud800?"), {}, InvalidTextError),
    ("add_session_turn", ("victim", "s1", "user", "\ud800"), {}, InvalidTextError),
    ("add_session_turn", ("victim", "s2", "user", TOO_LONG), {}, ContentTooLargeError),
    ("bind_collections", ("victim", "doctor", ["he\ud800alth"]), {}, InvalidTextError),
]


def _id(case) -> str:
    name, args, kwargs, error = case
    shown = ", ".join([*(repr(a)[:20] for a in args), *(f"{k}={v!r}"[:24] for k, v in
                                                        kwargs.items())])
    return f"{name}({shown})-{error.__name__}"


@pytest.mark.parametrize(("name", "args", "kwargs", "error"), CASES, ids=map(_id, CASES))
async def test_async_bad_input_is_typed_and_changes_nothing(store, local_embedder, name, args,
                                                            kwargs, error):
    before = dump(store)
    async with AsyncMemory.open(settings(store), embedder=local_embedder) as memory:
        with pytest.raises(error) as caught:
            await getattr(memory, name)(*args, **kwargs)
    assert type(caught.value) is error  # the exact class, not a broader one
    assert str(caught.value)
    assert dump(store) == before


SYNC_CASES = [c for c in CASES if c[0] in {"add_turn", "search", "recall", "get_thread",
                                           "expire_turns", "forget_user", "add_session_turn"}]


@pytest.mark.parametrize(("name", "args", "kwargs", "error"), SYNC_CASES,
                         ids=map(_id, SYNC_CASES))
def test_sync_bad_input_is_typed_and_changes_nothing(store, local_embedder, name, args,
                                                     kwargs, error):
    before = dump(store)
    with Memory(settings(store), embedder=local_embedder) as memory, pytest.raises(error):
        getattr(memory, name)(*args, **kwargs)
    assert dump(store) == before


async def test_a_bad_turn_anywhere_in_a_batch_writes_nothing(store, local_embedder):
    before = dump(store)
    good = [{"user_id": "victim", "thread_id": "t9", "role": "user", "content": f"turn {i}"}
            for i in range(5)]
    async with AsyncMemory.open(settings(store), embedder=local_embedder) as memory:
        for bad in ({"content": TOO_LONG}, {"content": "\ud800"}, {"user_id": "victim "},
                    {"created_at": LATEST}, {"role": "robot"}):
            with pytest.raises(InvalidInputError):
                await memory.add_turns([*good, {**good[0], **bad}])
    assert dump(store) == before


async def test_add_memories_enforces_max_content_chars(store, local_embedder):
    before = dump(store)
    async with AsyncMemory.open(settings(store), embedder=local_embedder) as memory:
        result = await memory.add_memories("victim", [
            {"content": TOO_LONG}, {"content": "ok \ud800"}, {"content": "x", "confidence": NAN},
            {"content": "x", "created_at": LATEST}, {"content": "x", "agent_id": "a "}])
        assert result.added == [] and [f.index for f in result.failed] == [0, 1, 2, 3, 4]
        assert "max_content_chars" in result.failed[0].error
        assert dump(store) == before
        fits = await memory.add_memories("victim", [{"content": "y" * MAX_CHARS}])
        assert len(fits.added) == 1 and not fits.failed


async def test_padded_or_control_character_ids_never_read_another_users_records(
        store, local_embedder):
    async with AsyncMemory.open(settings(store), embedder=local_embedder) as memory:
        assert len(await memory.get_thread("victim", "t1")) == 3
        for alias in ("victim ", " victim", "victim\x1f", "victim\x00", "\x1fvictim",
                      "victim\u200b\x1e", "victim\n", "victim\u00a0"):
            for call in (lambda a: memory.get_thread(a, "t1"),
                         lambda a: memory.search(a, "sardines", mode="text"),
                         lambda a: memory.get_memories(a),
                         lambda a: memory.recall(a, "where does the user live?"),
                         lambda a: memory.add_turn(a, "t1", "user", "I am the victim now.")):
                with pytest.raises(InvalidScopeError):
                    await call(alias)
        # a different clean id is a different user: sees nothing of victim's
        assert await memory.get_thread("victim2", "t1") == []
        assert await memory.search("victim2", "sardines", mode="text") == []


def test_a_nul_byte_in_the_store_path_is_a_config_error(tmp_path):
    bad = str(tmp_path / "a\x00b.db")
    with pytest.raises(ConfigError, match="NUL"):
        Memory(store=bad)

    async def run() -> None:
        async with AsyncMemory.open(store=bad):
            pass

    with pytest.raises(ConfigError, match="NUL"):
        asyncio.run(run())
    assert list(tmp_path.iterdir()) == []


def test_a_closed_sync_memory_raises_a_typed_error(store, local_embedder):
    memory = Memory(settings(store), embedder=local_embedder)
    assert memory.get_thread("victim", "t1")
    memory.close()
    for call in (lambda: memory.get_thread("victim", "t1"), lambda: memory.search("victim", "x"),
                 lambda: memory.add_turn("victim", "t1", "user", "hi")):
        with pytest.raises(ClientClosedError, match="after close"):
            call()
    memory.close()  # still safe


async def test_ingest_checks_every_chunk_before_the_first_write(store, local_embedder):
    from agent_memory.ingest import ThreadBatch, ingest_threads

    def thread(name: str, content: str = "A turn that fits.") -> ThreadBatch:
        return ThreadBatch("newcomer", name, [
            {"user_id": "newcomer", "thread_id": name, "role": "user", "content": content}])

    before = dump(store)
    batches = [thread("a"), thread("b"), thread("c", TOO_LONG)]  # one chunk per thread
    async with AsyncMemory.open(settings(store), embedder=local_embedder) as memory:
        with pytest.raises(ContentTooLargeError):
            await ingest_threads(memory, batches, chunk_turns=1)
    assert dump(store) == before

"""Property-based tests of the public library calls (hypothesis), fed hostile values: huge
and negative numbers, NaN / Infinity, lone surrogates, control characters, deep nesting,
wrong types, bytes, enormous strings.

Invariants: a call either succeeds or raises an :class:`~agent_memory.errors.AgentMemoryError`
(never ``ValueError`` / ``TypeError`` / ``OverflowError`` / ``RecursionError``...); a refused
call leaves the store file unchanged (full ``iterdump`` compared); whatever was accepted can
be read back by its id, and every accepted id is one the REST API can address.

Bounded for CI; ``AGENT_MEMORY_DEEP_PROPERTIES=1`` runs 20 times the examples.
"""

from __future__ import annotations

import math
import os
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory import Memory, Settings
from agent_memory import validation as check
from agent_memory.errors import AgentMemoryError

DEEP = os.environ.get("AGENT_MEMORY_DEEP_PROPERTIES", "").strip() not in ("", "0")
SCALE = 20 if DEEP else 1
RUN = settings(max_examples=30 * SCALE, deadline=None, derandomize=not DEEP, database=None,
               suppress_health_check=list(HealthCheck))


def dump(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


@pytest.fixture(scope="module")
def memory(tmp_path_factory, local_embedder):
    path = tmp_path_factory.mktemp("properties") / "memory.db"
    with Memory(Settings.load(store=str(path)), embedder=local_embedder) as mem:
        mem.add_turn("u", "t", "user", "I keep bees on my roof in Lisbon.")
        yield mem, path


NUMBERS = st.one_of(st.integers(-(10**30), 10**30), st.just(10**400 // 10**390),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans())
TEXTS = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["\ud800", "a\udfffb", "\x00", "a\x1fb", "a\x85", " a", "a ", "a/b", ".",
                     "..", "", "   ", "x" * 100_000]),
    st.binary(max_size=6))
TIMES = st.one_of(
    st.datetimes(timezones=st.just(UTC)),
    st.sampled_from([datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))),
                     datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),
                     "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "yesterday",
                     10**12, 0, -1.5, math.nan]))
LEAVES = st.one_of(NUMBERS, TEXTS, TIMES, st.none())
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.one_of(TEXTS, st.integers()), inner,
                                                 max_size=3)), max_leaves=6)


def _deep(n: int):
    value: object = "x"
    for _ in range(n):
        value = {"a": value}
    return value


TURNS = st.one_of(
    st.fixed_dictionaries(
        {"user_id": st.one_of(st.just("u"), TEXTS), "thread_id": st.one_of(st.just("t"), TEXTS),
         "role": st.one_of(st.just("user"), TEXTS), "content": st.one_of(st.just("hi"), TEXTS)},
        optional={"created_at": TIMES, "metadata": st.one_of(VALUES, st.builds(
            _deep, st.integers(30, 3000))), "id": st.one_of(TEXTS, NUMBERS),
            "seq": NUMBERS, "speaker": TEXTS, "agent_id": TEXTS}),
    VALUES)


def _refused_or_fine(path: Path, call, *args, **kwargs):
    """Run ``call``; on an error it must be ours and the store unchanged."""
    before = dump(path)
    try:
        return call(*args, **kwargs)
    except AgentMemoryError:
        assert dump(path) == before, f"a refused {call.__name__} changed the store"
        return None


@given(items=st.lists(TURNS, min_size=1, max_size=3))
@RUN
def test_add_turns(memory, items) -> None:
    mem, path = memory
    stored = _refused_or_fine(path, mem.add_turns, items)
    for turn in stored or []:
        check.record_id(turn.id)  # addressable by REST
        check.scope(turn.user_id) and check.scope(turn.thread_id, "thread_id")
        assert mem.store_get(turn.user_id, turn.id) if hasattr(mem, "store_get") else True


MEMORIES = st.one_of(st.fixed_dictionaries(
    {"content": st.one_of(st.just("I like tea."), TEXTS)},
    optional={"importance": NUMBERS, "confidence": NUMBERS, "metadata": VALUES,
              "created_at": TIMES, "id": TEXTS, "evidence": VALUES, "collection": TEXTS,
              "kind": TEXTS, "subject": TEXTS}), VALUES)


@given(items=st.lists(MEMORIES, min_size=1, max_size=3))
@RUN
def test_add_memories_reports_bad_items(memory, items) -> None:
    mem, path = memory
    result = _refused_or_fine(path, mem.add_memories, "u", items)
    if result is not None:
        assert len(result.added) + len(result.failed) == len(items)
        result.model_dump_json()  # the report (echoing bad items) serialises


@given(query=st.one_of(st.just("bees"), TEXTS), k=NUMBERS, mode=st.one_of(st.just("text"),
       TEXTS), kinds=st.one_of(st.none(), st.lists(TEXTS, max_size=2)), since=st.one_of(
       st.none(), TIMES))
@RUN
def test_search(memory, query, k, mode, kinds, since) -> None:
    mem, path = memory
    _refused_or_fine(path, mem.search, "u", query, k=k, mode=mode, kinds=kinds, since=since)


@given(cursor=st.one_of(TEXTS, st.binary(max_size=80).map(
    lambda b: __import__("base64").urlsafe_b64encode(b).decode())), limit=NUMBERS)
@RUN
def test_pages(memory, cursor, limit) -> None:
    mem, path = memory
    _refused_or_fine(path, mem.get_memories_page, "u", cursor=cursor, limit=limit)


@given(context=st.one_of(st.just("bees"), TEXTS), alpha=NUMBERS, n=NUMBERS, min_score=NUMBERS)
@RUN
def test_recall(memory, context, alpha, n, min_score) -> None:
    mem, path = memory
    _refused_or_fine(path, mem.recall, "u", context, relevance_alpha=alpha, max_memories=n,
                     min_score=min_score, update_access=False)


@given(session=st.one_of(st.just("s1"), TEXTS), role=st.one_of(st.just("user"), TEXTS),
       content=st.one_of(st.just("hello"), TEXTS), metadata=st.one_of(st.none(), VALUES),
       created_at=st.one_of(st.none(), TIMES))
@RUN
def test_session_turns(memory, session, role, content, metadata, created_at) -> None:
    mem, path = memory
    _refused_or_fine(path, mem.add_session_turn, "u", session, role, content,
                     metadata=metadata, created_at=created_at)


@given(user=TEXTS, thread=TEXTS, k=st.one_of(st.none(), NUMBERS))
@RUN
def test_reads_with_hostile_scopes(memory, user, thread, k) -> None:
    mem, path = memory
    _refused_or_fine(path, mem.get_thread, user, thread, k)
    _refused_or_fine(path, mem.forget_thread, user, thread)

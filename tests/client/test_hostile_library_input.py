"""Issue 18 items 4 and 5 through the library: every bad value is a typed error, nothing is
coerced, nothing is written."""

from __future__ import annotations

import math
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agent_memory import validation as check
from agent_memory.errors import (
    InvalidInputError,
    InvalidNumberError,
    InvalidScopeError,
    InvalidTextError,
    InvalidTimeError,
)
from agent_memory.indexing import build_indexed
from agent_memory.stores.base import CONTENT


def dump(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


def _turn(**fields):
    return {"user_id": "u", "thread_id": "t", "role": "user", "content": "hello", **fields}


CASES = [
    ("hello", InvalidInputError),
    (None, InvalidInputError),
    (42, InvalidInputError),
    (_turn(content=b"x"), InvalidTextError),
    (_turn(content=b"x\xffy"), InvalidTextError),
    (_turn(speaker=b"bob"), InvalidTextError),
    (_turn(metadata={"a": math.nan}), InvalidNumberError),
    (_turn(metadata={"a": math.inf}), InvalidNumberError),
    (_turn(metadata={"a": [1, {"b": -math.inf}]}), InvalidNumberError),
    (_turn(metadata={"a": 10**30}), InvalidNumberError),
    (_turn(metadata={"\ud800": 1}), InvalidTextError),
    (_turn(metadata={"a": "\udfff"}), InvalidTextError),
    (_turn(metadata={1: "a"}), InvalidInputError),
    (_turn(metadata={"a": b"x"}), InvalidInputError),
    (_turn(metadata={"a": {1, 2}}), InvalidInputError),
    (_turn(metadata="x"), InvalidInputError),
    (_turn(id=""), InvalidInputError),
    (_turn(id="a\u0000b"), InvalidInputError),
    (_turn(id="x" * 10_000), InvalidInputError),
    (_turn(thread_id="t" * 300), InvalidScopeError),
    (_turn(thread_id="a/b"), InvalidScopeError),
    (_turn(user_id=".."), InvalidScopeError),
    (_turn(created_at=10**12), InvalidTimeError),
    (_turn(created_at=1.5), InvalidTimeError),
    (_turn(created_at="yesterday"), InvalidTimeError),
    (_turn(created_at="9999-12-31T23:59:59-01:00"), InvalidTimeError),
    (_turn(seq="3"), InvalidNumberError),
    (_turn(seq=True), InvalidNumberError),
]


@pytest.mark.parametrize(("item", "error"), CASES, ids=[repr(c[0])[:50] for c in CASES])
async def test_bad_turns_are_typed_errors_and_write_nothing(memory, item, error) -> None:
    await memory.add_turn("u", "t", "user", "a turn already there")
    path = Path(memory.settings.store)
    before = dump(path)
    with pytest.raises(error):
        await memory.add_turns([item])
    with pytest.raises(error):
        await memory.add_turns([_turn(content="a good one first"), item])
    assert dump(path) == before


async def test_deep_metadata_is_refused(memory) -> None:
    deep: dict = {}
    inner = deep
    for _ in range(check.MAX_DEPTH + 1):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(InvalidInputError, match="nested"):
        await memory.add_turns([_turn(metadata=deep)])


async def test_good_values_still_pass(memory) -> None:
    stored = await memory.add_turns([_turn(
        id="turn-1", created_at="2024-05-01T10:00:00+02:00", seq=0,
        metadata={"tool": "search", "n": 3, "x": 0.5, "tags": ["a", None, True]})])
    assert stored[0].id == "turn-1" and stored[0].created_at.hour == 8
    assert stored[0].metadata["tags"] == ["a", None, True]


async def test_empty_session_id_is_refused(memory) -> None:
    with pytest.raises(InvalidInputError):
        await memory.start_session("u", "")
    with pytest.raises(InvalidNumberError):
        await memory.add_session_turn("u", "s1", "user", "hi", metadata={"a": math.nan})


async def test_bulk_memories_refuse_coercion(memory) -> None:
    result = await memory.add_memories("u", [
        {"content": b"x"}, {"content": "ok", "importance": "7"},
        {"content": "ok", "importance": True}, {"content": "ok", "id": ""},
        {"content": "ok", "metadata": {"a": math.nan}}, {"content": "\ud800"},
        {"content": "ok", "created_at": 10**12}, {"content": "fine"}])
    assert [f.index for f in result.failed] == [0, 1, 2, 3, 4, 5, 6]
    assert [i for i, _ in result.added] == [7]


async def test_store_put_with_a_bad_vector_is_typed(memory) -> None:
    turn = (await memory.add_turns([_turn()]))[0]
    indexed = (await build_indexed([turn], memory.embedder))[0]
    dim = memory.embedder.spec.dim
    path = Path(memory.settings.store)
    before = dump(path)
    for bad in ("0.1,0.2", b"\x00" * dim * 4, ["a"] * dim, [None] * dim, {"a": 1},
                np.full(dim, np.nan, dtype=np.float32), [1e400] * dim):
        with pytest.raises(InvalidInputError):
            await memory.store.put([replace(indexed, vectors={CONTENT: bad})])
    assert dump(path) == before


async def test_a_turn_object_with_bad_metadata_is_typed(memory) -> None:
    from agent_memory.models import Turn

    bad = Turn(id="x1", user_id="u", thread_id="t", role="user", content="hi",
               metadata={"a": math.nan})
    with pytest.raises(InvalidNumberError):
        await memory.add_turns([bad])
    assert await memory.get_thread("u", "t") == []

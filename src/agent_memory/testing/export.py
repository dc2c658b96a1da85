"""Conformance of reading back what was written (:attr:`Capability.EXPORT`): the users of a
store, records with their index text and vectors bit for bit, and the embedding model
recorded before ``open``. Copies between stores (:mod:`agent_memory.copy`) rely on these.
"""

from __future__ import annotations

import numpy as np
import pytest

from ..errors import MissingScopeError
from ..stores.base import Capability, EmbeddingSpec, Indexed, MemoryStore
from ._harness import (
    Connect,
    StoreFactory,
    StoreHarness,
    missing_capabilities,
    requires,
    skip_reason,
)
from .corpus import E1, E2, at, every_kind, turn

_ODD = np.array([0.1, -0.2, 0.3, 1e-8], dtype=np.float32)
"""A vector that is not normalised and has a tiny component: it must come back bit for bit."""


class ExportTests(StoreHarness):
    """What a store with :attr:`Capability.EXPORT` gives back (each test requires it: a
    class-level mark would be inherited by every class of the suite)."""

    @requires(Capability.EXPORT)
    async def test_users_lists_every_user_with_records_sorted(self, store: MemoryStore) -> None:
        assert await store.users() == []
        await store.put([Indexed(turn("a1", user="zoe")), Indexed(turn("b1", user="ana")),
                         Indexed(turn("b2", user="ana", created_at=at(1)))])
        assert await store.users() == ["ana", "zoe"]
        await store.delete("zoe", ["a1"])
        assert await store.users() == ["ana"]

    @requires(Capability.EXPORT)
    async def test_indexed_gives_back_text_and_vectors_bit_for_bit(
        self, store: MemoryStore
    ) -> None:
        records = every_kind()
        items = [Indexed(r, text=f"index text of {r.id}", vectors={"content": E1})
                 for r in records]
        items[0] = Indexed(records[0], text="turn text", vectors={"content": _ODD, "extra": E2})
        stored = await store.put(items)
        wanted = [r.id for r in reversed(records)]
        got = await store.indexed("alice", [*wanted, "missing", wanted[0]])
        assert [g.record for g in got] == list(reversed(stored))
        for g, item in zip(got, reversed(items), strict=True):
            assert g.index_text == item.index_text
            assert sorted(g.vectors) == sorted(item.vectors)
            for name, vec in item.vectors.items():
                assert g.vectors[name].dtype == np.float32
                assert g.vectors[name].tobytes() == np.asarray(vec, np.float32).tobytes()
        assert await store.indexed("bob", wanted) == []
        assert await store.indexed("alice", []) == []

    @requires(Capability.EXPORT)
    async def test_indexed_record_without_vectors_has_none(self, store: MemoryStore) -> None:
        await store.put([Indexed(turn("t0"))])
        (got,) = await store.indexed("alice", ["t0"])
        assert dict(got.vectors) == {} and got.index_text == "memo t0"

    @requires(Capability.EXPORT)
    async def test_indexed_needs_a_user(self, store: MemoryStore) -> None:
        with pytest.raises(MissingScopeError):
            await store.indexed("", ["t0"])

    @requires(Capability.EXPORT)
    async def test_recorded_embedding_before_open(
        self, store_factory: StoreFactory, spec: EmbeddingSpec, connect: Connect
    ) -> None:
        fresh = store_factory()
        missing = missing_capabilities(fresh, frozenset({Capability.EXPORT}))
        if missing:
            pytest.skip(skip_reason(fresh, missing))
        assert await fresh.recorded_embedding() is None
        await connect()
        again = store_factory()
        assert await again.recorded_embedding() == spec

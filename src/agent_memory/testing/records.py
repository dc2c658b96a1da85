"""Conformance of the record store: round trips, filters on every read path, ordering, upsert,
update, delete, purge, isolation between users, and bad input that changes nothing.

To add a test: write an ``async def test_...(self, store)`` method in :class:`RecordTests`
(``store`` is an opened, empty store; ``connect`` opens another client on the same storage)
and decorate it with :func:`requires` if it needs an optional :class:`Capability`.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ..errors import (
    DimensionMismatchError,
    InvalidInputError,
    MissingScopeError,
    RecordNotFoundError,
)
from ..models import Fact, Interaction, RecordKind, SupersedeReason, Turn
from ..stores.base import Capability, Indexed, MemoryStore, RecordQuery
from ._harness import Connect, StoreHarness, requires
from .corpus import (
    ALL,
    E1,
    E2,
    E3,
    EVERYTHING,
    FILTER_CASES,
    at,
    corpus,
    every_kind,
    ids,
    purge_corpus,
    turn,
)


class RecordTests(StoreHarness):
    """What every store does with records, whatever its capabilities."""

    async def test_round_trip_every_kind(self, store: MemoryStore) -> None:
        records = every_kind()
        stored = await store.put([Indexed(r, vectors={"content": E1}) for r in records])
        # put returns the records as stored: the same fields plus their version
        assert [r.model_copy(update={"etag": None}) for r in stored] == records
        assert all(r.etag for r in stored) and len({r.etag for r in stored}) == len(stored)

        got = await store.get("alice", [r.id for r in reversed(records)])
        assert got == list(reversed(stored))
        assert [type(r) for r in got] == [type(r) for r in reversed(records)]
        assert await store.list("alice", EVERYTHING) == stored

    async def test_get_skips_missing_ids_and_keeps_order(self, store: MemoryStore) -> None:
        await store.put([Indexed(turn(f"t{i}", created_at=at(i))) for i in range(3)])
        assert ids(await store.get("alice", ["t2", "missing", "t0"])) == ["t2", "t0"]
        assert await store.get("alice", []) == []

    @requires(Capability.PERSISTENT)
    async def test_records_outlive_the_store_object(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        records = every_kind()
        stored = await store.put([Indexed(r, vectors={"content": E1}) for r in records])
        await store.close()
        await store.close()  # closing twice is safe

        reopened = await connect()
        assert await reopened.list("alice", EVERYTHING) == stored
        hits = await reopened.vector_search("alice", E1, EVERYTHING, k=10)
        assert sorted(h.record.id for h in hits) == sorted(r.id for r in records)
        text_hits = await reopened.text_search("alice", "hello", EVERYTHING, k=10)
        assert [h.record.id for h in text_hits] == ["inter-1"]

    async def test_empty_put_is_a_no_op(self, store: MemoryStore) -> None:
        await store.put([])
        assert await store.count("alice", EVERYTHING) == 0

    @pytest.mark.parametrize("blank", ["", "   "])
    async def test_blank_user_id_is_refused_on_every_path(
        self, store: MemoryStore, blank: str
    ) -> None:
        for call in (
            store.get(blank, ["x"]),
            store.list(blank, ALL),
            store.count(blank, ALL),
            store.vector_search(blank, E1, ALL, 3),
            store.text_search(blank, "memo", ALL, 3),
            store.delete(blank, ["x"]),
        ):
            with pytest.raises(MissingScopeError):
                await call

    @pytest.mark.parametrize(("query", "expected"), FILTER_CASES.values(), ids=FILTER_CASES.keys())
    async def test_filter_on_every_read_path(
        self, store: MemoryStore, query: RecordQuery, expected: list[str]
    ) -> None:
        await store.put(corpus())
        assert ids(await store.list("alice", query)) == expected
        assert await store.count("alice", query) == len(expected)
        vector_hits = await store.vector_search("alice", E1, query, k=50)
        assert sorted(h.record.id for h in vector_hits) == sorted(expected)
        text_hits = await store.text_search("alice", "memo", query, k=50)
        assert sorted(h.record.id for h in text_hits) == sorted(expected)

    async def test_list_orders_by_created_at_then_seq_and_limits(self, store: MemoryStore) -> None:
        same_time = [turn(f"s{i}", seq=i, created_at=at(10)) for i in range(5)]
        earlier = [turn("early", seq=9, created_at=at(1)), turn("late", seq=8, created_at=at(20))]
        shuffled = same_time + earlier
        random.Random(7).shuffle(shuffled)
        await store.put([Indexed(r) for r in shuffled])

        forward = ["early", "s0", "s1", "s2", "s3", "s4", "late"]
        assert ids(await store.list("alice", ALL)) == forward
        assert ids(await store.list("alice", RecordQuery(newest_first=True))) == forward[::-1]
        assert ids(await store.list("alice", RecordQuery(limit=3))) == forward[:3]
        newest3 = RecordQuery(newest_first=True, limit=3)
        assert ids(await store.list("alice", newest3)) == ["late", "s4", "s3"]
        assert await store.count("alice", RecordQuery(limit=2)) == 7

    async def test_upsert_replaces_doc_text_and_vectors(self, store: MemoryStore) -> None:
        first = Interaction(id="x", user_id="alice", thread_id="th1", content="alpha words")
        (stored,) = await store.put([Indexed(first, vectors={"content": E1, "summary": E3})])
        second = stored.model_copy(update={"content": "beta words", "thread_id": "th2"})
        (second,) = await store.put([Indexed(second, vectors={"content": E2})])
        assert second.etag != stored.etag

        assert await store.count("alice", EVERYTHING) == 1
        assert await store.get("alice", ["x"]) == [second]
        assert await store.list("alice", RecordQuery(thread_id="th1")) == []
        assert await store.text_search("alice", "alpha", ALL, k=5) == []
        assert ids([h.record for h in await store.text_search("alice", "beta", ALL, k=5)]) == ["x"]
        [hit] = await store.vector_search("alice", E2, ALL, k=5)
        assert hit.score == pytest.approx(1.0, abs=1e-5)
        assert await store.vector_search("alice", E3, ALL, k=5, fields=("summary",)) == []

    async def test_upsert_with_index_text(self, store: MemoryStore) -> None:
        fact = Fact(id="f", user_id="alice", content="Caroline lives in Sweden.")
        await store.put([Indexed(fact, text="where does caroline live country")])
        assert ids([h.record for h in await store.text_search("alice", "country", ALL, 5)]) == ["f"]
        assert await store.text_search("alice", "Sweden", ALL, 5) == []

    async def test_delete_removes_records_vectors_and_text(self, store: MemoryStore) -> None:
        await store.put(corpus())
        assert await store.delete("alice", ["t0", "f2", "missing"]) == 2
        assert await store.get("alice", ["t0", "f2"]) == []
        assert await store.count("alice", EVERYTHING) == 7
        vector_hits = await store.vector_search("alice", E1, EVERYTHING, 50)
        assert "t0" not in [h.record.id for h in vector_hits]
        text_hits = await store.text_search("alice", "t0", EVERYTHING, 50)
        assert "t0" not in [h.record.id for h in text_hits]
        assert await store.delete("alice", ["t0"]) == 0
        assert await store.delete("alice", []) == 0

    async def test_superseded_hidden_by_default_and_shown_with_flag(
        self, store: MemoryStore
    ) -> None:
        await store.put(corpus())
        assert "f2" not in ids(await store.list("alice", ALL))
        assert "f2" in ids(await store.list("alice", EVERYTHING))
        # get is by id, unfiltered
        assert [r.id for r in await store.get("alice", ["f2"])] == ["f2"]
        coffee = await store.text_search("alice", "coffee", ALL, 5)
        assert coffee == []
        coffee = await store.text_search("alice", "coffee", EVERYTHING, 5)
        assert [h.record.id for h in coffee] == ["f2"]

    async def test_update_changes_docs_and_filters_but_keeps_vectors_and_text(
        self, store: MemoryStore,
    ) -> None:
        fact = Fact(id="fu", user_id="alice", thread_id="th1", content="likes green tea")
        (fact,) = await store.put([Indexed(fact, vectors={"content": E1})])
        assert [h.record.id for h in await store.vector_search("alice", E1, ALL, 5)] == ["fu"]
        # A document-only change (access statistics) is stored.
        touched = fact.model_copy(update={"access_count": 3, "last_accessed_at": at(5)})
        (touched,) = await store.update([touched])
        (got,) = await store.get("alice", ["fu"])
        assert got == touched and got.etag != fact.etag
        assert got.access_count == 3 and got.last_accessed_at == at(5)
        # A filter change (supersede) hides it from default reads at once, vectors and text kept.
        retired = touched.model_copy(update={"superseded_by": "other",
                                             "supersede_reason": SupersedeReason.DUPLICATE})
        assert len(await store.update([retired])) == 1
        assert await store.vector_search("alice", E1, ALL, 5) == []
        assert await store.text_search("alice", "green tea", ALL, 5) == []
        hits = await store.vector_search("alice", E1, EVERYTHING, 5)
        assert [h.record.id for h in hits] == ["fu"]
        hits = await store.text_search("alice", "green tea", EVERYTHING, 5)
        assert [h.record.superseded_by for h in hits] == ["other"]
        # Unknown ids (deleted meanwhile) and other users' ids raise; nothing is written.
        ghost = fact.model_copy(update={"id": "ghost"})
        bobs = fact.model_copy(update={"user_id": "bob"})
        for gone in ([ghost], [bobs], [ghost, bobs]):
            with pytest.raises(RecordNotFoundError):
                await store.update(gone)
        assert await store.get("alice", ["ghost"]) == [] and await store.get("bob", ["fu"]) == []

    async def test_users_never_see_each_other(self, store: MemoryStore) -> None:
        await store.put(corpus())
        secret = Turn(
            id="alice-only",
            user_id="alice",
            thread_id="th1",
            role="user",
            content="my secret zanzibar password",
        )
        twin_a = turn("twin", content="twin alice version")
        twin_b = turn("twin", user="bob", content="twin bob version")
        await store.put(
            [Indexed(secret, vectors={"content": E3}), Indexed(twin_a), Indexed(twin_b)]
        )

        assert await store.get("bob", ["alice-only", "t0"]) == []
        assert [r.content for r in await store.get("bob", ["twin"])] == ["twin bob version"]
        assert sorted(ids(await store.list("bob", EVERYTHING))) == ["bf0", "bt0", "twin"]
        assert await store.count("bob", EVERYTHING) == 3
        assert await store.count("bob", RecordQuery(ids=frozenset({"alice-only"}))) == 0
        assert await store.text_search("bob", "zanzibar secret", EVERYTHING, 10) == []
        memo = await store.text_search("bob", "memo", EVERYTHING, 10)
        assert sorted(h.record.id for h in memo) == ["bf0", "bt0"]
        near_secret = await store.vector_search("bob", E3, EVERYTHING, 10)
        assert all(h.record.user_id == "bob" for h in near_secret)
        assert sorted(h.record.id for h in near_secret) == ["bf0", "bt0"]
        assert await store.vector_search("carol", E1, EVERYTHING, 10) == []

        before = await store.count("alice", EVERYTHING)
        assert await store.delete("bob", ["alice-only", "t0", "twin"]) == 1
        assert await store.count("alice", EVERYTHING) == before
        assert [r.content for r in await store.get("alice", ["twin"])] == ["twin alice version"]

    async def test_wrong_dimension_raises_and_writes_nothing(self, store: MemoryStore) -> None:
        await store.put(corpus())
        before = await store.count("alice", EVERYTHING)
        batch = [
            Indexed(turn("new1"), vectors={"content": E1}),
            Indexed(turn("new2"), vectors={"content": np.ones(5, dtype=np.float32)}),
        ]
        with pytest.raises(DimensionMismatchError):
            await store.put(batch)
        with pytest.raises(DimensionMismatchError):
            await store.put([Indexed(turn("new3"), vectors={"content": np.ones((1, 4))})])
        assert await store.count("alice", EVERYTHING) == before
        assert await store.get("alice", ["new1", "new2", "new3"]) == []

        with pytest.raises(DimensionMismatchError):
            await store.vector_search("alice", np.ones(3, dtype=np.float32), ALL, 5)

    async def test_batch_with_one_bad_item_is_not_stored_at_all(self, store: MemoryStore) -> None:
        await store.put(corpus())
        before = await store.count("alice", EVERYTHING)
        good = [Indexed(turn(f"good{i}"), vectors={"content": E2}) for i in range(3)]
        # The bad item is last, so its failure comes after the good ones were sent.
        unencodable = Indexed(turn("bad"), text="broken \ud800 surrogate")
        with pytest.raises(InvalidInputError):
            await store.put([*good, unencodable])
        not_finite = Indexed(turn("nan"), vectors={"content": np.full(4, np.nan, dtype=np.float32)})
        with pytest.raises(InvalidInputError):
            await store.put([*good, not_finite])

        assert await store.count("alice", EVERYTHING) == before
        assert await store.get("alice", ["good0", "good1", "good2", "bad", "nan"]) == []
        hits = await store.vector_search("alice", E2, EVERYTHING, 50)
        assert not any(h.record.id.startswith("good") for h in hits)

    async def test_purge_a_thread_counts_per_kind_and_includes_superseded(
        self, store: MemoryStore
    ) -> None:
        await store.put(purge_corpus())
        assert await store.purge("alice", thread_id="th1") == {"turn": 2, "fact": 1}
        assert sorted(ids(await store.list("alice", EVERYTHING))) == ["f-new", "p3"]
        assert not any(h.record.thread_id == "th1"
                       for h in await store.vector_search("alice", E1, EVERYTHING, 10))
        assert await store.text_search("alice", "Oslo", EVERYTHING, 5) == []
        assert ids(await store.list("bob", EVERYTHING)) == ["p1"]

    async def test_purge_by_kind_and_cut_off(self, store: MemoryStore) -> None:
        await store.put(purge_corpus())
        removed = await store.purge("alice", kinds=frozenset({RecordKind.TURN}), before=at(2))
        assert removed == {"turn": 2}
        assert sorted(ids(await store.list("alice", EVERYTHING))) == ["f-new", "f-old", "p2"]

    async def test_purge_a_user_leaves_other_users(self, store: MemoryStore) -> None:
        await store.put(purge_corpus())
        assert await store.purge("alice") == {"turn": 3, "fact": 2}
        assert await store.count("alice", EVERYTHING) == 0
        assert await store.purge("alice") == {}
        assert await store.count("bob", EVERYTHING) == 1
        with pytest.raises(MissingScopeError):
            await store.purge(" ")

    async def test_pages_walk_every_record_once_in_list_order(self, store: MemoryStore) -> None:
        await store.put([Indexed(turn(f"t{i:02d}", seq=i, created_at=at(i % 7)))
                         for i in range(25)])
        expected = ids(await store.list("alice", ALL))
        for newest_first in (False, True):
            query = RecordQuery(limit=10, newest_first=newest_first)
            seen: list[str] = []
            page = await store.page("alice", query)
            sizes = [len(page.records)]
            seen += ids(page.records)
            if not newest_first:  # a record written meanwhile, before the cursor, moves nothing
                await store.put([Indexed(turn("late", seq=99, created_at=at(-1)))])
            while page.cursor is not None:
                page = await store.page("alice", query, page.cursor)
                sizes.append(len(page.records))
                seen += ids(page.records)
            assert seen == (expected if not newest_first else
                            ids(await store.list("alice", RecordQuery(newest_first=True))))
            assert sizes[:2] == [10, 10]
        assert ids((await store.page("bob", RecordQuery(limit=10))).records) == []
        with pytest.raises(InvalidInputError):
            await store.page("alice", RecordQuery(limit=10), "not a cursor")

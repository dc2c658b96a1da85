"""Conformance of search: cosine ranking over vector fields, full-text relevance, query syntax
taken as words, and the speakers look-up.

To add a test: write an ``async def test_...(self, store)`` method in :class:`SearchTests` and
decorate it with :func:`requires` if it needs an optional :class:`Capability`.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ..errors import MissingScopeError
from ..models import Fact, Interaction
from ..stores.base import Capability, Indexed, MemoryStore, RecordQuery
from ._harness import StoreHarness, requires
from .corpus import ALL, E1, T0, TEXTS, fan, turn, unit


async def put_texts(store: MemoryStore) -> None:
    """Store :data:`TEXTS` as alice's turns."""
    await store.put([Indexed(turn(k, content=v)) for k, v in TEXTS.items()])


class SearchTests(StoreHarness):
    """Ranking by vector and full-text search (filters are checked in :mod:`.records`)."""

    @requires(Capability.VECTOR_SEARCH)
    async def test_vector_search_ranks_by_cosine(self, store: MemoryStore) -> None:
        items = fan()
        records = [
            Indexed(turn(rid, thread_id="odd" if i % 2 else "even"), vectors={"content": vec})
            for i, (rid, vec, _) in enumerate(items)
        ]
        random.Random(3).shuffle(records)
        await store.put(records)

        hits = await store.vector_search("alice", E1, ALL, k=3)
        assert [h.record.id for h in hits] == ["v0", "v1", "v2"]
        assert [h.score for h in hits] == pytest.approx([c for _, _, c in items[:3]], abs=1e-5)
        assert all(h.field == "content" for h in hits)

        hits = await store.vector_search("alice", E1, RecordQuery(thread_id="odd"), k=3)
        assert [h.record.id for h in hits] == ["v1", "v3"]
        assert await store.vector_search("alice", E1, ALL, k=0) == []

    @requires(Capability.VECTOR_SEARCH)
    async def test_vector_search_multi_field_returns_each_record_once(
        self, store: MemoryStore
    ) -> None:
        # cosines to E1: a = (content 0.0, summary 0.995); b = (0.707, 0.447); c = (0.958, -)
        await store.put(
            [
                Indexed(
                    Interaction(id="a", user_id="alice", content="chunk a", summary="sa"),
                    vectors={"content": unit(0, 1), "summary": unit(1, 0.1)},
                ),
                Indexed(
                    Interaction(id="b", user_id="alice", content="chunk b", summary="sb"),
                    vectors={"content": unit(1, 1), "summary": unit(1, 2)},
                ),
                Indexed(turn("c"), vectors={"content": unit(1, 0.3)}),
            ]
        )

        both = await store.vector_search("alice", E1, ALL, k=5, fields=("content", "summary"))
        assert [(h.record.id, h.field) for h in both] == [
            ("a", "summary"),
            ("c", "content"),
            ("b", "content"),
        ]
        assert [h.score for h in both] == pytest.approx(
            [1 / np.sqrt(1.01), 1 / np.sqrt(1.09), 1 / np.sqrt(2)], abs=1e-5
        )
        top2 = await store.vector_search("alice", E1, ALL, k=2, fields=("content", "summary"))
        assert [h.record.id for h in top2] == ["a", "c"]

        content_only = await store.vector_search("alice", E1, ALL, k=5)
        assert [h.record.id for h in content_only] == ["c", "b", "a"]
        assert content_only[2].score == pytest.approx(0.0, abs=1e-5)

        summary_only = await store.vector_search("alice", E1, ALL, k=5, fields=("summary",))
        assert [(h.record.id, h.field) for h in summary_only] == [
            ("a", "summary"),
            ("b", "summary"),
        ]
        assert await store.vector_search("alice", E1, ALL, k=5, fields=("nothing",)) == []

    @requires(Capability.VECTOR_SEARCH)
    async def test_vector_search_fills_k_when_one_record_holds_the_top_rows(
        self, store: MemoryStore
    ) -> None:
        await store.put(
            [
                Indexed(
                    Interaction(id="x", user_id="alice", content="x", summary="x"),
                    vectors={"content": unit(1, 0.1), "summary": unit(1, 0.05)},
                ),
                Indexed(turn("y"), vectors={"content": unit(1, 0.5)}),
                Indexed(turn("z"), vectors={"content": unit(1, 1)}),
            ]
        )
        hits = await store.vector_search("alice", E1, ALL, k=2, fields=("content", "summary"))
        assert [(h.record.id, h.field) for h in hits] == [("x", "summary"), ("y", "content")]

    @requires(Capability.FULL_TEXT_SEARCH)
    async def test_text_search_ranks_the_rare_term_first(self, store: MemoryStore) -> None:
        await put_texts(store)
        hits = await store.text_search("alice", "zebra cat", ALL, k=10)
        assert hits[0].record.id == "zebra"
        assert {h.record.id for h in hits} == {"zebra", "cat", "dog"}
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
        assert all(h.field is None for h in hits)
        assert len(await store.text_search("alice", "zebra cat", ALL, k=1)) == 1

    @pytest.mark.parametrize(
        "query",
        [
            'zebra AND "cat',
            "zebra* OR NOT -cat",
            "NEAR(zebra cat)",
            "text:zebra ^cat",
            "zebra's (cat)!",
        ],
    )
    async def test_text_search_treats_syntax_as_words(self, store: MemoryStore, query: str) -> None:
        await put_texts(store)
        hits = await store.text_search("alice", query, ALL, k=10)
        assert hits and hits[0].record.id == "zebra"

    @pytest.mark.parametrize("query", ["", "   ", "the and of", '?!*"()', "-"])
    async def test_text_search_without_searchable_words_is_empty(
        self, store: MemoryStore, query: str
    ) -> None:
        await put_texts(store)
        assert await store.text_search("alice", query, ALL, k=10) == []

    async def test_speakers_lists_the_users_turn_speakers_once(self, store: MemoryStore) -> None:
        await store.put([
            Indexed(turn("a", speaker="Melanie")),
            Indexed(turn("b", speaker="Caroline")),
            Indexed(turn("c", speaker="Melanie")),
            Indexed(turn("d")),
            Indexed(turn("e", user="bob", speaker="Bob")),
            Indexed(Fact(id="f", user_id="alice", content="Jon likes tea", subject="Jon",
                         created_at=T0)),
        ])
        assert await store.speakers("alice") == ["Caroline", "Melanie"]
        assert await store.speakers("bob") == ["Bob"]
        await store.delete("alice", ["b"])
        assert await store.speakers("alice") == ["Melanie"]
        assert await store.speakers("nobody") == []
        with pytest.raises(MissingScopeError):
            await store.speakers(" ")

    @requires(Capability.VECTOR_SEARCH, Capability.FULL_TEXT_SEARCH)
    async def test_one_pushed_down_search_returns_every_signals_rank_and_score(
        self, store: MemoryStore
    ) -> None:
        import asyncio

        from ..stores.search import StoreSearch

        await store.put([Indexed(turn(rid, content=f"{rid} kayak"), vectors={"content": vec})
                         for rid, vec, _ in fan()])
        await store.put([Indexed(turn("words-only", content="kayak kayak kayak"))])
        vector_hits = await store.vector_search("alice", E1, ALL, k=5)
        text_hits = await store.text_search("alice", "kayak", ALL, k=5)

        async def embedding() -> np.ndarray:  # an awaitable vector, as the client passes it
            await asyncio.sleep(0)
            return E1

        hybrid = await store.search("alice", StoreSearch(query=ALL, k=5, text="kayak",
                                                          vector=embedding(), rrf_k=10))
        found = {h.record.id: h for h in hybrid}
        for name, hits in (("vector", vector_hits), ("text", text_hits)):
            for rank, hit in enumerate(hits, start=1):
                signal = found[hit.record.id].signals[name]
                assert (signal.rank, signal.score) == (rank, pytest.approx(hit.score))
        for hit in hybrid:  # fused: reciprocal rank fusion over the signals that found it
            expected = sum(1 / (10 + s.rank) for s in hit.signals.values())
            assert hit.score == pytest.approx(expected)
        assert [h.score for h in hybrid] == sorted((h.score for h in hybrid), reverse=True)
        assert "words-only" in found and "vector" not in found["words-only"].signals

        alone = await store.search("alice", StoreSearch(query=ALL, k=5, vector=E1))
        assert [(h.record.id, h.score) for h in alone] == [
            (h.record.id, pytest.approx(h.score)) for h in vector_hits]
        alone = await store.search("alice", StoreSearch(query=ALL, k=5, text="kayak"))
        assert [h.record.id for h in alone] == [h.record.id for h in text_hits]
        assert all(set(h.signals) == {"text"} for h in alone)

    @requires(Capability.FULL_TEXT_SEARCH)
    async def test_text_scores_do_not_depend_on_other_users(self, store: MemoryStore) -> None:
        # Full-text statistics (document count, average length, document frequencies) are the
        # user's own: another user writing, then deleting, the query's words moves neither the
        # order nor the scores of alice's hits, so scores are no side channel across users.
        async def alice() -> tuple[list[str], list[float]]:
            hits = await store.text_search("alice", "zebra cat", ALL, k=10)
            return [h.record.id for h in hits], [h.score for h in hits]

        await put_texts(store)
        order, scores = await alice()
        await store.put([
            Indexed(turn(f"b{i}", user="bob", content="zebra zebra cat " * (i + 1)))
            for i in range(30)
        ])
        await store.put([Indexed(turn("c", user="carol", content="a long story " * 50))])
        assert await alice() == (order, pytest.approx(scores, rel=1e-12, abs=0))
        await store.delete("bob", [f"b{i}" for i in range(30)])
        assert await alice() == (order, pytest.approx(scores, rel=1e-12, abs=0))

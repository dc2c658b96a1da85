"""Conformance of valid time (bi-temporal facts): ``valid_from`` / ``valid_until`` round trip
and ``RecordQuery.as_of`` on every read path.

The corpus is the residence case of the temporal-validity design (docs/consistency.md): Kai
lived in Boston from January 2024, moved to Portland in May 2025 (the Boston fact was retired
by the contradiction, valid until the move), and has worked as a pharmacist since January 2024
(two duplicate statements merged into one fact that keeps the earliest ``valid_from``). A turn
is never filtered by ``as_of``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ..models import Fact, MemoryRecord, SupersedeReason, Turn
from ..stores.base import Indexed, MemoryStore, RecordQuery
from ._harness import StoreHarness
from .corpus import E1, E2, E3, unit

JAN_2024 = datetime(2024, 1, 10, tzinfo=UTC)
FEB_2024 = datetime(2024, 2, 3, tzinfo=UTC)
JUNE_2024 = datetime(2024, 6, 15, tzinfo=UTC)
MAY_2025 = datetime(2025, 5, 1, tzinfo=UTC)
JUNE_2025 = datetime(2025, 6, 20, tzinfo=UTC)
LATER = datetime(2026, 1, 1, tzinfo=UTC)


def residence_corpus(user: str = "alice") -> list[Indexed]:
    """The records of the module docstring, with hand-built vectors (Boston and Portland
    close to :data:`~.corpus.E1`, the pharmacist facts on :data:`~.corpus.E2`)."""

    def fact(rid: str, text: str, **kw: object) -> Fact:
        return Fact(id=rid, user_id=user, thread_id="th1", content=text, subject="Kai", **kw)

    boston = fact("boston", "Kai lives in Boston.", created_at=JAN_2024, valid_from=JAN_2024,
                  valid_until=MAY_2025, superseded_by="portland",
                  supersede_reason=SupersedeReason.CONTRADICT, superseded_at=JUNE_2025)
    portland = fact("portland", "Kai moved to Portland.", created_at=JUNE_2025,
                    valid_from=MAY_2025, occurred_at=MAY_2025)
    early = fact("pharma-1", "Kai works as a pharmacist.", created_at=JAN_2024,
                 superseded_by="pharma", supersede_reason=SupersedeReason.DUPLICATE,
                 superseded_at=JUNE_2025)
    late = fact("pharma-2", "Kai is a pharmacist.", created_at=FEB_2024,
                superseded_by="pharma", supersede_reason=SupersedeReason.DUPLICATE,
                superseded_at=JUNE_2025)
    merged = fact("pharma", "Kai works as a pharmacist.", created_at=FEB_2024,
                  valid_from=JAN_2024, merged_from=["pharma-1", "pharma-2"])
    said = Turn(id="turn", user_id=user, thread_id="th1", role="user", seq=0,
                content="Big news: I moved to Portland in May!", created_at=JUNE_2025)
    return [
        Indexed(boston, vectors={"content": unit(1, 0.1)}),
        Indexed(portland, vectors={"content": unit(1, 0.2)}),
        Indexed(early, vectors={"content": E2}),
        Indexed(late, vectors={"content": E2}),
        Indexed(merged, vectors={"content": E2}),
        Indexed(said, vectors={"content": E3}),
    ]


def _ids(records: list[MemoryRecord]) -> set[str]:
    return {r.id for r in records}


EXPECTED = {
    None: {"portland", "pharma", "turn"},
    JAN_2024 - (FEB_2024 - JAN_2024): {"turn"},
    JAN_2024: {"boston", "pharma", "turn"},
    JUNE_2024: {"boston", "pharma", "turn"},
    MAY_2025: {"portland", "pharma", "turn"},
    LATER: {"portland", "pharma", "turn"},
}
"""``as_of`` (``None``: the default, current facts only) -> the ids a read returns. The
window is half-open: valid at ``valid_from``, no longer at ``valid_until``."""


class TemporalTests(StoreHarness):
    """``valid_from`` / ``valid_until`` and ``as_of`` reads, on every read path."""

    async def test_valid_time_round_trips(self, store: MemoryStore) -> None:
        await store.put(residence_corpus())
        got = {r.id: r for r in await store.list("alice", RecordQuery(include_superseded=True))}
        assert isinstance(got["boston"], Fact) and isinstance(got["pharma-1"], Fact)
        assert (got["boston"].valid_from, got["boston"].valid_until) == (JAN_2024, MAY_2025)
        assert (got["pharma-1"].valid_from, got["pharma-1"].valid_until) == (JAN_2024, None)
        assert got["portland"].valid_from == MAY_2025  # not its created_at (June)

    async def test_as_of_on_list_count_and_page(self, store: MemoryStore) -> None:
        await store.put(residence_corpus())
        for moment, expected in EXPECTED.items():
            query = RecordQuery(as_of=moment)
            assert _ids(await store.list("alice", query)) == expected, moment
            assert await store.count("alice", query) == len(expected), moment
            page = await store.page("alice", query.model_copy(update={"limit": 2}))
            seen = _ids(page.records)
            while page.cursor is not None:
                page = await store.page("alice", query.model_copy(update={"limit": 2}),
                                        page.cursor)
                seen |= _ids(page.records)
            assert seen == expected, moment

    async def test_as_of_with_include_superseded_shows_merged_sources(
        self, store: MemoryStore
    ) -> None:
        await store.put(residence_corpus())
        query = RecordQuery(as_of=JUNE_2024, include_superseded=True)
        assert _ids(await store.list("alice", query)) == {
            "boston", "pharma", "pharma-1", "pharma-2", "turn"}

    async def test_as_of_on_vector_and_text_search(self, store: MemoryStore) -> None:
        await store.put(residence_corpus())
        for moment, expected in EXPECTED.items():
            query = RecordQuery(as_of=moment)
            hits = await store.vector_search("alice", E1, query, k=10)
            assert _ids([h.record for h in hits]) == expected, moment
            hits = await store.text_search("alice", "Kai Portland Boston pharmacist moved",
                                           query, k=10)
            assert _ids([h.record for h in hits]) == expected, moment

    async def test_as_of_follows_an_update_of_valid_time(self, store: MemoryStore) -> None:
        """Retiring a fact by an update (what reconciliation does) moves it out of current
        reads and into the as_of reads of its window, also after a search was served."""
        corpus = [item for item in residence_corpus() if item.record.id != "boston"]
        boston = Fact(id="boston", user_id="alice", thread_id="th1", subject="Kai",
                      content="Kai lives in Boston.", created_at=JAN_2024)
        await store.put([*corpus, Indexed(boston, vectors={"content": unit(1, 0.1)})])
        current = RecordQuery()
        past = RecordQuery(as_of=JUNE_2024)
        # two current facts on one topic, each valid from its own time
        assert {"boston", "portland"} <= _ids(
            [h.record for h in await store.vector_search("alice", E1, current, k=10)])
        (stored,) = await store.get("alice", ["boston"])
        assert isinstance(stored, Fact)
        await store.update([stored.model_copy(update={
            "valid_until": MAY_2025, "superseded_by": "portland",
            "supersede_reason": SupersedeReason.CONTRADICT, "superseded_at": JUNE_2025})])
        for moment, expected in EXPECTED.items():
            query = RecordQuery(as_of=moment)
            hits = await store.vector_search("alice", E1, query, k=10)
            assert _ids([h.record for h in hits]) == expected, moment
            assert _ids(await store.list("alice", query)) == expected, moment
        assert "boston" not in _ids(
            [h.record for h in await store.vector_search("alice", E1, current, k=10)])
        assert "boston" in _ids(await store.list("alice", past))

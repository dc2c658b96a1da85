"""The store contract, written once and run against every backend (``store`` fixture)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from agent_memory.errors import (
    DimensionMismatchError,
    InvalidInputError,
    MissingScopeError,
)
from agent_memory.models import (
    Fact,
    Interaction,
    MemoryRecord,
    RecordKind,
    ReflectionStatus,
    SessionStatus,
    SupersedeReason,
    ThreadSummary,
    Turn,
    UserProfile,
    content_hash,
    profile_id,
    summary_id,
)
from agent_memory.stores.base import Indexed, MemoryStore, RecordQuery

T0 = datetime(2024, 1, 1, tzinfo=UTC)
ALL = RecordQuery()
EVERYTHING = RecordQuery(include_superseded=True)


def unit(*components: float, dim: int = 4) -> np.ndarray:
    """An L2-normalised float32 vector (missing components are 0)."""
    vec = np.zeros(dim, dtype=np.float32)
    vec[: len(components)] = components
    return vec / np.linalg.norm(vec)


E1, E2, E3 = unit(1), unit(0, 1), unit(0, 0, 1)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def ids(records: list[MemoryRecord]) -> list[str]:
    return [r.id for r in records]


def turn(rid: str, user: str = "alice", **kw: object) -> Turn:
    fields: dict[str, object] = {"thread_id": "th1", "role": "user", "content": f"memo {rid}"}
    fields.update(kw)
    return Turn(id=rid, user_id=user, **fields)


# -- round trips --------------------------------------------------------------------------


def every_kind(user: str = "alice") -> list[MemoryRecord]:
    """One record of every kind, every field set to a non-default value."""
    return [
        Turn(
            id="turn-1",
            user_id=user,
            thread_id="th1",
            agent_id="agent-a",
            role="tool",
            speaker="Caroline",
            seq=7,
            content="Tool output: 42 ✓",
            created_at=at(1),
            updated_at=at(1.5),
            metadata={"tool_name": "calc", "tool_call_id": "c-9"},
        ),
        Interaction(
            id="inter-1",
            user_id=user,
            thread_id="th1",
            content="user: hi\nassistant: hello",
            summary="greetings exchanged",
            topics=["greeting"],
            entities=["Caroline"],
            evidence=["turn-1", "turn-2"],
            created_at=at(2),
            updated_at=at(2),
        ),
        ThreadSummary(
            id=summary_id(user, "th1"),
            user_id=user,
            thread_id="th1",
            content="They met.",
            key_topics=["meeting", "plans"],
            start_time=at(0),
            end_time=at(2),
            status=SessionStatus.COMPLETED,
            reflection_status=ReflectionStatus.NO_INSIGHT,
            watermark_seq=7,
            turn_count=8,
            evidence=["turn-1"],
            created_at=at(3),
            updated_at=at(4),
        ),
        Fact(
            id="fact-1",
            user_id=user,
            thread_id="th1",
            agent_id="agent-a",
            content="Caroline moved to Sweden in 2019.",
            category="demographics",
            subject="Caroline",
            confidence=0.8,
            importance=7,
            retrieval_key="where she lives",
            occurred_at=at(-1000),
            processed=True,
            access_count=3,
            last_accessed_at=at(5),
            superseded_by="fact-2",
            supersede_reason=SupersedeReason.CONTRADICT,
            superseded_at=at(6),
            evidence=["turn-1"],
            created_at=at(4),
            updated_at=at(6),
        ),
        Fact(
            id="insight-1",
            kind=RecordKind.INSIGHT,
            user_id=user,
            thread_id="th1",
            content="Prefers low-risk funds.",
            category="risk_profile",
            confidence=0.9,
            importance=8,
            evidence=["turn-1"],
            created_at=at(5),
            updated_at=at(5),
        ),
        UserProfile(
            id=profile_id(user),
            user_id=user,
            content="Caroline, lives in Sweden.",
            structured={"name": "Caroline", "country": "SE"},
            sources=["fact-1"],
            watermark=at(6),
            evidence=["turn-1"],
            created_at=at(7),
            updated_at=at(8),
        ),
    ]


async def test_round_trip_every_kind(store: MemoryStore) -> None:
    records = every_kind()
    await store.put([Indexed(r, vectors={"content": E1}) for r in records])

    got = await store.get("alice", [r.id for r in reversed(records)])
    assert got == list(reversed(records))
    assert [type(r) for r in got] == [type(r) for r in reversed(records)]
    assert await store.list("alice", EVERYTHING) == records


async def test_get_skips_missing_ids_and_keeps_order(store: MemoryStore) -> None:
    await store.put([Indexed(turn(f"t{i}", created_at=at(i))) for i in range(3)])
    assert ids(await store.get("alice", ["t2", "missing", "t0"])) == ["t2", "t0"]
    assert await store.get("alice", []) == []


async def test_empty_put_is_a_no_op(store: MemoryStore) -> None:
    await store.put([])
    assert await store.count("alice", EVERYTHING) == 0


@pytest.mark.parametrize("blank", ["", "   "])
async def test_blank_user_id_is_refused_on_every_path(store: MemoryStore, blank: str) -> None:
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


# -- filters (the same semantics through list, count, vector and text search) -----------


def corpus() -> list[Indexed]:
    """Alice's records across kinds, threads, agents and times; Bob's with the same words."""
    fact0 = Fact(
        id="f0",
        user_id="alice",
        thread_id="th1",
        agent_id="agent-a",
        content="memo prefers tea",
        category="preference",
        created_at=at(5),
    )
    records: list[MemoryRecord] = [
        turn("t0", seq=0, created_at=at(0)),
        turn("t1", seq=1, agent_id="agent-a", created_at=at(1)),
        turn("t2", thread_id="th2", seq=0, agent_id="agent-b", created_at=at(2)),
        Interaction(
            id="i0", user_id="alice", thread_id="th1", content="memo chunk", created_at=at(3)
        ),
        ThreadSummary(
            id="s1", user_id="alice", thread_id="th1", content="memo recap", created_at=at(4)
        ),
        fact0,
        Fact(
            id="f1",
            kind=RecordKind.INSIGHT,
            user_id="alice",
            content="memo saves money",
            category="financial_goals",
            processed=True,
            created_at=at(6),
        ),
        Fact(
            id="f2",
            user_id="alice",
            content="memo prefers coffee",
            category="preference",
            superseded_by="f0",
            supersede_reason=SupersedeReason.CONTRADICT,
            created_at=at(7),
        ),
        UserProfile(id="p", user_id="alice", content="memo profile", created_at=at(8)),
        turn("bt0", user="bob", seq=0, created_at=at(0)),
        Fact(
            id="bf0",
            user_id="bob",
            content="memo prefers tea",
            category="preference",
            processed=True,
            created_at=at(5),
        ),
    ]
    return [Indexed(r, vectors={"content": E1}) for r in records]


ACTIVE = ["t0", "t1", "t2", "i0", "s1", "f0", "f1", "p"]
FILTER_CASES = {
    "none": (ALL, ACTIVE),
    "include_superseded": (EVERYTHING, ["t0", "t1", "t2", "i0", "s1", "f0", "f1", "f2", "p"]),
    "kinds-turn": (RecordQuery(kinds=frozenset({RecordKind.TURN})), ["t0", "t1", "t2"]),
    "kinds-fact-insight": (
        RecordQuery(kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT})),
        ["f0", "f1"],
    ),
    "kinds-insight": (RecordQuery(kinds=frozenset({RecordKind.INSIGHT})), ["f1"]),
    "kinds-empty": (RecordQuery(kinds=frozenset()), []),
    "ids": (RecordQuery(ids=frozenset({"t1", "f1", "f2", "bt0", "nope"})), ["t1", "f1"]),
    "thread": (RecordQuery(thread_id="th1"), ["t0", "t1", "i0", "s1", "f0"]),
    "thread-unknown": (RecordQuery(thread_id="th9"), []),
    "agent-or-shared": (RecordQuery(agent_id="agent-a"), ["t0", "t1", "i0", "s1", "f0", "f1", "p"]),
    "agent-unknown-shared-only": (RecordQuery(agent_id="agent-z"), ["t0", "i0", "s1", "f1", "p"]),
    "since-inclusive": (RecordQuery(since=at(2)), ["t2", "i0", "s1", "f0", "f1", "p"]),
    "until-exclusive": (RecordQuery(until=at(2)), ["t0", "t1"]),
    "since-until": (RecordQuery(since=at(1), until=at(3)), ["t1", "t2"]),
    "after-seq": (RecordQuery(after_seq=0), ["t1"]),
    "thread-after-seq": (RecordQuery(thread_id="th1", after_seq=-1), ["t0", "t1"]),
    "content-hash": (RecordQuery(content_hash=content_hash("MEMO  prefers tea")), ["f0"]),
    "categories": (RecordQuery(categories=frozenset({"preference"})), ["f0"]),
    "categories-superseded": (
        RecordQuery(categories=frozenset({"preference"}), include_superseded=True),
        ["f0", "f2"],
    ),
    "processed-true": (RecordQuery(processed=True), ["f1"]),
    "processed-false": (RecordQuery(processed=False), ["f0"]),
    "combined": (
        RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id="th1", agent_id="agent-a"),
        ["t0", "t1"],
    ),
}


@pytest.mark.parametrize(("query", "expected"), FILTER_CASES.values(), ids=FILTER_CASES.keys())
async def test_filter_on_every_read_path(
    store: MemoryStore, query: RecordQuery, expected: list[str]
) -> None:
    await store.put(corpus())
    assert ids(await store.list("alice", query)) == expected
    assert await store.count("alice", query) == len(expected)
    vector_hits = await store.vector_search("alice", E1, query, k=50)
    assert sorted(h.record.id for h in vector_hits) == sorted(expected)
    text_hits = await store.text_search("alice", "memo", query, k=50)
    assert sorted(h.record.id for h in text_hits) == sorted(expected)


# -- ordering, limit, count ---------------------------------------------------------------


async def test_list_orders_by_created_at_then_seq_and_limits(store: MemoryStore) -> None:
    same_time = [turn(f"s{i}", seq=i, created_at=at(10)) for i in range(5)]
    earlier = [turn("early", seq=9, created_at=at(1)), turn("late", seq=0, created_at=at(20))]
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


# -- vector search ------------------------------------------------------------------------


def fan(n: int = 5) -> list[tuple[str, np.ndarray, float]]:
    """Records whose cosine to E1 falls with their index: (id, vector, cosine)."""
    out = []
    for i, slope in enumerate([0.0, 0.5, 1.0, 2.0, 4.0][:n]):
        out.append((f"v{i}", unit(1, slope), 1 / np.sqrt(1 + slope * slope)))
    return out


@pytest.mark.requires("exact_knn")
async def test_vector_search_ranks_by_cosine(store: MemoryStore) -> None:
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


@pytest.mark.requires("exact_knn")
async def test_vector_search_multi_field_returns_each_record_once(store: MemoryStore) -> None:
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
    assert [(h.record.id, h.field) for h in summary_only] == [("a", "summary"), ("b", "summary")]
    assert await store.vector_search("alice", E1, ALL, k=5, fields=("nothing",)) == []


@pytest.mark.requires("exact_knn")
async def test_vector_search_fills_k_when_one_record_holds_the_top_rows(store: MemoryStore) -> None:
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


# -- text search --------------------------------------------------------------------------

TEXTS = {
    "cat": "The cat sat on the mat by the window.",
    "dog": "The dog sat on the log and the cat watched.",
    "zebra": "A zebra walked past the cat at the zoo.",
    "fish": "Fish swim in the pond all day long.",
}


async def put_texts(store: MemoryStore) -> None:
    await store.put([Indexed(turn(k, content=v)) for k, v in TEXTS.items()])


@pytest.mark.requires("bm25")
async def test_text_search_ranks_the_rare_term_first(store: MemoryStore) -> None:
    await put_texts(store)
    hits = await store.text_search("alice", "zebra cat", ALL, k=10)
    assert hits[0].record.id == "zebra"
    assert {h.record.id for h in hits} == {"zebra", "cat", "dog"}
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    assert all(h.field is None for h in hits)
    assert len(await store.text_search("alice", "zebra cat", ALL, k=1)) == 1


async def test_text_scores_do_not_depend_on_other_users(store: MemoryStore) -> None:
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
async def test_text_search_treats_syntax_as_words(store: MemoryStore, query: str) -> None:
    await put_texts(store)
    hits = await store.text_search("alice", query, ALL, k=10)
    assert hits and hits[0].record.id == "zebra"


@pytest.mark.parametrize("query", ["", "   ", "the and of", '?!*"()', "-"])
async def test_text_search_without_searchable_words_is_empty(
    store: MemoryStore, query: str
) -> None:
    await put_texts(store)
    assert await store.text_search("alice", query, ALL, k=10) == []


async def test_speakers_lists_the_users_turn_speakers_once(store: MemoryStore) -> None:
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


# -- upsert and delete --------------------------------------------------------------------


async def test_upsert_replaces_doc_text_and_vectors(store: MemoryStore) -> None:
    first = Interaction(id="x", user_id="alice", thread_id="th1", content="alpha words")
    await store.put([Indexed(first, vectors={"content": E1, "summary": E3})])
    second = first.model_copy(update={"content": "beta words", "thread_id": "th2"})
    await store.put([Indexed(second, vectors={"content": E2})])

    assert await store.count("alice", EVERYTHING) == 1
    assert await store.get("alice", ["x"]) == [second]
    assert await store.list("alice", RecordQuery(thread_id="th1")) == []
    assert await store.text_search("alice", "alpha", ALL, k=5) == []
    assert ids([h.record for h in await store.text_search("alice", "beta", ALL, k=5)]) == ["x"]
    [hit] = await store.vector_search("alice", E2, ALL, k=5)
    assert hit.score == pytest.approx(1.0, abs=1e-5)
    assert await store.vector_search("alice", E3, ALL, k=5, fields=("summary",)) == []


async def test_upsert_with_index_text(store: MemoryStore) -> None:
    fact = Fact(id="f", user_id="alice", content="Caroline lives in Sweden.")
    await store.put([Indexed(fact, text="where does caroline live country")])
    assert ids([h.record for h in await store.text_search("alice", "country", ALL, 5)]) == ["f"]
    assert await store.text_search("alice", "Sweden", ALL, 5) == []


async def test_delete_removes_records_vectors_and_text(store: MemoryStore) -> None:
    await store.put(corpus())
    assert await store.delete("alice", ["t0", "f2", "missing"]) == 2
    assert await store.get("alice", ["t0", "f2"]) == []
    assert await store.count("alice", EVERYTHING) == 7
    assert "t0" not in [h.record.id for h in await store.vector_search("alice", E1, EVERYTHING, 50)]
    assert "t0" not in [h.record.id for h in await store.text_search("alice", "t0", EVERYTHING, 50)]
    assert await store.delete("alice", ["t0"]) == 0
    assert await store.delete("alice", []) == 0


async def test_superseded_hidden_by_default_and_shown_with_flag(store: MemoryStore) -> None:
    await store.put(corpus())
    assert "f2" not in ids(await store.list("alice", ALL))
    assert "f2" in ids(await store.list("alice", EVERYTHING))
    assert [r.id for r in await store.get("alice", ["f2"])] == ["f2"]  # get is by id, unfiltered
    coffee = await store.text_search("alice", "coffee", ALL, 5)
    assert coffee == []
    coffee = await store.text_search("alice", "coffee", EVERYTHING, 5)
    assert [h.record.id for h in coffee] == ["f2"]


async def test_update_changes_docs_and_filters_but_keeps_vectors_and_text(
    store: MemoryStore,
) -> None:
    fact = Fact(id="fu", user_id="alice", thread_id="th1", content="likes green tea")
    await store.put([Indexed(fact, vectors={"content": E1})])
    assert [h.record.id for h in await store.vector_search("alice", E1, ALL, 5)] == ["fu"]
    # A document-only change (access statistics) is stored.
    touched = fact.model_copy(update={"access_count": 3, "last_accessed_at": at(5)})
    assert await store.update([touched]) == 1
    (got,) = await store.get("alice", ["fu"])
    assert got.access_count == 3 and got.last_accessed_at == at(5)
    # A filter change (supersede) hides it from default reads at once, vectors and text kept.
    retired = touched.model_copy(update={"superseded_by": "other",
                                         "supersede_reason": SupersedeReason.DUPLICATE})
    assert await store.update([retired]) == 1
    assert await store.vector_search("alice", E1, ALL, 5) == []
    assert await store.text_search("alice", "green tea", ALL, 5) == []
    assert [h.record.id for h in await store.vector_search("alice", E1, EVERYTHING, 5)] == ["fu"]
    hits = await store.text_search("alice", "green tea", EVERYTHING, 5)
    assert [h.record.superseded_by for h in hits] == ["other"]
    # Unknown ids and other users' ids are skipped; nothing is created.
    ghost = fact.model_copy(update={"id": "ghost"})
    bobs = fact.model_copy(update={"user_id": "bob"})
    assert await store.update([ghost, bobs]) == 0
    assert await store.get("alice", ["ghost"]) == [] and await store.get("bob", ["fu"]) == []


# -- isolation between users --------------------------------------------------------------


async def test_users_never_see_each_other(store: MemoryStore) -> None:
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
    await store.put([Indexed(secret, vectors={"content": E3}), Indexed(twin_a), Indexed(twin_b)])

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


# -- bad input changes nothing ------------------------------------------------------------


async def test_wrong_dimension_raises_and_writes_nothing(store: MemoryStore) -> None:
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


async def test_batch_with_one_bad_item_is_not_stored_at_all(store: MemoryStore) -> None:
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


# -- purge (forgetting; issue 5) ----------------------------------------------------------


def purge_corpus() -> list[Indexed]:
    retired = Fact(id="f-old", user_id="alice", thread_id="th1", content="lived in Oslo",
                   created_at=at(2), superseded_by="f-new",
                   supersede_reason=SupersedeReason.CONTRADICT, superseded_at=at(3))
    return [
        Indexed(turn("p1", created_at=at(0)), vectors={"content": E1}),
        Indexed(turn("p2", created_at=at(5)), vectors={"content": E2}),
        Indexed(turn("p3", thread_id="th2", created_at=at(1)), vectors={"content": E3}),
        Indexed(retired, vectors={"content": E1}),
        Indexed(Fact(id="f-new", user_id="alice", thread_id="th2", content="lives in Rome",
                     created_at=at(4)), vectors={"content": E2}),
        Indexed(turn("p1", user="bob", created_at=at(0)), vectors={"content": E1}),
    ]


async def test_purge_a_thread_counts_per_kind_and_includes_superseded(store: MemoryStore) -> None:
    await store.put(purge_corpus())
    assert await store.purge("alice", thread_id="th1") == {"turn": 2, "fact": 1}
    assert sorted(ids(await store.list("alice", EVERYTHING))) == ["f-new", "p3"]
    assert not any(h.record.thread_id == "th1"
                   for h in await store.vector_search("alice", E1, EVERYTHING, 10))
    assert await store.text_search("alice", "Oslo", EVERYTHING, 5) == []
    assert ids(await store.list("bob", EVERYTHING)) == ["p1"]


async def test_purge_by_kind_and_cut_off(store: MemoryStore) -> None:
    await store.put(purge_corpus())
    removed = await store.purge("alice", kinds=frozenset({RecordKind.TURN}), before=at(2))
    assert removed == {"turn": 2}
    assert sorted(ids(await store.list("alice", EVERYTHING))) == ["f-new", "f-old", "p2"]


async def test_purge_a_user_leaves_other_users(store: MemoryStore) -> None:
    await store.put(purge_corpus())
    assert await store.purge("alice") == {"turn": 3, "fact": 2}
    assert await store.count("alice", EVERYTHING) == 0
    assert await store.purge("alice") == {}
    assert await store.count("bob", EVERYTHING) == 1
    with pytest.raises(MissingScopeError):
        await store.purge(" ")

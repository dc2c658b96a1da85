"""The records the conformance tests write: hand-built vectors, one record of every kind, a
filter corpus with its expected answers.

Vectors are four-dimensional and hand-built (:func:`unit`), so every cosine order is known
without an embedder. Times are hours after :data:`T0` (:func:`at`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from ..models import (
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
from ..stores.base import Indexed, RecordQuery

T0 = datetime(2024, 1, 1, tzinfo=UTC)


ALL = RecordQuery()


EVERYTHING = RecordQuery(include_superseded=True)


def unit(*components: float, dim: int = 4) -> np.ndarray:
    """An L2-normalised float32 vector (missing components are 0)."""
    vec = np.zeros(dim, dtype=np.float32)
    vec[: len(components)] = components
    return vec / np.linalg.norm(vec)


E1, E2, E3 = unit(1), unit(0, 1), unit(0, 0, 1)
"""The three first axes: cosine 1 with themselves, 0 with each other."""


def at(hours: float) -> datetime:
    """``hours`` after :data:`T0`."""
    return T0 + timedelta(hours=hours)


def ids(records: list[MemoryRecord]) -> list[str]:
    """The records' ids, in order."""
    return [r.id for r in records]


def turn(rid: str, user: str = "alice", **kw: object) -> Turn:
    """A turn of ``user`` in thread ``th1`` saying ``memo {rid}``; ``kw`` overrides fields."""
    fields: dict[str, object] = {"thread_id": "th1", "role": "user", "content": f"memo {rid}"}
    fields.update(kw)
    return Turn(id=rid, user_id=user, **fields)


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
"""Alice's active records in :func:`corpus`, in ``list`` order."""
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
"""Case name -> (query, alice's matching ids in ``list`` order) over :func:`corpus`."""


def fan(n: int = 5) -> list[tuple[str, np.ndarray, float]]:
    """Records whose cosine to E1 falls with their index: (id, vector, cosine)."""
    out = []
    for i, slope in enumerate([0.0, 0.5, 1.0, 2.0, 4.0][:n]):
        out.append((f"v{i}", unit(1, slope), 1 / np.sqrt(1 + slope * slope)))
    return out


TEXTS = {
    "cat": "The cat sat on the mat by the window.",
    "dog": "The dog sat on the log and the cat watched.",
    "zebra": "A zebra walked past the cat at the zoo.",
    "fish": "Fish swim in the pond all day long.",
}
"""Turn id -> content for the full-text ranking tests: ``zebra`` is rare, ``cat`` common."""


def purge_corpus() -> list[Indexed]:
    """Alice's records over two threads (one fact superseded) and one of Bob's."""
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

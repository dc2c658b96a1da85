"""The Cosmos DB job queue and the change-feed turn counter on the local Cosmos DB test server.

The whole :class:`JobQueueConformance` runs against :class:`CosmosJobQueue`, each test in its
own database. The queue is reached through ``queue_for`` on the :class:`CosmosStore` that
declares :attr:`Capability.JOB_QUEUE`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.errors import InvalidInputError
from agent_memory.jobs import CounterUpdate, JobKind, JobSpec, Thresholds, queue_for
from agent_memory.models import RecordKind
from agent_memory.stores.base import EmbeddingSpec, RecordQuery
from agent_memory.stores.cosmos import CosmosSettings, CosmosStore
from agent_memory.stores.cosmos.changefeed import ChangeFeedCounter
from agent_memory.stores.cosmos.jobs import CosmosJobQueue
from agent_memory.testing import StoreFactory
from agent_memory.testing.jobs import JobQueueConformance, now_plus


@pytest.fixture
def store_factory(cosmos_server) -> StoreFactory:
    """Clients of a Cosmos DB store on a database of their own on the test server."""
    database = f"jobs-{uuid.uuid4().hex[:12]}"
    return lambda: CosmosStore(CosmosSettings(endpoint=cosmos_server.endpoint,
                                              key=cosmos_server.key, database=database))


class TestCosmosJobQueue(JobQueueConformance):
    pass


@pytest.fixture
async def jobs_store(store_factory) -> CosmosStore:
    store = store_factory()
    await store.open(EmbeddingSpec(model="test:hand-built", dim=4))
    yield store
    await store.close()


async def test_queue_for_dispatches_to_the_store_and_charges_are_recorded(jobs_store) -> None:
    queue = queue_for(jobs_store)
    assert isinstance(queue, CosmosJobQueue) and queue.container is jobs_store.jobs_container
    await queue.enqueue([JobSpec(key="k", kind=JobKind.THREAD_SUMMARY, user_id="ana",
                                 thread_id="t1")])
    assert jobs_store.request_charges["jobs"].request_units > 0


async def test_advance_refuses_several_users_and_writes_nothing(jobs_store) -> None:
    queue = queue_for(jobs_store)
    with pytest.raises(InvalidInputError, match="one user"):
        await queue.advance([], [JobSpec(key="a", kind=JobKind.RECONCILE, user_id="ana"),
                                 JobSpec(key="b", kind=JobKind.RECONCILE, user_id="bo")])
    assert await queue.jobs() == []


async def test_ids_with_characters_cosmos_forbids_are_stored(jobs_store) -> None:
    queue = queue_for(jobs_store)
    thread = "a/b?c#d\\e" + "x" * 300
    assert await queue.advance(
        [CounterUpdate(user_id="ana", thread_id=thread, expected_version=0, seen=4)],
        [JobSpec(key=f"thread_summary:ana:{thread}:1", kind=JobKind.THREAD_SUMMARY,
                 user_id="ana", thread_id=thread, upto=4)])
    (counter,) = await queue.counters("ana", [thread])
    assert (counter.seen, counter.version) == (4, 1)
    await queue.set_mark("ana", thread, "extract_facts", 3)
    assert await queue.get_mark("ana", thread, "extract_facts") == 3
    assert [j.thread_id for j in await queue.jobs("ana")] == [thread]



# -- the change-feed turn counter ----------------------------------------------------------

THRESHOLDS = {"thread_summary_every_n": 3, "fact_extraction_every_n": 2,
              "user_summary_every_n": 5, "dedup_every_n": 4}


def turn_doc(user: str, thread: str, seq: int) -> dict[str, Any]:
    """A turn document as the records container holds it."""
    return {"id": f"turn-{user}-{thread}-{seq}", "user_id": user, "kind": "turn",
            "thread_id": thread, "seq": seq, "role": "user", "content": f"turn {seq}",
            "position": json.dumps([thread, seq])}


def counter(store: CosmosStore, **options: Any) -> ChangeFeedCounter:
    thresholds = Thresholds.from_settings(Settings.load(**THRESHOLDS))
    return ChangeFeedCounter.for_store(store, thresholds, **options)


async def test_a_second_worker_resumes_from_the_stored_continuation(jobs_store) -> None:
    docs = [turn_doc("ana", "t1", s) for s in range(7)] + \
        [turn_doc("ana", "t2", s) for s in range(4)] + [turn_doc("bo", "t1", s) for s in range(5)]
    for doc in docs[:6] + [{"id": "fact-1", "user_id": "ana", "kind": "fact",
                                         "position": "id:fact-1"}] + docs[6:]:
        await jobs_store.records_container.create_item(doc)

    first = counter(jobs_store, worker_id="first", page_size=4, lease_seconds=30)
    second = counter(jobs_store, worker_id="second", page_size=4, lease_seconds=30)
    assert await first.acquire()
    counted_first = (await first.step()) + (await first.step())  # then it dies
    # 8 changes: the store's meta document (written on open), six turns and a fact
    assert counted_first == [d["id"] for d in docs[:6]]
    assert not await second.acquire()  # the lease is held until it expires
    assert await second.acquire(now=now_plus(31))
    assert await first.step() is None  # the lease moved on: the first worker stops
    counted_second = []
    while not second.drained or not counted_second:
        counted_second += await second.step()
    assert counted_first + counted_second == [d["id"] for d in docs]  # each turn once

    queue = queue_for(jobs_store)
    got = await queue.counters("ana", ["t1", "t2", None]) + await queue.counters("bo", ["t1"])
    assert [c.seen for c in got] == [7, 4, 11, 5]

    await jobs_store.records_container.create_item(turn_doc("bo", "t1", 5))
    await second.release()
    third = counter(jobs_store, worker_id="third")
    assert await third.run(until_idle=True) == 1  # only the new turn
    assert (await queue.counters("bo", ["t1"]))[0].seen == 6


async def test_every_n_thresholds_give_the_same_jobs_as_the_sqlite_path(
        tmp_path, local_embedder, jobs_store) -> None:
    batches = [[("ana", "t1")] * 4, [("ana", "t2")] * 3 + [("bo", "t1")] * 2,
               [("ana", "t1")] * 5 + [("ana", "t2")], [("bo", "t1")] * 7, [("ana", "t2")] * 2]
    settings = Settings.load(store=str(tmp_path / "memory.db"), **THRESHOLDS)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        for n, batch in enumerate(batches):
            await mem.add_turns([{"user_id": u, "thread_id": t, "role": "user",
                                  "content": f"batch {n} turn {i}"}
                                 for i, (u, t) in enumerate(batch)])
        sqlite_jobs = await mem.jobs()
        turns = [t for user in ("ana", "bo") for t in await mem.store.list(
            user, RecordQuery(kinds=frozenset({RecordKind.TURN})))]
    assert len(sqlite_jobs) > 8  # every kind crossed at least once
    assert {j.kind for j in sqlite_jobs} == set(JobKind)

    for turn in sorted(turns, key=lambda t: (t.created_at, t.seq)):
        body = turn.model_dump(mode="json", exclude={"etag"})
        await jobs_store.records_container.create_item({**body, "id": turn.id, "position": json.dumps([turn.thread_id, turn.seq])})
    assert await counter(jobs_store, page_size=5).run(until_idle=True) == len(turns)

    def shape(jobs: Sequence) -> list[tuple]:
        return sorted((j.key, j.kind, j.user_id, j.thread_id, j.upto) for j in jobs)

    assert shape(await queue_for(jobs_store).jobs()) == shape(sqlite_jobs)


async def test_writers_skip_counting_when_the_change_feed_counts(tmp_path, local_embedder
                                                                 ) -> None:
    settings = Settings.load(store=str(tmp_path / "memory.db"), turn_counting="change_feed",
                             **THRESHOLDS)
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        await mem.add_turns([{"user_id": "ana", "thread_id": "t1", "role": "user",
                              "content": f"turn {i}"} for i in range(6)])
        assert await mem.jobs() == []
        assert (await queue_for(mem.store).counters("ana", ["t1"]))[0].seen == 0


def test_worker_change_feed_on_a_sqlite_store_is_refused_with_a_clear_message(tmp_path
                                                                             ) -> None:
    from typer.testing import CliRunner

    from agent_memory.cli.app import app

    result = CliRunner().invoke(app, ["worker", "--change-feed", "--until-idle", "--store",
                                      str(tmp_path / "memory.db")])
    assert result.exit_code != 0
    assert "has no change feed" in result.output

"""The Cosmos DB job queue and the change-feed turn counter on the local Cosmos DB test server.

The whole :class:`JobQueueConformance` runs against :class:`CosmosJobQueue`, each test in its
own database. The queue is reached through ``queue_for`` on :class:`JobsStore`, a store that
opens only the Cosmos DB containers automatic processing uses (``jobs``, ``records``,
``leases``) and declares :attr:`Capability.JOB_QUEUE`; its record operations are the Cosmos DB
store's and are not part of these tests.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from azure.cosmos import PartitionKey
from azure.cosmos.aio import CosmosClient

from agent_memory.errors import InvalidInputError
from agent_memory.jobs import CounterUpdate, JobKind, JobSpec, queue_for
from agent_memory.stores.base import Capability, EmbeddingSpec, MemoryStore
from agent_memory.stores.cosmos.jobs import CosmosJobQueue, job_queue_for
from agent_memory.testing import StoreFactory
from agent_memory.testing.jobs import JobQueueConformance


class JobsStore(MemoryStore):
    """The automatic-processing containers of one Cosmos DB database, as a store."""

    capabilities = frozenset({Capability.JOB_QUEUE})

    def __init__(self, endpoint: str, key: str, database: str) -> None:
        self.endpoint, self.key, self.database = endpoint, key, database
        self.client: CosmosClient | None = None
        self.charges: list[float] = []

    async def open(self, embedding: EmbeddingSpec) -> None:
        self._spec = embedding
        self.client = CosmosClient(self.endpoint, self.key, connection_verify=False)
        db = await self.client.create_database_if_not_exists(self.database)
        self.jobs_container = await db.create_container_if_not_exists(
            "jobs", PartitionKey("/user_id"))
        self.records_container = await db.create_container_if_not_exists(
            "records", PartitionKey("/user_id"))
        self.leases_container = await db.create_container_if_not_exists(
            "leases", PartitionKey("/id"))

    def charge(self, headers: Any) -> None:
        self.charges.append(float(headers.get("x-ms-request-charge", 0)))

    def job_queue(self) -> CosmosJobQueue:
        return job_queue_for(self)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None

    @property
    def embedding(self) -> EmbeddingSpec:
        return self._spec

    async def _records(self, *_: Any, **__: Any) -> Any:
        raise NotImplementedError("record operations belong to the Cosmos DB store")

    put = update = get = list = count = vector_search = text_search = delete = _records


@pytest.fixture
def store_factory(cosmos_server) -> StoreFactory:
    """Clients on a database of their own on the test server."""
    database = f"jobs-{uuid.uuid4().hex[:12]}"
    return lambda: JobsStore(cosmos_server.endpoint, cosmos_server.key, database)


class TestCosmosJobQueue(JobQueueConformance):
    pass


@pytest.fixture
async def jobs_store(store_factory) -> JobsStore:
    store = store_factory()
    await store.open(EmbeddingSpec(model="test:hand-built", dim=4))
    yield store
    await store.close()


async def test_queue_for_dispatches_to_the_store_and_charges_are_recorded(jobs_store) -> None:
    queue = queue_for(jobs_store)
    assert isinstance(queue, CosmosJobQueue) and queue.container is jobs_store.jobs_container
    await queue.enqueue([JobSpec(key="k", kind=JobKind.THREAD_SUMMARY, user_id="ana",
                                 thread_id="t1")])
    assert jobs_store.charges and all(c > 0 for c in jobs_store.charges)


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


"""The Cosmos DB job queue: counters, step watermarks and jobs in the ``jobs`` container.

Each user's counters, marks and jobs share the user's logical partition (partition key
``/user_id``; documents in :mod:`.jobs_docs`), so :meth:`CosmosJobQueue.advance` is one
transactional batch: counter replaces conditional on the ETag read for ``expected_version``
(a create for version 0, which fails when the counter exists), the user's queue document
(its latest job ``seq``, conditional too) and the job creates. Any failed precondition aborts
the whole batch (Cosmos DB's atomic batch semantics).

Queue order: a job's ``seq`` is ``max(now in microseconds * 1000 + n, the user's last seq +
1)``, so one user's jobs are strictly ordered (the queue document is replaced under its ETag
with every enqueue) and different users' jobs interleave by time. Claiming reads unfinished
jobs in ``seq`` order (a cross-partition query: workers only) and takes the first user's head
that is runnable with a replace conditional on its ETag; a lost race tries the next one.
Lease changes (renew, complete, fail, release) re-read the job and replace it only while
``worker_id`` holds the lease, conditional on the ETag read.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from azure.core import MatchConditions
from azure.cosmos.exceptions import CosmosBatchOperationError, CosmosHttpResponseError

from ...errors import InvalidInputError, StoreError
from ...jobqueue.base import JobQueue
from ...jobqueue.models import Counter, CounterUpdate, Job, JobSpec, JobState
from ...models import require_scope, utcnow
from .jobs_docs import (
    BATCH_LIMIT,
    QUEUE_ID,
    ChargeHook,
    counter_id,
    job_doc,
    job_from,
    job_id,
    mark_id,
    status,
    translated,
    ts,
)

MAX_RETRIES = 50
"""Re-reads after a lost conditional write before giving up (each means another writer
made progress)."""

_ticks = itertools.count()


class CosmosJobQueue(JobQueue):
    """A :class:`JobQueue` in a Cosmos DB container.

    Args:
        container: an ``azure.cosmos.aio`` ``ContainerProxy`` of the ``jobs`` container
            (partition key ``/user_id``).
        charge: called with the response headers of every SDK call, for request charges.
    """

    def __init__(self, container: Any, charge: ChargeHook | None = None) -> None:
        self.container = container
        self._charge = charge

    def _kw(self) -> dict[str, Any]:
        if self._charge is None:
            return {}
        charge = self._charge
        return {"response_hook": lambda headers, *_: charge(headers)}

    async def _query(self, sql: str, params: dict[str, Any], user_id: str | None = None
                     ) -> AsyncIterator[dict[str, Any]]:
        scope = {} if user_id is None else {"partition_key": user_id}
        items = self.container.query_items(
            sql, parameters=[{"name": k, "value": v} for k, v in params.items()],
            **scope, **self._kw())
        async for item in items:
            yield item

    async def _read(self, doc_id: str, user_id: str) -> dict[str, Any] | None:
        try:
            return await self.container.read_item(doc_id, partition_key=user_id, **self._kw())
        except CosmosHttpResponseError as exc:
            if status(exc) == 404:
                return None
            raise

    async def _replace(self, doc: dict[str, Any]) -> bool:
        """Replace ``doc`` if its stored ``_etag`` is unchanged; False when it changed."""
        try:
            await self.container.replace_item(doc["id"], doc, etag=doc["_etag"],
                                              match_condition=MatchConditions.IfNotModified,
                                              **self._kw())
        except CosmosHttpResponseError as exc:
            if status(exc) in (404, 412):
                return False
            raise
        return True

    # -- counters --------------------------------------------------------------------------

    async def counters(self, user_id: str, thread_ids: Sequence[str | None]) -> list[Counter]:
        """See :meth:`JobQueue.counters` (one query in the user's partition)."""
        user_id = require_scope(user_id)
        ids = list(dict.fromkeys(counter_id(t) for t in thread_ids))
        with translated("read counters"):
            found = {d["id"]: d async for d in self._query(
                "SELECT * FROM c WHERE c.user_id = @user_id AND ARRAY_CONTAINS(@ids, c.id)",
                {"@user_id": user_id, "@ids": ids}, user_id)}
        out = []
        for thread in thread_ids:
            doc = found.get(counter_id(thread), {})
            out.append(Counter(user_id=user_id, thread_id=thread, seen=doc.get("seen", 0),
                               version=doc.get("version", 0)))
        return out

    async def advance(self, updates: Sequence[CounterUpdate], jobs: Sequence[JobSpec]) -> bool:
        """See :meth:`JobQueue.advance`: one transactional batch in the user's partition.

        Raises:
            InvalidInputError: the updates and jobs span several users (a Cosmos DB
                transaction covers one logical partition).
        """
        users = {u.user_id for u in updates} | {j.user_id for j in jobs}
        if len(users) > 1:
            raise InvalidInputError("advance() takes one user's counters and jobs; got "
                                    f"{sorted(users)}")
        if not users:
            return True
        user_id = require_scope(users.pop())
        with translated("advance counters"):
            ops: list[tuple] = []
            for u in updates:
                cid = counter_id(u.thread_id)
                body = {"id": cid, "user_id": user_id, "type": "counter",
                        "thread_id": u.thread_id, "seen": u.seen,
                        "version": u.expected_version + 1}
                if u.expected_version == 0:
                    ops.append(("create", (body,)))
                    continue
                stored = await self._read(cid, user_id)
                if stored is None or stored.get("version") != u.expected_version:
                    return False
                ops.append(("replace", (cid, body), {"if_match_etag": stored["_etag"]}))
            return await self._enqueue_user(user_id, jobs, ops) is not None

    async def _enqueue_user(self, user_id: str, jobs: Sequence[JobSpec], ops: list[tuple]
                            ) -> int | None:
        """Create the user's jobs not stored yet together with ``ops`` in one batch.

        Returns how many jobs were created, or ``None`` when a precondition of ``ops``
        failed (nothing written). A job created concurrently by another writer makes the
        batch fail on the job only; then the stored keys are re-read and the batch retried.
        Jobs beyond the batch limit are enqueued first, in their own batches.
        """
        added = 0
        room = BATCH_LIMIT - len(ops) - 1
        if room < 1 and jobs:
            raise StoreError(f"{len(ops)} counter updates leave no room for jobs in one "
                             f"transactional batch of at most {BATCH_LIMIT} operations")
        specs = list({j.key: j for j in jobs}.values())
        while len(specs) > room:  # overflow first: an extra job only re-runs a step
            chunk, specs = specs[:BATCH_LIMIT - 1], specs[BATCH_LIMIT - 1:]
            added += await self._enqueue_user(user_id, chunk, []) or 0
        for attempt in range(MAX_RETRIES):
            stored = {d["key"] async for d in self._query(
                "SELECT c.key FROM c WHERE c.user_id = @user_id AND c.type = 'job' "
                "AND ARRAY_CONTAINS(@keys, c.key)",
                {"@user_id": user_id, "@keys": [j.key for j in specs]}, user_id)} \
                if specs else set()
            new = [j for j in specs if j.key not in stored]
            batch = list(ops)
            if new:
                batch += await self._job_ops(user_id, new)
            if not batch:
                return added
            try:
                await self.container.execute_item_batch(batch, partition_key=user_id,
                                                        **self._kw())
            except CosmosBatchOperationError as exc:
                if exc.error_index is not None and exc.error_index < len(ops):
                    return None  # a counter precondition failed
                await asyncio.sleep(0.002 * (attempt + 1))  # a job or the queue doc raced
                continue
            return added + len(new)
        raise StoreError(f"jobs of user {user_id!r} kept conflicting with concurrent "
                         f"writers; gave up after {MAX_RETRIES} attempts")

    async def _job_ops(self, user_id: str, specs: Sequence[JobSpec]) -> list[tuple]:
        """The queue-document write and the job creates for ``specs`` (in order)."""
        head = await self._read(QUEUE_ID, user_id)
        last = head["last_seq"] if head else 0
        now = utcnow()
        ops: list[tuple] = []
        for spec in specs:
            last = max(int(time.time() * 1e6) * 1000 + next(_ticks) % 1000, last + 1)
            job = Job(**spec.model_dump(), seq=last, state=JobState.QUEUED,
                      available_at=now, created_at=now)
            ops.append(("create", ({**job_doc(job), "user_id": user_id},)))
        queue = {"id": QUEUE_ID, "user_id": user_id, "type": "queue", "last_seq": last}
        if head is None:
            return [("create", (queue,)), *ops]
        return [("replace", (QUEUE_ID, queue), {"if_match_etag": head["_etag"]}), *ops]

    async def enqueue(self, jobs: Sequence[JobSpec]) -> int:
        """See :meth:`JobQueue.enqueue` (one batch per user; atomic per user only)."""
        by_user: dict[str, list[JobSpec]] = {}
        for spec in jobs:
            by_user.setdefault(require_scope(spec.user_id), []).append(spec)
        added = 0
        with translated("enqueue"):
            for user_id, specs in by_user.items():
                added += await self._enqueue_user(user_id, specs, []) or 0
        return added

    # -- leases ----------------------------------------------------------------------------

    async def claim(self, worker_id: str, lease_seconds: float, now: datetime | None = None
                    ) -> Job | None:
        """See :meth:`JobQueue.claim` (per-user FIFO; expired leases are taken over)."""
        at = ts(now or utcnow())
        seen: set[str] = set()
        with translated("claim"):
            async for doc in self._query(
                "SELECT * FROM c WHERE c.type = 'job' AND ARRAY_CONTAINS(@open, c.state) "
                "ORDER BY c.seq", {"@open": [JobState.QUEUED.value, JobState.RUNNING.value]}):
                if doc["user_id"] in seen:
                    continue
                seen.add(doc["user_id"])  # only the head of a user's queue may run
                runnable = (doc["available_at"] <= at if doc["state"] == JobState.QUEUED
                            else (doc.get("lease_expires_at") or 0) <= at)
                if not runnable:
                    continue
                doc.update(state=JobState.RUNNING.value, lease_owner=worker_id,
                           lease_expires_at=at + lease_seconds,
                           attempts=doc.get("attempts", 0) + 1)
                if await self._replace(doc):
                    return job_from(doc)
                # another worker took or changed it first: this user's head is not free
        return None

    async def _change(self, job: Job, worker_id: str, action: str, **fields: Any) -> bool:
        """Apply ``fields`` to the stored job while ``worker_id`` holds its lease."""
        user_id = require_scope(job.user_id)
        with translated(action):
            for _ in range(MAX_RETRIES):
                doc = await self._read(job_id(job.key), user_id)
                if doc is None or doc.get("state") != JobState.RUNNING \
                        or doc.get("lease_owner") != worker_id:
                    return False
                if "attempts" in fields:
                    fields["attempts"] = max(doc.get("attempts", 0) - 1, 0)
                doc.update(fields)
                if await self._replace(doc):
                    return True
        raise StoreError(f"job {job.key!r} kept changing; gave up after {MAX_RETRIES} attempts")

    async def renew(self, job: Job, worker_id: str, lease_seconds: float) -> bool:
        """See :meth:`JobQueue.renew`."""
        until = ts(utcnow() + timedelta(seconds=lease_seconds))
        return await self._change(job, worker_id, "renew lease", lease_expires_at=until)

    async def complete(self, job: Job, worker_id: str) -> bool:
        """See :meth:`JobQueue.complete`."""
        return await self._change(job, worker_id, "complete job", state=JobState.DONE.value,
                                  finished_at=ts(utcnow()), lease_owner=None,
                                  lease_expires_at=None, last_error=None)

    async def fail(self, job: Job, worker_id: str, error: str, retry_at: datetime | None) -> bool:
        """See :meth:`JobQueue.fail`."""
        if retry_at is None:
            return await self._change(job, worker_id, "fail job", state=JobState.FAILED.value,
                                      finished_at=ts(utcnow()), lease_owner=None,
                                      lease_expires_at=None, last_error=error[:2000])
        return await self._change(job, worker_id, "fail job", state=JobState.QUEUED.value,
                                  available_at=ts(retry_at), lease_owner=None,
                                  lease_expires_at=None, last_error=error[:2000])

    async def release(self, job: Job, worker_id: str) -> bool:
        """See :meth:`JobQueue.release` (the claim is not counted in ``attempts``)."""
        return await self._change(job, worker_id, "release job", state=JobState.QUEUED.value,
                                  available_at=ts(utcnow()), lease_owner=None,
                                  lease_expires_at=None, attempts=None)

    async def jobs(self, user_id: str | None = None, states: Sequence[JobState] | None = None
                   ) -> list[Job]:
        """See :meth:`JobQueue.jobs` (cross-partition without ``user_id``)."""
        sql = "SELECT * FROM c WHERE c.type = 'job'"
        params: dict[str, Any] = {}
        if user_id is not None:
            user_id = require_scope(user_id)
            sql += " AND c.user_id = @user_id"
            params["@user_id"] = user_id
        if states:
            sql += " AND ARRAY_CONTAINS(@states, c.state)"
            params["@states"] = [JobState(s).value for s in states]
        with translated("list jobs"):
            docs = [d async for d in self._query(sql + " ORDER BY c.seq", params, user_id)]
        return [job_from(d) for d in docs]

    # -- watermarks and forgetting ---------------------------------------------------------

    async def get_mark(self, user_id: str, thread_id: str | None, step: str) -> int:
        """See :meth:`JobQueue.get_mark`."""
        user_id = require_scope(user_id)
        with translated("read mark"):
            doc = await self._read(mark_id(thread_id, step), user_id)
        return -1 if doc is None else int(doc["mark"])

    async def set_mark(self, user_id: str, thread_id: str | None, step: str, mark: int) -> None:
        """See :meth:`JobQueue.set_mark` (create, or replace under the ETag while lower)."""
        user_id = require_scope(user_id)
        doc_id = mark_id(thread_id, step)
        with translated("set mark"):
            for _ in range(MAX_RETRIES):
                doc = await self._read(doc_id, user_id)
                if doc is None:
                    try:
                        await self.container.create_item(
                            {"id": doc_id, "user_id": user_id, "type": "mark",
                             "thread_id": thread_id, "step": step, "mark": mark}, **self._kw())
                        return
                    except CosmosHttpResponseError as exc:
                        if status(exc) != 409:
                            raise
                        continue
                if doc["mark"] >= mark:
                    return
                doc["mark"] = mark
                if await self._replace(doc):
                    return
        raise StoreError(f"mark {step!r} kept changing; gave up after {MAX_RETRIES} attempts")

    async def purge(self, user_id: str, thread_id: str | None = None) -> dict[str, int]:
        """See :meth:`JobQueue.purge` (the user counter survives a thread purge; deletes go
        in batches of at most 100, each atomic)."""
        user_id = require_scope(user_id)
        sql = "SELECT c.id, c.type FROM c WHERE c.user_id = @user_id"
        params: dict[str, Any] = {"@user_id": user_id}
        if thread_id is not None:
            sql += " AND c.thread_id = @thread_id"
            params["@thread_id"] = thread_id
        counts = {"jobs": 0, "counters": 0, "marks": 0}
        plural = {"job": "jobs", "counter": "counters", "mark": "marks"}
        with translated("purge jobs"):
            found = [d async for d in self._query(sql, params, user_id)]
            for start in range(0, len(found), BATCH_LIMIT):
                chunk = found[start:start + BATCH_LIMIT]
                await self.container.execute_item_batch(
                    [("delete", (d["id"],)) for d in chunk], partition_key=user_id,
                    **self._kw())
                for d in chunk:
                    if d.get("type") in plural:
                        counts[plural[d["type"]]] += 1
        return counts


def job_queue_for(store: Any) -> CosmosJobQueue:
    """The job queue of a Cosmos DB store: its ``jobs_container`` (an ``azure.cosmos.aio``
    ContainerProxy) and, when the store has one, its ``charge(headers)`` hook for request
    charges.

    Raises:
        StoreError: the store is not open (it has no ``jobs_container`` yet).
    """
    container = getattr(store, "jobs_container", None)
    if container is None:
        raise StoreError(f"{type(store).__name__} is not open: it has no jobs container yet")
    return CosmosJobQueue(container, getattr(store, "charge", None))

"""Counting turns from the change feed of the records container (seed 000's design).

With ``turn_counting="change_feed"`` writers only write turns; ``agent-memory worker
--change-feed`` reads the ``records`` container's change feed (latest-version mode), takes
every turn document it sees and moves the same counters and enqueues the same jobs as
:func:`~agent_memory.jobs.count_turns` would have (:func:`~agent_memory.jobs.count_lengths`:
a thread's length is one past the largest ``seq`` seen).

Where it resumes: the feed's continuation token is kept in the ``leases`` container (partition
key ``/id``) in one lease document::

    {"id": <lease id>, "owner": <worker id>, "expires_at": <Unix seconds>,
     "continuation": <token or null>}

One worker holds the lease at a time: it takes a free or expired lease with a replace
conditional on the document's ETag, and every page it counts is followed by a conditional
write of the new continuation (which also renews the lease). A worker that finds its ETag
stale has lost the lease and stops reading. A restarted or second worker resumes from the
stored continuation, so each change is counted once; a crash between counting a page and
storing its continuation re-reads that page, which moves no counter (counters never move
down) and enqueues no job twice (job keys are deterministic).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from azure.core import MatchConditions
from azure.cosmos.exceptions import CosmosHttpResponseError

from ...errors import ConfigError
from ...jobqueue.base import JobQueue
from ...jobqueue.counters import count_lengths
from ...jobqueue.models import Thresholds
from ...models import utcnow
from .jobs_docs import ChargeHook, status, translated, ts

logger = logging.getLogger("agent_memory.stores.cosmos")

LEASE_ID = "turn-counter"
"""The default lease document: one turn counter per records container."""


def thread_lengths(docs: list[Mapping[str, Any]]) -> dict[tuple[str, str], int]:
    """``(user_id, thread_id) -> one past the largest seq`` over the turn documents in
    ``docs`` (other kinds and turns without a thread or seq are skipped)."""
    lengths: dict[tuple[str, str], int] = {}
    for doc in docs:
        seq, user_id, thread_id = doc.get("seq"), doc.get("user_id"), doc.get("thread_id")
        if doc.get("kind") != "turn" or not user_id or not thread_id \
                or not isinstance(seq, int) or seq < 0:
            continue
        scope = (user_id, thread_id)
        lengths[scope] = max(lengths.get(scope, 0), seq + 1)
    return lengths


class ChangeFeedCounter:
    """Reads turn documents from the change feed and advances the turn counters.

    Args:
        records: ``azure.cosmos.aio`` ContainerProxy of the records container.
        leases: ContainerProxy of the leases container (partition key ``/id``).
        queue: the job queue holding the counters.
        thresholds: every how many turns each step runs.
        worker_id: this worker's name in the lease (default: a random one).
        lease_id: the lease document's id (one per records container).
        lease_seconds: how long the lease lasts without a write.
        page_size: changes read per page (``x-ms-max-item-count``).
        charge: called with the response headers of every SDK call (request charges).
    """

    def __init__(self, records: Any, leases: Any, queue: JobQueue, thresholds: Thresholds, *,
                 worker_id: str | None = None, lease_id: str = LEASE_ID,
                 lease_seconds: float = 60.0, page_size: int = 100,
                 charge: ChargeHook | None = None) -> None:
        self.records, self.leases, self.queue = records, leases, queue
        self.thresholds = thresholds
        self.worker_id = worker_id or f"feed-{uuid.uuid4().hex[:8]}"
        self.lease_id, self.lease_seconds, self.page_size = lease_id, lease_seconds, page_size
        self._charge = charge
        self._lease: dict[str, Any] | None = None
        self.drained = False
        """Whether the last :meth:`step` found no change after the continuation."""

    @classmethod
    def for_store(cls, store: Any, thresholds: Thresholds, **options: Any) -> ChangeFeedCounter:
        """The counter of an open Cosmos DB store (its ``records_container``,
        ``leases_container``, job queue and ``charge`` hook).

        Raises:
            ConfigError: the store has no change feed (not a Cosmos DB store).
        """
        records = getattr(store, "records_container", None)
        leases = getattr(store, "leases_container", None)
        if records is None or leases is None:
            raise ConfigError(f"{type(store).__name__} has no change feed; --change-feed "
                              "needs an open Cosmos DB store")
        options.setdefault("charge", getattr(store, "charge", None))
        return cls(records, leases, store.job_queue(), thresholds, **options)

    def _kw(self) -> dict[str, Any]:
        if self._charge is None:
            return {}
        charge = self._charge
        return {"response_hook": lambda headers, *_: charge(headers)}

    @property
    def holds_lease(self) -> bool:
        """Whether this worker held the lease at its last write."""
        return self._lease is not None

    async def acquire(self, now: datetime | None = None) -> bool:
        """Take the lease if it is free, expired or already this worker's.

        Returns:
            True when this worker holds it now.
        """
        at = ts(now or utcnow())
        with translated("acquire the change-feed lease"):
            try:
                doc = await self.leases.read_item(self.lease_id, partition_key=self.lease_id,
                                                  **self._kw())
            except CosmosHttpResponseError as exc:
                if status(exc) != 404:
                    raise
                doc = {"id": self.lease_id, "owner": None, "expires_at": 0,
                       "continuation": None}
                try:
                    doc = await self.leases.create_item(doc, **self._kw())
                except CosmosHttpResponseError as exc2:
                    if status(exc2) != 409:
                        raise
                    return False  # another worker created it first
            if doc.get("owner") not in (None, self.worker_id) and doc["expires_at"] > at:
                return False
            return await self._write(doc, doc.get("continuation"), at)

    async def _write(self, doc: dict[str, Any], continuation: str | None, at: float) -> bool:
        """Store ``continuation`` and renew the lease, conditional on ``doc``'s ETag."""
        body = {"id": doc["id"], "owner": self.worker_id, "expires_at": at + self.lease_seconds,
                "continuation": continuation}
        try:
            self._lease = await self.leases.replace_item(
                doc["id"], body, etag=doc["_etag"],
                match_condition=MatchConditions.IfNotModified, **self._kw())
        except CosmosHttpResponseError as exc:
            if status(exc) not in (404, 412):
                raise
            self._lease = None
            logger.info("change-feed lease %s lost by %s", self.lease_id, self.worker_id)
            return False
        return True

    async def step(self) -> list[str] | None:
        """Count one page of changes after the stored continuation and store the next one.

        Returns:
            The ids of the turn documents counted (empty when nothing changed), or ``None``
            when this worker does not hold the lease (take it with :meth:`acquire`).
        """
        lease = self._lease
        if lease is None:
            return None
        token = lease.get("continuation")
        start = {"continuation": token} if token else {"start_time": "Beginning"}
        with translated("read the change feed"):
            pages = self.records.query_items_change_feed(
                max_item_count=self.page_size, **start, **self._kw()).by_page()
            try:
                page = await pages.__anext__()
                docs = [doc async for doc in page]
            except StopAsyncIteration:
                docs = []
            following = pages.continuation_token or token
        self.drained = not docs
        turns = [d for d in docs if d.get("kind") == "turn"]
        if turns:
            await count_lengths(self.queue, thread_lengths(turns), self.thresholds)
        at = ts(utcnow())
        if following != token or lease["expires_at"] - at < self.lease_seconds / 2:
            with translated("store the change-feed continuation"):
                if not await self._write(lease, following, at):
                    return None
        return [d["id"] for d in turns]

    async def run(self, stop: asyncio.Event | None = None, *, until_idle: bool = False,
                  poll_seconds: float = 1.0) -> int:
        """Count changes until ``stop`` is set (or, ``until_idle``, until the feed is
        drained), taking the lease when it is free; returns how many turns were counted."""
        counted = 0
        stop = stop or asyncio.Event()
        while not stop.is_set():
            if self._lease is None and not await self.acquire():
                if until_idle:
                    return counted
            else:
                got = await self.step()
                if got is not None:
                    counted += len(got)
                    if not self.drained:
                        continue
                    if until_idle:
                        return counted
            try:
                await asyncio.wait_for(stop.wait(), poll_seconds)
            except TimeoutError:
                pass
        return counted

    async def release(self) -> None:
        """Give the lease up (keeping the continuation) so another worker takes it at once."""
        lease = self._lease
        if lease is None:
            return
        with translated("release the change-feed lease"):
            body = {**{k: lease[k] for k in ("id", "continuation")}, "owner": None,
                    "expires_at": 0}
            try:
                await self.leases.replace_item(lease["id"], body, etag=lease["_etag"],
                                               match_condition=MatchConditions.IfNotModified,
                                               **self._kw())
            except CosmosHttpResponseError as exc:
                if status(exc) not in (404, 412):
                    raise
        self._lease = None

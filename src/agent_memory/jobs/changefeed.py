"""The worker beside a Cosmos DB change feed (``agent-memory worker --change-feed``): the feed's
counter (:class:`agent_memory.stores.cosmos.changefeed.ChangeFeedCounter`) turns new turns into
jobs, the worker runs them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..jobqueue.models import Thresholds
from .worker import run_until_signalled


async def run_with_change_feed(memory: Any, worker: Any, *, until_idle: bool = False,
                               started: Callable[[], None] | None = None) -> list[Any]:
    """Run the change-feed counter beside a job :class:`~agent_memory.jobs.Worker` (the CLI's
    ``agent-memory worker --change-feed``): the counter turns new turns into jobs, the worker
    runs them; SIGINT/SIGTERM stop both (the lease is given up, the continuation kept).

    Args:
        memory: an open ``AsyncMemory`` on a Cosmos DB store.
        worker: the job worker.
        until_idle: drain the change feed, then run jobs until none is runnable, then return.
        started: called once the worker's signal handlers are in place.

    Returns:
        The worker's job outcomes.

    Raises:
        ConfigError: the store is not a Cosmos DB store.
    """
    from ..stores.cosmos.changefeed import ChangeFeedCounter

    feed = ChangeFeedCounter.for_store(memory.store, Thresholds.from_settings(memory.settings),
                                       worker_id=worker.worker_id)
    if until_idle:
        try:
            await feed.run(until_idle=True)
            return await run_until_signalled(worker, until_idle=True, started=started)
        finally:
            await feed.release()
    stop = asyncio.Event()
    counting = asyncio.create_task(feed.run(stop))
    try:
        return await run_until_signalled(worker, started=started)
    finally:
        stop.set()
        await counting
        await feed.release()

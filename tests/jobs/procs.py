"""Process roles for the multi-process job tests: ``writer`` and ``worker``.

Run as ``python procs.py writer STORE USER THREADS TURNS`` or
``python procs.py worker STORE STOP_FILE``. Both use the real local embedder and the extractive
reasoner on one SQLite file.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import JobState, Worker, WorkerConfig, queue_for

THRESHOLDS = {"thread_summary_every_n": 3, "fact_extraction_every_n": 3,
              "user_summary_every_n": 5, "dedup_every_n": 8}
T0 = datetime(2024, 1, 1, tzinfo=UTC)
SENTENCES = ["I adopted a dog named {n} last week.", "I work as a nurse in ward {n}.",
             "My sister moved to city {n}.", "I love painting landscapes number {n}.",
             "I ran {n} kilometres this morning."]


async def writer(store: str, user: str, threads: int, turns: int) -> None:
    async with AsyncMemory.open(Settings.load(store=store, **THRESHOLDS)) as memory:
        for i in range(turns):
            for t in range(threads):
                text = SENTENCES[(i + t) % len(SENTENCES)].format(n=i * 10 + t)
                await memory.add_turn(user, f"{user}-thread{t}", "user", text, speaker=user,
                                      id=f"{user}-{t}-{i}",
                                      created_at=T0 + timedelta(hours=i, minutes=t))


async def worker(store: str, stop_file: str) -> None:
    config = WorkerConfig(lease_seconds=30, poll_seconds=0.05)
    async with AsyncMemory.open(Settings.load(store=store, **THRESHOLDS)) as memory:
        w = Worker(memory.components, queue_for(memory.store), config=config)
        open_states = [JobState.QUEUED, JobState.RUNNING]
        while True:
            done = Path(stop_file).exists()
            await w.run(until_idle=True)
            if done and not await w.queue.jobs(states=open_states):
                return  # (a dead worker's job is waited for until its lease expires)
            await asyncio.sleep(0.05)


async def dying_worker(store: str, jobs: int) -> None:
    """Claim and run ``jobs`` jobs with a 0.2 s lease, then SIGKILL itself before marking the
    last one done (its writes are in, its completion is not)."""
    import os
    import signal

    from agent_memory.jobs import run_job

    async with AsyncMemory.open(Settings.load(store=store, **THRESHOLDS)) as memory:
        queue = queue_for(memory.store)
        for i in range(jobs):
            job = await queue.claim("doomed", 0.2)
            await run_job(memory.components, queue, job)
            if i == jobs - 1:
                os.kill(os.getpid(), signal.SIGKILL)
            await queue.complete(job, "doomed")


if __name__ == "__main__":
    role, *args = sys.argv[1:]
    if role == "writer":
        asyncio.run(writer(args[0], args[1], int(args[2]), int(args[3])))
    elif role == "dying":
        asyncio.run(dying_worker(args[0], int(args[1])))
    else:
        asyncio.run(worker(args[0], args[1]))

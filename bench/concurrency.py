"""Two workers and two writers on one SQLite store: no lost turn, no duplicate job effect.

Writers (separate processes) add LoCoMo-style turns one at a time to their own threads of the
same users, so the per-user counters see concurrent writers (optimistic concurrency retries);
two worker processes drain the queue meanwhile. Afterwards the script checks that every
written turn is stored, every job is done exactly once (one claim each), every thread summary
cites each turn at most once with ``turn_count`` equal to its evidence, and no active fact
appears twice.

Usage::

    python bench/concurrency.py [--users 2] [--threads 3] [--turns 30]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import JobState, Worker, WorkerConfig, queue_for
from agent_memory.models import Fact, RecordKind

T0 = datetime(2024, 1, 1, tzinfo=UTC)
THRESHOLDS = {"thread_summary_every_n": 4, "fact_extraction_every_n": 4,
              "user_summary_every_n": 10, "dedup_every_n": 12}
LINES = ["I adopted a dog named {n} last week.", "I work as a nurse in ward {n}.",
         "My sister moved to city {n}.", "I love painting landscapes, number {n} so far.",
         "I ran {n} kilometres this morning.", "We are planning a trip to island {n}."]


async def write(store: str, writer: int, users: int, threads: int, turns: int) -> None:
    async with AsyncMemory.open(Settings.load(store=store, **THRESHOLDS)) as memory:
        for i in range(turns):
            for u in range(users):
                for t in range(threads):
                    if (t % 2) != writer:
                        continue  # each writer owns every other thread of every user
                    n = i * 100 + t
                    await memory.add_turn(f"user{u}", f"thread{t}", "user",
                                          LINES[(i + t) % len(LINES)].format(n=n),
                                          speaker=f"User{u}", id=f"u{u}-t{t}-{i}",
                                          created_at=T0 + timedelta(hours=i, minutes=t))


async def work(store: str, done_flag: str) -> None:
    async with AsyncMemory.open(Settings.load(store=store, **THRESHOLDS)) as memory:
        worker = Worker(memory.components, queue_for(memory.store),
                        config=WorkerConfig(poll_seconds=0.05, lease_seconds=30))
        while True:
            finished = Path(done_flag).exists()
            await worker.run(until_idle=True)
            if finished:
                return
            await asyncio.sleep(0.05)


async def check(store: str, users: int, threads: int, turns: int) -> dict[str, object]:
    out: dict[str, object] = {}
    async with AsyncMemory.open(Settings.load(store=store)) as memory:
        queue = queue_for(memory.store)
        jobs = await queue.jobs()
        out["jobs"] = len(jobs)
        out["jobs not done"] = sum(j.state is not JobState.DONE for j in jobs)
        out["jobs claimed twice"] = sum(j.attempts > 1 for j in jobs)
        lost = dup_evidence = dup_facts = 0
        for u in range(users):
            user = f"user{u}"
            stored = {t.id for t in await memory.get_memories(user, kinds=[RecordKind.TURN])}
            wanted = {f"u{u}-t{t}-{i}" for t in range(threads) for i in range(turns)}
            lost += len(wanted - stored)
            for t in range(threads):
                summary = await memory.get_summary(user, f"thread{t}")
                if summary is not None:
                    dup_evidence += len(summary.evidence) - len(set(summary.evidence))
                    dup_evidence += abs(summary.turn_count - len(summary.evidence))
            facts = [f for f in await memory.get_memories(user, kinds=["fact"])
                     if isinstance(f, Fact)]
            dup_facts += sum(c - 1 for c in Counter(f.content_hash for f in facts).values())
        out.update({"lost turns": lost, "duplicate summary evidence": dup_evidence,
                    "duplicate active facts": dup_facts})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("role", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        role, store, extra = args.role[0], args.role[1], args.role[2]
        if role == "writer":
            asyncio.run(write(store, int(extra), args.users, args.threads, args.turns))
        else:
            asyncio.run(work(store, extra))
        return
    with tempfile.TemporaryDirectory() as tmp:
        store, flag = str(Path(tmp) / "shared.db"), str(Path(tmp) / "writers-done")
        asyncio.run(check(store, 0, 0, 0))  # create the file
        me = [sys.executable, __file__, "--users", str(args.users), "--threads",
              str(args.threads), "--turns", str(args.turns)]
        t0 = time.perf_counter()
        workers = [subprocess.Popen([*me, "worker", store, flag]) for _ in range(2)]
        writers = [subprocess.Popen([*me, "writer", store, str(w)]) for w in range(2)]
        codes = [p.wait() for p in writers]
        write_s = time.perf_counter() - t0
        Path(flag).touch()
        codes += [p.wait() for p in workers]
        total_s = time.perf_counter() - t0
        result = asyncio.run(check(store, args.users, args.threads, args.turns))
    turns = args.users * args.threads * args.turns
    print(f"{turns} turns by 2 writers in {write_s:.1f} s ({turns / write_s:.0f} turns/s, "
          f"one add_turn each); all jobs drained by 2 workers after {total_s:.1f} s")
    print(f"exit codes: {codes}")
    for key, value in result.items():
        print(f"{key}: {value}")
    ok = all(c == 0 for c in codes) and not any(
        result[k] for k in ("jobs not done", "lost turns", "duplicate summary evidence",
                            "duplicate active facts"))
    print(f"no lost turn, no duplicate job effect: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()

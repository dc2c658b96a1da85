"""Crash test: a worker SIGKILLed at random points while processing the LoCoMo dev set.

1. Two stores get the same LoCoMo turns (thresholds on, so jobs are enqueued as turns arrive).
2. Reference: one uninterrupted worker (``agent-memory worker --until-idle``) drains store A.
3. Crash run: on store B a worker process is started and SIGKILLed after a random delay,
   again and again, until a worker exits on its own with the queue drained.
4. The derived records of both stores are compared by content (ids of facts are random and
   timestamps differ; :func:`agent_memory.jobs.snapshot.derived_snapshot`).

Usage::

    python bench/crash_worker.py [--samples 2] [--kills 12] [--lease 1.5] [--seed 7]

Prints the number of kills, jobs re-run, the time taken and whether the snapshots are equal.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets import load_locomo
from agent_memory.jobs import JobState, queue_for
from agent_memory.jobs.snapshot import derived_snapshot, fingerprint

DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / \
    "locomo_dev.json"
THRESHOLDS = {"AGENT_MEMORY_THREAD_SUMMARY_EVERY_N": "8",
              "AGENT_MEMORY_FACT_EXTRACTION_EVERY_N": "8",
              "AGENT_MEMORY_USER_SUMMARY_EVERY_N": "40",
              "AGENT_MEMORY_DEDUP_EVERY_N": "40"}


def settings(store: Path) -> Settings:
    return Settings.load(store=str(store), thread_summary_every_n=8, fact_extraction_every_n=8,
                         user_summary_every_n=40, dedup_every_n=40)


async def load(store: Path, path: Path, samples: int) -> list[str]:
    """Store the turns of the first ``samples`` conversations, one session per call."""
    users = []
    async with AsyncMemory.open(settings(store)) as memory:
        for sample in load_locomo(path)[:samples]:
            users.append(sample.user_id)
            for session in sample.sessions:
                await memory.add_turns(session.turns)
    return users


def worker_cmd(store: Path, lease: float) -> list[str]:
    return [sys.executable, "-c", "from agent_memory.cli.app import main; main()", "worker",
            "--store", str(store), "--until-idle", "--lease", str(lease), "--poll", "0.05",
            "--max-attempts", "1000"]


async def snapshot(store: Path, users: list[str]) -> tuple[list, dict]:
    async with AsyncMemory.open(settings(store)) as memory:
        queue = queue_for(memory.store)
        jobs = await queue.jobs()
        stats = {"jobs": len(jobs), "not_done": sum(j.state is not JobState.DONE for j in jobs),
                 "reruns": sum(j.attempts - 1 for j in jobs)}
        rows = [row for user in users for row in await derived_snapshot(memory.store, user)]
    return rows, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--samples", type=int, default=2, help="conversations to load")
    parser.add_argument("--kills", type=int, default=12, help="SIGKILLs before letting it run")
    parser.add_argument("--lease", type=float, default=1.5, help="lease seconds")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    env = {**os.environ, **THRESHOLDS}
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "reference.db", Path(tmp) / "crashed.db"
        users = asyncio.run(load(a, args.locomo, args.samples))
        asyncio.run(load(b, args.locomo, args.samples))

        t0 = time.perf_counter()
        subprocess.run(worker_cmd(a, args.lease), env=env, check=True, capture_output=True)
        reference_s = time.perf_counter() - t0

        kills = 0
        t0 = time.perf_counter()
        while True:
            proc = subprocess.Popen(worker_cmd(b, args.lease), env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if kills < args.kills:
                try:
                    proc.wait(timeout=rng.uniform(0.8, 3.0))  # start-up is ~0.7 s
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    kills += 1
                    time.sleep(args.lease)  # let its lease expire
                    continue
            if proc.wait() == 0:
                break
        crashed_s = time.perf_counter() - t0

        ref_rows, ref_stats = asyncio.run(snapshot(a, users))
        crash_rows, crash_stats = asyncio.run(snapshot(b, users))
    equal = ref_rows == crash_rows
    kinds = {k: sum(r[0] == k for r in ref_rows) for k in ("summary", "fact", "profile")}
    print(f"LoCoMo conversations: {len(users)}; derived records: {kinds}")
    print(f"reference: {ref_stats['jobs']} jobs in {reference_s:.1f} s; "
          f"fingerprint {fingerprint(ref_rows)[:16]}")
    print(f"crashed:   {kills} SIGKILLs, {crash_stats['jobs']} jobs, "
          f"{crash_stats['reruns']} re-claims, {crash_stats['not_done']} not done, "
          f"{crashed_s:.1f} s; fingerprint {fingerprint(crash_rows)[:16]}")
    print(f"derived records equal: {'yes' if equal else 'NO'}")
    if not equal:
        diff = [r for r in crash_rows if r not in ref_rows][:5]
        print("first differences (crashed only):", diff)
        sys.exit(1)


if __name__ == "__main__":
    main()

"""Many writer processes on one thread of one SQLite file: turn order and every-N windows.

Starts ``--processes`` writer processes at once, each adding ``--turns`` turns to the same
thread one call at a time (no explicit ``seq``, automatic processing every ``--every`` turns),
then runs the queued jobs in this process with a reasoner that records which turns each step
was given, and prints:

- turns stored, distinct ``seq`` values and whether they are exactly ``0..n-1``;
- the thread counter and the jobs enqueued per kind (expected: n / every each);
- how many turns were folded into the thread summary 0, 1 or more times, and read by fact
  extraction 0, 1 or more times (expected: every turn exactly once);
- writer throughput (turns/s over all processes) and the job run time.

Usage::

    python bench/concurrent_writers.py [--processes 4] [--turns 500] [--every 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from _common import print_machine

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import queue_for
from agent_memory.models import Turn
from agent_memory.reasoners.base import FactExtraction, SummaryDraft
from agent_memory.reasoners.extractive import ExtractiveReasoner

SENTENCES = ["I adopted a dog named Rex{n}.", "I work as a nurse in ward {n}.",
             "My sister moved to city {n}.", "I ran {n} kilometres this morning."]


def settings(store: str, every: int) -> Settings:
    return Settings.load(store=store, thread_summary_every_n=every,
                         fact_extraction_every_n=every)


async def append(store: str, turns: int, every: int) -> None:
    """One writer process: ``turns`` single-turn calls to thread ``th`` of user ``ana``."""
    async with AsyncMemory.open(settings(store, every)) as memory:
        for i in range(turns):
            text = SENTENCES[i % len(SENTENCES)].format(n=f"{os.getpid()}-{i}")
            await memory.add_turn("ana", "th", "user", text, speaker="Ana")


class CountingReasoner(ExtractiveReasoner):
    """The offline reasoner, recording the turns each step was given."""

    def __init__(self) -> None:
        super().__init__()
        self.summarized: Counter[str] = Counter()
        self.extracted: Counter[str] = Counter()

    async def summarize_thread(self, previous: str | None, turns: Sequence[Turn],
                               max_tokens: int) -> SummaryDraft:
        self.summarized.update(t.id for t in turns)
        return await super().summarize_thread(previous, turns, max_tokens)

    async def extract_facts(self, turns: Sequence[Turn]) -> FactExtraction:
        self.extracted.update(t.id for t in turns)
        return await super().extract_facts(turns)


def spread(counts: Counter[str], ids: list[str]) -> str:
    times = Counter(counts.get(i, 0) for i in ids)
    return ", ".join(f"{n}x: {times[n]}" for n in sorted(times))


async def report(store: str, processes: int, turns: int, every: int, elapsed: float) -> None:
    reasoner = CountingReasoner()
    async with AsyncMemory.open(settings(store, every), reasoner=reasoner) as memory:
        stored = await memory.get_thread("ana", "th")
        seqs = [t.seq for t in stored]
        total = processes * turns
        print(f"turns stored: {len(stored)} of {total}; distinct seqs: {len(set(seqs))}; "
              f"exactly 0..n-1: {sorted(seqs) == list(range(total))}")
        print(f"writers: {total / elapsed:.0f} turns/s over {processes} processes "
              f"({elapsed:.1f} s)")
        queue = queue_for(memory.store)
        (counter,) = await queue.counters("ana", ["th"])
        kinds = Counter(j.kind.value for j in await queue.jobs("ana"))
        print(f"thread counter: {counter.seen}; jobs: {dict(sorted(kinds.items()))} "
              f"(expected {total // every} each per thread step)")
        start = time.perf_counter()
        await memory.run_jobs()
        print(f"jobs run in {time.perf_counter() - start:.1f} s")
        ids = [t.id for t in stored]
        print(f"turns per number of summary windows: {spread(reasoner.summarized, ids)}")
        print(f"turns per number of fact-extraction reads: {spread(reasoner.extracted, ids)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--turns", type=int, default=500, help="turns per process")
    parser.add_argument("--every", type=int, default=20, help="thread_summary_every_n")
    parser.add_argument("--append", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.append:
        asyncio.run(append(args.append, args.turns, args.every))
        return
    print_machine()
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "writers.db")

        async def create() -> None:
            async with AsyncMemory.open(settings(store, args.every)):
                pass

        asyncio.run(create())
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, __file__, "--append", store,
                                   "--turns", str(args.turns), "--every", str(args.every)])
                 for _ in range(args.processes)]
        if any(p.wait() != 0 for p in procs):
            raise SystemExit("a writer process failed")
        elapsed = time.perf_counter() - start
        asyncio.run(report(store, args.processes, args.turns, args.every, elapsed))


if __name__ == "__main__":
    main()

"""Turn order under concurrent writers: tasks, threads and processes on one SQLite file.

Every writer gets distinct, increasing ``seq`` values, assigned where the write commits, and
the every-N counters stay exact: each turn lands in exactly one thread-summary window and is
read by fact extraction exactly once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from agent_memory import AsyncMemory, Memory, Settings
from agent_memory.jobs import JobState, queue_for
from agent_memory.models import Turn
from agent_memory.reasoners.base import FactExtraction, SummaryDraft
from agent_memory.reasoners.extractive import ExtractiveReasoner

APPENDER = Path(__file__).with_name("appender.py")
PROCESSES, TURNS_EACH, EVERY = 4, 500, 20


def seqs(turns: Sequence[Turn]) -> list[int]:
    return sorted(t.seq for t in turns)


async def test_concurrent_tasks_get_distinct_seqs(memory) -> None:
    added = await asyncio.gather(*(memory.add_turn("u", "th", "user", f"message {i}")
                                   for i in range(8)))
    assert seqs(added) == list(range(8))
    stored = await memory.get_thread("u", "th")
    assert [t.seq for t in stored] == list(range(8))
    assert {t.id for t in stored} == {t.id for t in added}


def test_concurrent_threads_get_distinct_seqs(tmp_path, local_embedder) -> None:
    with Memory(store=str(tmp_path / "m.db"), embedder=local_embedder) as memory:
        added: list[Turn] = []
        lock = threading.Lock()

        def write(w: int) -> None:
            for i in range(10):
                turn = memory.add_turn("u", "th", "user", f"writer {w} message {i}")
                with lock:
                    added.append(turn)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert seqs(added) == list(range(40))
        by_writer: dict[str, list[int]] = {}
        for turn in added:
            by_writer.setdefault(turn.content.split()[1], []).append(turn.seq)
        assert all(s == sorted(s) for s in by_writer.values())  # each writer's own order


def run_appenders(store: str) -> None:
    """:data:`PROCESSES` writer processes at once, each adding :data:`TURNS_EACH` turns."""
    procs = [subprocess.Popen([sys.executable, str(APPENDER), store, "ana", "th",
                               str(TURNS_EACH)], stderr=subprocess.PIPE, env=dict(os.environ))
             for _ in range(PROCESSES)]
    for proc in procs:
        assert proc.wait(timeout=600) == 0, proc.stderr.read().decode()  # type: ignore[union-attr]


class CountingReasoner(ExtractiveReasoner):
    """The offline reasoner, recording which turns each step was given."""

    def __init__(self) -> None:
        super().__init__()
        self.summarized: list[str] = []
        self.extracted: list[str] = []

    async def summarize_thread(self, previous: str | None, turns: Sequence[Turn],
                               max_tokens: int) -> SummaryDraft:
        self.summarized += [t.id for t in turns]
        return await super().summarize_thread(previous, turns, max_tokens)

    async def extract_facts(self, turns: Sequence[Turn], context: Sequence[Turn] = ()
                            ) -> FactExtraction:
        self.extracted += [t.id for t in turns]
        return await super().extract_facts(turns, context)


async def test_processes_appending_to_one_thread_keep_every_window_exact(
    tmp_path, local_embedder
) -> None:
    store = str(tmp_path / "shared.db")
    settings = Settings.load(store=store, thread_summary_every_n=EVERY,
                             fact_extraction_every_n=EVERY)
    async with AsyncMemory.open(settings, embedder=local_embedder):
        pass  # create the file once
    run_appenders(store)

    total = PROCESSES * TURNS_EACH
    reasoner = CountingReasoner()
    async with AsyncMemory.open(settings, embedder=local_embedder,
                                reasoner=reasoner) as memory:
        turns = await memory.get_thread("ana", "th")
        assert [t.seq for t in turns] == list(range(total))  # unique, no gap, none lost
        queue = queue_for(memory.store)
        (counter,) = await queue.counters("ana", ["th"])
        assert counter.seen == total
        jobs = await queue.jobs("ana")
        per_kind = Counter(j.kind.value for j in jobs)
        assert per_kind["thread_summary"] == per_kind["extract_facts"] == total // EVERY
        await memory.run_jobs()
        assert {j.state for j in await queue.jobs("ana")} == {JobState.DONE}
        ids = [t.id for t in turns]
        # every turn in exactly one summary window, and through fact extraction exactly once
        assert sorted(reasoner.summarized) == sorted(ids)
        assert sorted(reasoner.extracted) == sorted(ids)
        summary = await memory.get_summary("ana", "th")
        assert summary is not None
        assert (summary.watermark_seq, summary.turn_count) == (total - 1, total)

"""Two writers and two workers on one SQLite file: no lost turn, no duplicate job effect."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import JobState, queue_for
from agent_memory.models import Fact, RecordKind

PROCS = Path(__file__).with_name("procs.py")
USERS, THREADS, TURNS = ("ana", "bo"), 2, 7


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(PROCS), *args], stderr=subprocess.PIPE)


async def test_two_writers_two_workers(tmp_path, local_embedder) -> None:
    store = str(tmp_path / "shared.db")
    async with AsyncMemory.open(Settings.load(store=store), embedder=local_embedder):
        pass  # create the file once, so the processes only open it
    stop = tmp_path / "writers-done"
    workers = [spawn("worker", store, str(stop)) for _ in range(2)]
    writers = [spawn("writer", store, user, str(THREADS), str(TURNS)) for user in USERS]
    for proc in writers:
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
    stop.touch()
    for proc in workers:
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()

    async with AsyncMemory.open(Settings.load(store=store), embedder=local_embedder) as memory:
        queue = queue_for(memory.store)
        jobs = await queue.jobs()
        assert jobs and all(j.state is JobState.DONE and j.attempts == 1 for j in jobs)
        for user in USERS:
            turns = await memory.get_memories(user, kinds=[RecordKind.TURN])
            assert sorted(t.id for t in turns) == sorted(
                f"{user}-{t}-{i}" for t in range(THREADS) for i in range(TURNS))  # none lost
            for t in range(THREADS):
                thread = f"{user}-thread{t}"
                summary = await memory.get_summary(user, thread)
                # 7 turns, threshold 3: the last job ran at or after turn 6
                assert summary is not None and len(summary.evidence) >= 6
                assert len(set(summary.evidence)) == len(summary.evidence) == summary.turn_count
                assert await queue.get_mark(user, thread, "extract_facts") >= 5
            facts = [f for f in await memory.get_memories(user, kinds=["fact"],
                                                          include_superseded=True)
                     if isinstance(f, Fact)]
            active = Counter(f.content_hash for f in facts if f.active)
            assert facts and max(active.values()) == 1  # no fact written twice
            (counter,) = await queue.counters(user, [None])
            assert counter.seen == THREADS * TURNS


async def test_a_sigkilled_worker_leaves_nothing_lost_or_doubled(tmp_path, local_embedder) -> None:
    import signal

    from agent_memory.jobs.snapshot import derived_snapshot

    snapshots = []
    for name in ("reference", "killed"):
        store = str(tmp_path / f"{name}.db")
        writer = spawn("writer", store, "ana", "2", "7")
        assert writer.wait(timeout=120) == 0, writer.stderr.read().decode()
        if name == "killed":
            dying = spawn("dying", store, "4")
            assert dying.wait(timeout=120) == -signal.SIGKILL, dying.stderr.read().decode()
        stop = tmp_path / f"{name}-stop"
        stop.touch()
        worker = spawn("worker", store, str(stop))
        assert worker.wait(timeout=120) == 0, worker.stderr.read().decode()
        async with AsyncMemory.open(Settings.load(store=store), embedder=local_embedder) as mem:
            jobs = await queue_for(mem.store).jobs()
            assert {j.state for j in jobs} == {JobState.DONE}
            if name == "killed":
                assert max(j.attempts for j in jobs) == 2  # the killed job ran again
            snapshots.append(await derived_snapshot(mem.store, "ana"))
    assert snapshots[0] == snapshots[1]

"""A worker stopped with SIGINT or SIGTERM gives its job back and exits 0 (real processes)."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import JobKind, JobState, queue_for

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
WAIT = 120  # seconds; a bound on a stuck process, not a measured duration


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def _lines(stream) -> queue.Queue:
    found: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in stream:
            found.put(line.rstrip("\n"))
        found.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return found


def _wait_for(lines: queue.Queue, wanted: str, seen: list[str]) -> None:
    while True:
        line = lines.get(timeout=WAIT)
        assert line is not None, f"process ended before {wanted!r}: {seen}"
        seen.append(line)
        if wanted in line:
            return


async def _store_with_a_job(path: Path, local_embedder) -> None:
    settings = Settings.load(store=str(path), thread_summary_every_n=2)
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        await memory.add_turn("ana", "t1", "user", "I adopted a puppy named Rex.")
        await memory.add_turn("ana", "t1", "user", "I work as a nurse at the clinic.")
        jobs = await memory.jobs("ana")
    assert [(j.kind, j.state) for j in jobs] == [(JobKind.THREAD_SUMMARY, JobState.QUEUED)]


async def _jobs(path: Path, local_embedder):
    async with AsyncMemory.open(Settings.load(store=str(path)), embedder=local_embedder) as m:
        return await queue_for(m.store).jobs("ana")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_job_releases_the_lease_and_exits_0(tmp_path, local_embedder, sig):
    store = tmp_path / "m.db"
    asyncio.run(_store_with_a_job(store, local_embedder))
    proc = subprocess.Popen([sys.executable, str(HERE / "blocking_worker.py"), str(store)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    seen: list[str] = []
    try:
        lines = _lines(proc.stdout)
        _wait_for(lines, "in job", seen)  # the job is claimed and its step is running
        running = asyncio.run(_jobs(store, local_embedder))
        assert running[0].state == JobState.RUNNING and running[0].attempts == 1
        proc.send_signal(sig)
        assert proc.wait(timeout=WAIT) == 0, proc.stderr.read()
        _wait_for(lines, "[", seen)
    finally:
        proc.kill()
        proc.wait()
    assert json.loads(seen[-1]) == ["released"]
    assert "Traceback" not in proc.stderr.read()
    job = (asyncio.run(_jobs(store, local_embedder)))[0]
    assert job.state == JobState.QUEUED and job.lease_owner is None
    assert job.attempts == 0  # a release is not a failed attempt
    assert job.last_error is None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_cli_worker_exits_0_on_a_signal(tmp_path, local_embedder, sig):
    store = tmp_path / "m.db"
    asyncio.run(_store_with_a_job(store, local_embedder))
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agent_memory.cli.app import main; main()", "worker",
         "--store", str(store), "--poll", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    seen: list[str] = []
    try:
        _wait_for(_lines(proc.stderr), "started", seen)
        proc.send_signal(sig)
        assert proc.wait(timeout=WAIT) == 0
    finally:
        proc.kill()
        proc.wait()
    out = proc.stdout.read()
    assert "jobs claimed" in out and "Traceback" not in out
    jobs = asyncio.run(_jobs(store, local_embedder))
    assert all(j.state in (JobState.QUEUED, JobState.DONE) and j.lease_owner is None
               for j in jobs)

"""Worker threads that yield the CPU to the event loop.

The library's blocking work (SQLite, numpy, the ONNX embedder) runs on worker threads so the
event loop stays free. On a machine whose cores are all busy, though, the loop thread still
waits its turn for a core behind those workers, and a 1 ms timer on the loop fires late. Giving
the workers a lower CPU priority (a higher *nice* value, per thread on Linux) lets the loop
thread run first whenever it is ready; the workers still get every cycle the loop does not use.

Measured with ``bench/loop_lag.py`` (8 hybrid searches and 2 writers on 2 cores, BENCHMARKS.md
"Event-loop lag"): lag p99 15.3 ms with workers at the loop's priority, 11.0 ms with them at
nice +10, and search throughput 42 -> 59 per second.

The offset is :data:`WORKER_NICENESS`, or the ``AGENT_MEMORY_WORKER_NICENESS`` environment
variable (0 keeps workers at the loop's priority). Where the operating system has no per-thread
priority, nothing changes.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

R = TypeVar("R")

WORKER_NICENESS = 10
"""How much lower than the starting thread's priority worker threads run (nice offset)."""


def niceness() -> int:
    """The nice offset for worker threads: ``AGENT_MEMORY_WORKER_NICENESS`` or
    :data:`WORKER_NICENESS` (a value that is not an integer falls back to the default)."""
    raw = os.environ.get("AGENT_MEMORY_WORKER_NICENESS")
    try:
        return max(0, int(raw)) if raw is not None else WORKER_NICENESS
    except ValueError:
        return WORKER_NICENESS


def lower_priority() -> None:
    """Run the calling thread :func:`niceness` steps below the process's main thread (a
    pool's thread initializer). Threads it starts later (onnxruntime's) inherit the lower
    priority."""
    offset = niceness()
    get_priority = getattr(os, "getpriority", None)
    set_priority = getattr(os, "setpriority", None)
    if not offset or get_priority is None or set_priority is None:
        return
    tid = threading.get_native_id()
    try:
        # relative to the process's main thread (its id is the pid), so a worker started by
        # another worker is not lowered twice
        target = min(19, get_priority(os.PRIO_PROCESS, os.getpid()) + offset)
        if get_priority(os.PRIO_PROCESS, tid) < target:
            set_priority(os.PRIO_PROCESS, tid, target)
    except OSError:  # not permitted here: the thread keeps its priority
        pass


_POOL: ThreadPoolExecutor | None = None
_POOL_GUARD = threading.Lock()
WORKERS = 4
"""Threads of the shared pool that runs CPU-heavy model work (embedding, offline reasoning)."""


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_GUARD:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="agent-memory",
                                       initializer=lower_priority)
        return _POOL


async def run_in_worker(fn: Callable[..., R], /, *args: Any) -> R:
    """``fn(*args)`` on the shared worker pool (threads at a lower priority than the loop),
    awaited from the event loop: the ``asyncio.to_thread`` of CPU-heavy model work."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_pool(), functools.partial(fn, *args))


class LoopThread:
    """A private event loop running forever on a daemon thread, started on first use (or by
    :meth:`start`).

    The sync facades (:class:`agent_memory.Memory`, :class:`agent_memory.remote.Remote`) run
    their async client on one, and the OpenAI embedder runs its SDK client on one, so a
    client's connection pool stays on a single loop whichever thread or loop calls it.

    Args:
        name: the thread's name.
    """

    def __init__(self, name: str = "agent-memory-loop") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        """The loop is running (started and not stopped since)."""
        return self._loop is not None

    @property
    def thread(self) -> threading.Thread | None:
        """The thread running the loop, ``None`` when not started."""
        return self._thread

    def start(self) -> asyncio.AbstractEventLoop:
        """Start the loop thread if it is not running; returns its loop."""
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def call(self, coro: Coroutine[Any, Any, R]) -> R:
        """Run ``coro`` on the loop and block until it is done; returns its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.start()).result()

    async def wait(self, coro: Coroutine[Any, Any, R]) -> R:
        """Run ``coro`` on the loop and await it from the caller's loop."""
        future = asyncio.run_coroutine_threadsafe(coro, self.start())
        return await asyncio.wrap_future(future)

    def stop(self, timeout: float | None = None) -> None:
        """Stop the loop, join its thread (up to ``timeout`` seconds) and close the loop. A
        later call starts a new one. Safe to call twice."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout)
            if not thread.is_alive():
                loop.close()

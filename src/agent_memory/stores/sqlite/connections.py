"""The SQLite store's worker threads and their read connections.

Every coroutine of :class:`~.store.SQLiteStore` and :class:`~.jobs.SQLiteJobQueue` runs its
body in a bounded thread pool owned by the store (:class:`ConnectionPool`, through the
:func:`off_loop` decorator), so sqlite3 calls, numpy products and projection builds never run
on the event-loop thread: the loop stays free to serve other tasks while a search runs.

Each worker thread keeps its own read connection (opened on first use, ``query_only``). WAL
lets any number of readers run beside the one writer, and sqlite3 and numpy release the GIL
while they work, so on two cores two searches run at once; writes keep using the store's one
writer connection under its lock. Workers run at a lower CPU priority than the thread that
started them (:mod:`agent_memory._threads`). Measured in ``bench/loop_lag.py`` (BENCHMARKS.md,
"Event-loop lag").
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from ..._threads import lower_priority
from ...errors import CorruptStoreError, StoreError

P = ParamSpec("P")
R = TypeVar("R")


QUICK_CHECK_LINES = 5
"""Problems ``quick_check`` reports that a :class:`CorruptStoreError` quotes."""


def check_integrity(conn: sqlite3.Connection, path: Path) -> None:
    """Run ``PRAGMA quick_check`` on a store file before anything writes to it.

    ``quick_check`` reads every page of the file and checks its b-tree structure, record
    formats and constraints (not that index entries match their rows, which ``integrity_check``
    adds at several times the cost); see https://www.sqlite.org/pragma.html#pragma_quick_check.
    Its cost grows with the file: measured by ``bench/store_open.py`` (BENCHMARKS.md, "Opening
    a store").

    Raises:
        CorruptStoreError: the check reports damage, or SQLite finds the file malformed while
            checking it; the message names the file and how to recover it.
    """
    try:
        rows = [str(r[0]) for r in conn.execute(
            f"PRAGMA quick_check({QUICK_CHECK_LINES})").fetchall()]
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows == ["ok"]:
        return
    raise CorruptStoreError(
        f"{path} failed its integrity check (PRAGMA quick_check: {'; '.join(rows)}); it was "
        f"not opened and nothing was written to it. Keep the file as it is and restore a "
        f"backup, or salvage what is readable: sqlite3 '{path}' .recover | sqlite3 "
        f"'{path}.recovered' (then open the recovered file)", str(path), rows)


def default_threads() -> int:
    """Worker threads of a store's pool when none is given: one per usable core, 2 to 8 (two,
    so that a worker waiting on SQLite's write lock does not hold up the reads).

    More threads do not search faster (the query embedding, on the embedder's own workers,
    is most of a search's CPU) but contend for the GIL with the event loop: on 2 cores, lag
    p99 of ``bench/loop_lag.py`` went 6.1 / 8.7 / 10.6 ms with 1 / 2 / 4 threads at 56 / 56 /
    52 searches per second (BENCHMARKS.md, "Event-loop lag").
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(2, min(8, cores))


class ConnectionPool:
    """A bounded thread pool whose workers each hold a read connection to one SQLite file.

    Args:
        path: the database file (already created and migrated by the writer connection).
        threads: worker threads, >= 1.
        busy_timeout_s: how long a reader waits on a lock (seconds).

    Raises:
        ValueError: ``threads`` < 1.
    """

    def __init__(self, path: Path, threads: int, busy_timeout_s: float) -> None:
        if threads < 1:
            raise ValueError(f"a store needs at least one worker thread, not {threads}")
        self.path = path
        self.threads = threads
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self.closed = False
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()
        self._executor = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix=f"agent-memory-sqlite-{path.name}",
            initializer=self._mark_worker,
        )

    def _mark_worker(self) -> None:
        self._local.worker = True
        lower_priority()  # the event loop's thread runs first when both are ready

    async def run(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """``fn(*args, **kwargs)`` on a worker thread; the calling task awaits the result.

        Cancelling the awaiting task does not stop the call: a write still commits or rolls
        back as a whole.

        At most :attr:`threads` calls of one event loop are submitted at a time; the others
        wait on an ``asyncio.Semaphore``, not in the executor's queue. That bounds the work
        handed back to the loop at once: with 200 tasks waiting in the executor queue, every
        finished call woke its task to run the Python around the store call (validation,
        fusion, building hits, the next call's set-up) in the same loop iteration, so one
        iteration held hundreds of such steps and a 1 ms timer waited 100+ ms. With the
        semaphore an iteration holds at most :attr:`threads` of them (``bench/loop_lag.py
        --mode text``, BENCHMARKS.md "Event-loop lag").

        Raises:
            StoreError: the pool was closed.
        """
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = asyncio.Semaphore(self.threads)
        async with slots:
            try:
                future = self._executor.submit(fn, *args, **kwargs)
            except RuntimeError as exc:  # shut down by close() on another thread meanwhile
                raise StoreError(f"store {self.path} is closed") from exc
            return await asyncio.wrap_future(future)

    def reader(self) -> sqlite3.Connection | None:
        """This worker thread's read connection (opened on first use); ``None`` on a thread
        that is not one of the pool's workers, or once the pool is closed."""
        if not getattr(self._local, "worker", False) or self.closed:
            return None
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout_s, isolation_level=None,
                check_same_thread=False,
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
                conn.execute("PRAGMA query_only = ON")
            except BaseException:
                conn.close()
                raise
            with self._guard:
                self._readers.append(conn)
            self._local.conn = conn
        return conn

    def close(self, wait: bool = True) -> None:
        """Stop the workers (``wait``: after the calls already submitted finish) and close the
        read connections. Safe to call twice."""
        self.closed = True
        self._executor.shutdown(wait=wait)
        with self._guard:
            readers, self._readers = self._readers, []
        for conn in readers:
            conn.close()


class PoolOwner(Protocol):
    """What :func:`off_loop` needs of its owner: the pool to run on."""

    @property
    def pool(self) -> ConnectionPool | None: ...


S = TypeVar("S", bound=PoolOwner)


def off_loop(
    method: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """Turn a blocking method into a coroutine method that runs it on the owner's pool.

    The owner exposes ``pool`` (a :class:`ConnectionPool`, or ``None`` while the store is
    not open: then the method runs inline, where it fails at once with the store's "not
    open" error, exactly as before it had a pool).
    """

    @functools.wraps(method)
    async def run(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        pool = self.pool
        if pool is None or pool.closed:
            return method(self, *args, **kwargs)
        return await pool.run(method, self, *args, **kwargs)

    return run

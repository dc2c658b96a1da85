"""The SQLite job queue: counters, jobs and step watermarks in the store's own file.

Tables (migration 3, :func:`.jobs_schema.migration_003_jobs`)::

    job_counters  (user_id, thread_id) -> seen, version; thread_id '' is the user scope
    jobs          seq (queue order), key (unique), kind, scope, state, attempts, available_at,
                  lease_owner, lease_expires_at, last_error, created_at, finished_at
    job_marks     (user_id, thread_id, step) -> the last turn seq the step consumed

Every write is one ``BEGIN IMMEDIATE`` transaction on the store's connection, so counter
updates and the jobs they enqueue commit together, and two processes claiming at once are
serialised by SQLite's write lock (WAL lets readers continue meanwhile). Reads use the store's
per-worker read connections. Every coroutine runs on the store's thread pool
(:mod:`.connections`), never on the event loop. Times are stored as Unix seconds (REAL).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ...jobqueue.base import JobQueue
from ...jobqueue.models import Counter, CounterUpdate, Job, JobSpec, JobState
from ...models import require_scope, utcnow
from .connections import ConnectionPool, off_loop

if TYPE_CHECKING:
    from .store import SQLiteStore

_USER_SCOPE = ""


def _ts(value: datetime) -> float:
    return value.timestamp()


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


_JOB_COLUMNS = (
    "seq, key, kind, user_id, thread_id, upto, state, attempts, available_at, lease_owner, "
    "lease_expires_at, last_error, created_at, finished_at"
)


def _job(row: tuple) -> Job:
    (seq, key, kind, user_id, thread_id, upto, state, attempts, available_at, owner, expires,
     error, created_at, finished_at) = row
    return Job(
        seq=seq, key=key, kind=kind, user_id=user_id, thread_id=thread_id, upto=upto,
        state=state, attempts=attempts, available_at=_dt(available_at), lease_owner=owner,
        lease_expires_at=_dt(expires), last_error=error, created_at=_dt(created_at),
        finished_at=_dt(finished_at),
    )


class SQLiteJobQueue(JobQueue):
    """A :class:`JobQueue` in the file of an opened :class:`SQLiteStore` (its connection).

    Args:
        store: the store; it must be open before any call (its migrations create the tables).
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    @property
    def pool(self) -> ConnectionPool | None:
        """The store's thread pool (``None`` while it is not open)."""
        return self.store.pool

    @contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the store's connection, under its lock."""
        with self.store.database.write(action) as conn:
            yield conn

    @contextmanager
    def _read(self, action: str) -> Iterator[sqlite3.Connection]:
        db = self.store.database
        with db.reader() as conn, db.translate(action):
            yield conn

    # -- counters --------------------------------------------------------------------------

    @off_loop
    def counters(self, user_id: str, thread_ids: Sequence[str | None]) -> list[Counter]:
        """See :meth:`JobQueue.counters`."""
        user_id = require_scope(user_id)
        scopes = [t or _USER_SCOPE for t in thread_ids]
        with self._read("read counters") as conn:
            rows = {
                thread: (seen, version)
                for thread, seen, version in conn.execute(
                    "SELECT thread_id, seen, version FROM job_counters WHERE user_id = ? "
                    "AND thread_id IN (SELECT value FROM json_each(?))",
                    (user_id, json.dumps(scopes)),
                )
            }
        out = []
        for thread in scopes:
            seen, version = rows.get(thread, (0, 0))
            out.append(Counter(user_id=user_id, thread_id=thread or None, seen=seen,
                               version=version))
        return out

    @off_loop
    def advance(self, updates: Sequence[CounterUpdate], jobs: Sequence[JobSpec]) -> bool:
        """See :meth:`JobQueue.advance` (one transaction; a conflict rolls everything back)."""

        class _Conflict(Exception):
            pass

        try:
            with self._write("advance counters") as conn:
                for u in updates:
                    scope = (u.user_id, u.thread_id or _USER_SCOPE)
                    if u.expected_version == 0:
                        cur = conn.execute(
                            "INSERT INTO job_counters (user_id, thread_id, seen, version) "
                            "VALUES (?, ?, ?, 1) ON CONFLICT DO NOTHING",
                            (*scope, u.seen),
                        )
                    else:
                        cur = conn.execute(
                            "UPDATE job_counters SET seen = ?, version = version + 1 "
                            "WHERE user_id = ? AND thread_id = ? AND version = ?",
                            (u.seen, *scope, u.expected_version),
                        )
                    if cur.rowcount != 1:
                        raise _Conflict
                self._insert_jobs(conn, jobs)
        except _Conflict:
            return False
        return True

    @staticmethod
    def _insert_jobs(conn: sqlite3.Connection, jobs: Sequence[JobSpec]) -> int:
        now = _ts(utcnow())
        added = 0
        for job in jobs:
            cur = conn.execute(
                "INSERT INTO jobs (key, kind, user_id, thread_id, upto, state, attempts, "
                "available_at, created_at) VALUES (?, ?, ?, ?, ?, 'queued', 0, ?, ?) "
                "ON CONFLICT (key) DO NOTHING",
                (job.key, job.kind.value, job.user_id, job.thread_id, job.upto, now, now),
            )
            added += cur.rowcount
        return added

    @off_loop
    def enqueue(self, jobs: Sequence[JobSpec]) -> int:
        """See :meth:`JobQueue.enqueue`."""
        with self._write("enqueue") as conn:
            return self._insert_jobs(conn, jobs)

    # -- leases ----------------------------------------------------------------------------

    @off_loop
    def claim(self, worker_id: str, lease_seconds: float, now: datetime | None = None
                    ) -> Job | None:
        """See :meth:`JobQueue.claim` (per-user FIFO; expired leases are taken over)."""
        at = _ts(now or utcnow())
        with self._write("claim") as conn:
            row = conn.execute(
                f"""
                SELECT {_JOB_COLUMNS} FROM jobs j
                WHERE j.state IN ('queued', 'running')
                  AND j.seq = (SELECT min(h.seq) FROM jobs h
                               WHERE h.user_id = j.user_id AND h.state IN ('queued', 'running'))
                  AND ((j.state = 'queued' AND j.available_at <= :now)
                       OR (j.state = 'running' AND j.lease_expires_at <= :now))
                ORDER BY j.seq LIMIT 1
                """,
                {"now": at},
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE jobs SET state = 'running', lease_owner = ?, lease_expires_at = ?, "
                "attempts = attempts + 1 WHERE seq = ?",
                (worker_id, at + lease_seconds, row[0]),
            )
            claimed = conn.execute(
                f"SELECT {_JOB_COLUMNS} FROM jobs WHERE seq = ?", (row[0],)
            ).fetchone()
        return _job(claimed)

    def _owned(self, conn: sqlite3.Connection, job: Job, worker_id: str) -> bool:
        found = conn.execute(
            "SELECT 1 FROM jobs WHERE seq = ? AND state = 'running' AND lease_owner = ?",
            (job.seq, worker_id),
        ).fetchone()
        return found is not None

    @off_loop
    def renew(self, job: Job, worker_id: str, lease_seconds: float) -> bool:
        """See :meth:`JobQueue.renew`."""
        with self._write("renew lease") as conn:
            if not self._owned(conn, job, worker_id):
                return False
            conn.execute("UPDATE jobs SET lease_expires_at = ? WHERE seq = ?",
                         (_ts(utcnow() + timedelta(seconds=lease_seconds)), job.seq))
            return True

    @off_loop
    def complete(self, job: Job, worker_id: str) -> bool:
        """See :meth:`JobQueue.complete`."""
        with self._write("complete job") as conn:
            if not self._owned(conn, job, worker_id):
                return False
            conn.execute(
                "UPDATE jobs SET state = 'done', finished_at = ?, lease_owner = NULL, "
                "lease_expires_at = NULL, last_error = NULL WHERE seq = ?",
                (_ts(utcnow()), job.seq),
            )
            return True

    @off_loop
    def fail(self, job: Job, worker_id: str, error: str, retry_at: datetime | None) -> bool:
        """See :meth:`JobQueue.fail`."""
        with self._write("fail job") as conn:
            if not self._owned(conn, job, worker_id):
                return False
            if retry_at is None:
                conn.execute(
                    "UPDATE jobs SET state = 'failed', finished_at = ?, lease_owner = NULL, "
                    "lease_expires_at = NULL, last_error = ? WHERE seq = ?",
                    (_ts(utcnow()), error[:2000], job.seq),
                )
            else:
                conn.execute(
                    "UPDATE jobs SET state = 'queued', available_at = ?, lease_owner = NULL, "
                    "lease_expires_at = NULL, last_error = ? WHERE seq = ?",
                    (_ts(retry_at), error[:2000], job.seq),
                )
            return True

    @off_loop
    def release(self, job: Job, worker_id: str) -> bool:
        """See :meth:`JobQueue.release`."""
        with self._write("release job") as conn:
            if not self._owned(conn, job, worker_id):
                return False
            conn.execute(
                "UPDATE jobs SET state = 'queued', available_at = ?, lease_owner = NULL, "
                "lease_expires_at = NULL, attempts = max(attempts - 1, 0) WHERE seq = ?",
                (_ts(utcnow()), job.seq),
            )
            return True

    @off_loop
    def jobs(self, user_id: str | None = None, states: Sequence[JobState] | None = None
                   ) -> list[Job]:
        """See :meth:`JobQueue.jobs`."""
        sql = f"SELECT {_JOB_COLUMNS} FROM jobs WHERE 1 = 1"
        params: list[object] = []
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(require_scope(user_id))
        if states:
            sql += " AND state IN (SELECT value FROM json_each(?))"
            params.append(json.dumps([JobState(s).value for s in states]))
        with self._read("list jobs") as conn:
            return [_job(row) for row in conn.execute(sql + " ORDER BY seq", params)]

    # -- watermarks and forgetting ---------------------------------------------------------

    @off_loop
    def get_mark(self, user_id: str, thread_id: str | None, step: str) -> int:
        """See :meth:`JobQueue.get_mark`."""
        with self._read("read mark") as conn:
            row = conn.execute(
                "SELECT mark FROM job_marks WHERE user_id = ? AND thread_id = ? AND step = ?",
                (require_scope(user_id), thread_id or _USER_SCOPE, step),
            ).fetchone()
        return -1 if row is None else int(row[0])

    @off_loop
    def set_mark(self, user_id: str, thread_id: str | None, step: str, mark: int) -> None:
        """See :meth:`JobQueue.set_mark`."""
        with self._write("set mark") as conn:
            conn.execute(
                "INSERT INTO job_marks (user_id, thread_id, step, mark) VALUES (?, ?, ?, ?) "
                "ON CONFLICT DO UPDATE SET mark = max(mark, excluded.mark)",
                (require_scope(user_id), thread_id or _USER_SCOPE, step, mark),
            )

    @off_loop
    def purge(self, user_id: str, thread_id: str | None = None) -> dict[str, int]:
        """See :meth:`JobQueue.purge` (the user counter survives a thread purge)."""
        user_id = require_scope(user_id)
        scope = "" if thread_id is None else " AND thread_id = ?"
        params: tuple = (user_id,) if thread_id is None else (user_id, thread_id)
        with self._write("purge jobs") as conn:
            return {
                "jobs": conn.execute(f"DELETE FROM jobs WHERE user_id = ?{scope}", params).rowcount,
                "counters": conn.execute(
                    f"DELETE FROM job_counters WHERE user_id = ?{scope}", params).rowcount,
                "marks": conn.execute(
                    f"DELETE FROM job_marks WHERE user_id = ?{scope}", params).rowcount,
            }

"""Migration 3 of the SQLite store: the tables of automatic processing (see :mod:`.jobs`).

Kept apart from :mod:`.jobs` so :mod:`.migrations` can import it without importing the store.
Statements use ``IF NOT EXISTS`` so the migration is safe to re-apply.
"""

from __future__ import annotations

import sqlite3


def migration_003_jobs(conn: sqlite3.Connection) -> None:
    """Create the counter, job and watermark tables of automatic processing."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS job_counters (
            user_id   TEXT NOT NULL,
            thread_id TEXT NOT NULL,
            seen      INTEGER NOT NULL,
            version   INTEGER NOT NULL,
            PRIMARY KEY (user_id, thread_id)
        )
        """
    )
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS jobs (
            seq              INTEGER PRIMARY KEY AUTOINCREMENT,
            key              TEXT NOT NULL UNIQUE,
            kind             TEXT NOT NULL,
            user_id          TEXT NOT NULL,
            thread_id        TEXT,
            upto             INTEGER NOT NULL,
            state            TEXT NOT NULL,
            attempts         INTEGER NOT NULL DEFAULT 0,
            available_at     REAL NOT NULL,
            lease_owner      TEXT,
            lease_expires_at REAL,
            last_error       TEXT,
            created_at       REAL NOT NULL,
            finished_at      REAL
        )
        """
    )
    conn.execute(
        "CREATE INDEX IF NOT EXISTS jobs_open ON jobs (user_id, seq) "
        "WHERE state IN ('queued', 'running')"
    )
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS job_marks (
            user_id   TEXT NOT NULL,
            thread_id TEXT NOT NULL,
            step      TEXT NOT NULL,
            mark      INTEGER NOT NULL,
            PRIMARY KEY (user_id, thread_id, step)
        )
        """
    )

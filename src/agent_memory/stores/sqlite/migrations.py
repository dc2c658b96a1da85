"""The SQLite store's schema: numbered migrations, and the checks that a file is ours.

Each migration is a function of a connection that is already inside a write transaction; the
store applies the ones newer than ``PRAGMA user_version`` in order and then sets
``user_version`` to the number of migrations, so every open is idempotent and a file written by a
newer library (``user_version`` beyond ``len(MIGRATIONS)``) is refused. Migrations are never
edited once released: a schema change is a new function appended to :data:`MIGRATIONS`.

Before anything writes to a file, :func:`ensure_ours` refuses databases of other programs; after
migrating, :func:`record_embedding` records (first open) or checks the embedding model.

Tables (migration 1)::

    meta          key/value: format marker, embedding model and dimension, creation time
    records       one row per record of any kind; (user_id, id) unique; ``doc`` holds the
                  pydantic JSON, the other columns copy the fields the filters need
    records_fts   FTS5 index of each record's index text, rowid = records.rid (dropped by
                  migration 7)
    vectors       float32 blobs, one per (user_id, record_id, field)
    user_versions a counter per user, bumped by every write to that user's partition, so
                  in-process vector caches of any connection notice changes

Migration 2 (collections): ``records.collection`` (the memory collection a record
belongs to, seed 004) with an index, and ``agent_collections`` (user_id, agent_id, collection):
which collections each agent of a user is bound to.

Migration 3 (automatic processing): ``job_counters``, ``jobs``, ``job_marks``
(:mod:`.jobs_schema`, used by :mod:`.jobs`).

Migration 4 (search at scale): ``records_by_speaker``, a partial index of turns by
``(user_id, speaker)``, so the distinct speakers of a partition are found by skipping through
the index (one seek per name) instead of reading every turn.

Migration 5 (concurrency): ``records.etag`` (record versions for conditional writes),
``records.updated_at`` with an index, a unique ``(user_id, thread_id, seq)`` of turns, control
fields out of ``metadata`` (:mod:`.versions_schema`).

Migration 6 (full-text statistics per user): ``text_users``, ``text_docs``, ``text_postings``
(:mod:`.text_schema`), filled from ``records_fts``; :mod:`.bm25` scores text search from them
with each user's own document count, mean length and document frequencies.

Migration 7 (ingest speed): each record's index text moves to ``text_docs.text`` (a plain
column, read by exports) and ``records_fts`` is dropped. Nothing else reads it since migration 6
(whose fill of the per-user tables on older files is its last use) and writing it cost about
0.15 ms per record; the FTS5 tokenizer itself is still what produces the terms (:mod:`.bm25`).
On a file of 100k LoCoMo turns (a 47 MiB FTS5 table) the migration took 1.8 s inside the
opening transaction (loaded machine); the freed pages are reused by later writes (the file
shrinks only with ``VACUUM``).

Migration 8 (temporal validity): ``records.valid_from`` and ``records.valid_until`` (epoch
seconds; facts and insights only, null for other kinds) with the index ``records_by_validity``
on ``(user_id, kind, valid_from, valid_until)``, so an ``as_of`` read is a range condition in
SQL. Existing facts get ``valid_from = created_at`` (what a fact without one reads as); facts
retired by a contradiction get ``valid_until`` = their winner's ``created_at``, written into
the document too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ...errors import EmbeddingMismatchError, NotAStoreError, SchemaVersionError
from ...models import utcnow
from ..base import EmbeddingSpec
from .jobs_schema import migration_003_jobs
from .text_schema import migration_006_text_index
from .versions_schema import migration_005_versions

APPLICATION_ID = 0x414D454D
"""``PRAGMA application_id`` of our files (ASCII ``AMEM``), so ``file(1)`` and we can tell."""

FORMAT = "agent-memory"
"""Value of ``meta['format']``: the marker that a database is an agent-memory store."""

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
"""FTS5 tokenizer: Unicode word split, accents folded, Porter stemming (English)."""


def _m001_initial(conn: sqlite3.Connection) -> None:
    """Create the meta, records, FTS, vector and per-user version tables."""
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta (key, value) VALUES ('format', ?)", (FORMAT,))
    # ``rid`` is an alias of the rowid, stable across VACUUM, used as the FTS rowid; the
    # logical key is (user_id, id).
    conn.execute(
        """
        CREATE TABLE records (
            rid           INTEGER PRIMARY KEY,
            user_id       TEXT NOT NULL,
            id            TEXT NOT NULL,
            kind          TEXT NOT NULL,
            thread_id     TEXT,
            agent_id      TEXT,
            seq           INTEGER,
            created_at    REAL NOT NULL,
            content_hash  TEXT,
            category      TEXT,
            processed     INTEGER,
            superseded_by TEXT,
            doc           TEXT NOT NULL,
            UNIQUE (user_id, id)
        )
        """
    )
    conn.execute("CREATE INDEX records_by_time ON records (user_id, created_at, seq, id)")
    conn.execute(
        "CREATE INDEX records_by_thread ON records (user_id, thread_id, created_at, seq, id)"
    )
    conn.execute("CREATE INDEX records_by_kind ON records (user_id, kind, created_at)")
    conn.execute(
        "CREATE INDEX records_by_hash ON records (user_id, content_hash) "
        "WHERE content_hash IS NOT NULL"
    )
    conn.execute(f"CREATE VIRTUAL TABLE records_fts USING fts5(text, tokenize = '{FTS_TOKENIZER}')")
    conn.execute(
        """
        CREATE TABLE vectors (
            user_id   TEXT NOT NULL,
            record_id TEXT NOT NULL,
            field     TEXT NOT NULL,
            vec       BLOB NOT NULL,
            PRIMARY KEY (user_id, record_id, field),
            FOREIGN KEY (user_id, record_id) REFERENCES records (user_id, id) ON DELETE CASCADE
        )
        """
    )
    conn.execute("CREATE TABLE user_versions (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL)")


def _m002_collections(conn: sqlite3.Connection) -> None:
    """Add ``records.collection`` and the ``agent_collections`` binding table."""
    conn.execute("ALTER TABLE records ADD COLUMN collection TEXT")
    conn.execute(
        "CREATE INDEX records_by_collection ON records (user_id, collection, created_at) "
        "WHERE collection IS NOT NULL"
    )
    conn.execute(
        """
        CREATE TABLE agent_collections (
            user_id    TEXT NOT NULL,
            agent_id   TEXT NOT NULL,
            collection TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (user_id, agent_id, collection)
        )
        """
    )


SPEAKER = "json_extract(doc, '$.speaker')"
"""The SQL expression of a turn's speaker; queries must spell it exactly so to use the index."""


def _m004_speakers(conn: sqlite3.Connection) -> None:
    """Index the turns by speaker (for :meth:`.store.SQLiteStore.speakers`)."""
    conn.execute(
        f"CREATE INDEX records_by_speaker ON records (user_id, {SPEAKER}) WHERE kind = 'turn'"
    )


def _m007_drop_fts(conn: sqlite3.Connection) -> None:
    """Move each record's index text to ``text_docs.text`` and drop ``records_fts``: text
    search reads the per-user tables of migration 6."""
    conn.execute("ALTER TABLE text_docs ADD COLUMN text TEXT NOT NULL DEFAULT ''")
    conn.execute(
        "UPDATE text_docs SET text = f.text FROM records_fts f WHERE f.rowid = text_docs.rid"
    )
    conn.execute("DROP TABLE records_fts")


def _m008_validity(conn: sqlite3.Connection) -> None:
    """Add the valid-time columns of facts and their index; fill them for existing facts."""
    conn.execute("ALTER TABLE records ADD COLUMN valid_from REAL")
    conn.execute("ALTER TABLE records ADD COLUMN valid_until REAL")
    conn.execute(
        "CREATE INDEX records_by_validity ON records (user_id, kind, valid_from, valid_until) "
        "WHERE valid_from IS NOT NULL"
    )
    conn.execute("UPDATE records SET valid_from = created_at WHERE kind IN ('fact', 'insight')")
    conn.execute(
        """
        UPDATE records SET
            valid_until = (SELECT w.created_at FROM records w
                           WHERE w.user_id = records.user_id AND w.id = records.superseded_by),
            doc = json_set(doc, '$.valid_until', (
                SELECT strftime('%Y-%m-%dT%H:%M:%fZ', w.created_at, 'unixepoch')
                FROM records w
                WHERE w.user_id = records.user_id AND w.id = records.superseded_by))
        WHERE kind IN ('fact', 'insight') AND superseded_by IS NOT NULL
          AND json_extract(doc, '$.supersede_reason') = 'contradict'
          AND EXISTS (SELECT 1 FROM records w
                      WHERE w.user_id = records.user_id AND w.id = records.superseded_by)
        """
    )


Migration = Callable[[sqlite3.Connection], None]

MIGRATIONS: list[Migration] = [
    _m001_initial, _m002_collections, migration_003_jobs, _m004_speakers,
    migration_005_versions, migration_006_text_index, _m007_drop_fts, _m008_validity,
]
"""Every migration in order; migration ``i`` (1-based) brings ``user_version`` to ``i``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this library writes."""


def pending(current: int) -> list[tuple[int, Migration]]:
    """Return ``(version, migration)`` pairs still to apply to a file at version ``current``."""
    return [(i, m) for i, m in enumerate(MIGRATIONS, start=1) if i > current]


def ensure_ours(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that is neither empty nor an agent-memory store. Reads only.

    Raises:
        NotAStoreError: foreign tables without our ``meta`` marker, or another application id.
    """
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        )
    }
    if not tables and app_id in (0, APPLICATION_ID):
        return
    foreign = NotAStoreError(
        f"{path} is an SQLite database of another program, not an agent-memory store"
    )
    if app_id not in (0, APPLICATION_ID) or "meta" not in tables:
        raise foreign
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.OperationalError as exc:
        raise foreign from exc
    if row is None or row[0] != FORMAT:
        raise foreign


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Apply the pending migrations inside the caller's write transaction.

    Args:
        conn: a connection inside ``BEGIN IMMEDIATE`` (so two processes opening a fresh file at
            once cannot both migrate it).
        path: the file, for messages.

    Returns:
        The number of migrations applied (0 when the schema is current).

    Raises:
        SchemaVersionError: the file's ``user_version`` is newer than :data:`SCHEMA_VERSION`.
    """
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path} has schema version {current}, newer than this library's "
            f"{SCHEMA_VERSION}; upgrade agent-memory"
        )
    todo = pending(current)
    for version, migration in todo:
        migration(conn)
        conn.execute(f"PRAGMA user_version = {version}")
    return len(todo)


def check_embedding(stored: EmbeddingSpec | None, wanted: EmbeddingSpec, path: Path) -> None:
    """Raise :class:`EmbeddingMismatchError` naming both specs when they differ."""
    if stored is not None and stored != wanted:
        raise EmbeddingMismatchError(
            f"{path} was built with embedding model {stored.model!r} ({stored.dim} dims) but "
            f"{wanted.model!r} ({wanted.dim} dims) is configured; use the same embedder or a "
            "new store file"
        )


def record_embedding(conn: sqlite3.Connection, wanted: EmbeddingSpec, path: Path) -> EmbeddingSpec:
    """Record the embedding spec in ``meta`` on first open, else check it (in a transaction).

    Returns:
        The spec the file was built with.

    Raises:
        EmbeddingMismatchError: the file records another model or dimension.
    """
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')"
        ).fetchall()
    )
    if not meta:
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("embedding_model", wanted.model),
                ("embedding_dim", str(wanted.dim)),
                ("created_at", utcnow().isoformat()),
            ],
        )
        return wanted
    stored = EmbeddingSpec(model=meta["embedding_model"], dim=int(meta["embedding_dim"]))
    check_embedding(stored, wanted, path)
    return stored

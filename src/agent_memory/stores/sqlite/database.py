"""The SQLite file behind a store: its writer connection, lock, worker pool and error mapping.

:class:`Database` opens the file (refusing files that are not ours, checking its integrity,
migrating it and recording the embedding spec), hands out connections -- the one writer under
its lock (:meth:`Database.write`: one ``BEGIN IMMEDIATE`` transaction), or a worker's own
read connection (:meth:`Database.reader`) -- and turns ``sqlite3`` errors into
:class:`~agent_memory.errors.StoreError` subclasses (:meth:`Database.translate`), with the
original kept as ``__cause__``. The store (:mod:`.store`), its writes (:mod:`.writer`), reads
(:mod:`.reads`), vector snapshots (:mod:`.snapshots`) and the job queue (:mod:`.jobs`) all
go through it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from ...errors import InvalidInputError, NotAStoreError, StoreError
from ...models import RECORD_ADAPTER, MemoryRecord
from ..base import EmbeddingSpec
from .connections import ConnectionPool, check_integrity
from .migrations import check_embedding, ensure_ours, migrate, record_embedding

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
BUSY_TIMEOUT_S = 5.0
"""How long a connection waits for another's write lock (seconds)."""


class Database:
    """One store file: the writer connection (``None`` until :meth:`open`), its lock, the
    recorded embedding spec and the worker pool.

    Args:
        path: the database file (created with its parent directory on :meth:`open`).
        threads: worker threads of the pool (>= 1), each with its own read connection.

    Attributes:
        path: the file.
        lock: the re-entrant lock every use of the writer connection holds.
        conn: the writer connection, ``None`` while closed.
        spec: the embedding spec recorded in the file, ``None`` while closed.
        pool: the worker pool, ``None`` before :meth:`open` and after :meth:`close`.
    """

    def __init__(self, path: Path, threads: int) -> None:
        self.path = path
        self.threads = threads
        self.lock = threading.RLock()
        self.conn: sqlite3.Connection | None = None
        self.spec: EmbeddingSpec | None = None
        self.pool: ConnectionPool | None = None

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self, embedding: EmbeddingSpec) -> None:
        """Start the worker pool, then open, migrate and check the file on one of its
        workers (see :meth:`open_file`); a failed first open stops the pool again."""
        pool, fresh = self.pool, self.pool is None or self.pool.closed
        if fresh:  # set before the first await: a concurrent open() shares this pool
            pool = self.pool = ConnectionPool(self.path, self.threads, BUSY_TIMEOUT_S)
        assert pool is not None
        try:
            await pool.run(self.open_file, embedding)
        except BaseException:
            if fresh and self.conn is None:
                self.pool = None
                await asyncio.to_thread(pool.close)
            raise

    def open_file(self, embedding: EmbeddingSpec) -> None:
        """Connect, migrate and record (or check) the embedding spec in one transaction; only
        check the spec when already open.

        Raises:
            NotAStoreError, CorruptStoreError, EmbeddingMismatchError, SchemaVersionError,
            StoreError: see :meth:`.store.SQLiteStore.open`.
        """
        with self.lock:
            if self.conn is not None:
                check_embedding(self.spec, embedding, self.path)
                return
            conn = self.connect()
            try:
                with self.translate("open"):
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        migrate(conn, self.path)
                        self.spec = record_embedding(conn, embedding, self.path)
                        conn.execute("COMMIT")
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
            except BaseException:
                conn.close()
                raise
            self.conn = conn

    def connect(self) -> sqlite3.Connection:
        """Connect, refuse files that are not ours, then set the pragmas (which write).

        Raises:
            NotAStoreError: a directory, not SQLite, or another program's database.
            CorruptStoreError: the file fails ``PRAGMA quick_check``.
            StoreError: the file cannot be created or opened.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_dir():
                raise NotAStoreError(f"{self.path} is a directory, not an agent-memory store")
            if self.path.exists() and self.path.stat().st_size > 0:
                with self.path.open("rb") as fh:
                    if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                        raise NotAStoreError(f"{self.path} is not an SQLite database")
        except OSError as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from exc
        with self.translate("open"):
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
        try:
            with self.translate("open"):
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                check_integrity(conn, self.path)  # before the first write (the pragmas below)
                ensure_ours(conn, self.path)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def stop_pool(self) -> None:
        """Stop the worker pool after the calls under way finish (safe to call twice)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()

    def close_connection(self) -> None:
        """Close the writer connection (after a ``PRAGMA optimize``); the caller holds
        :attr:`lock`. Safe to call twice."""
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass  # only a planner hint; closing matters more
            conn.close()

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The spec recorded in the file, read without writing (see
        :meth:`.store.SQLiteStore.recorded_embedding`).

        Raises:
            NotAStoreError: the path is a directory, not SQLite, or another program's database.
            StoreError: the file cannot be read.
        """
        if self.spec is not None and self.conn is not None:
            return self.spec
        if self.path.is_dir():
            raise NotAStoreError(f"{self.path} is a directory, not an agent-memory store")
        from .export import recorded_embedding

        def read() -> EmbeddingSpec | None:
            with self.translate("read embedding"):
                return recorded_embedding(self.path)

        return await asyncio.to_thread(read)

    # -- connections -----------------------------------------------------------------------

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding spec recorded in the file.

        Raises:
            StoreError: the store is not open.
        """
        self.require_conn()
        assert self.spec is not None
        return self.spec

    def require_conn(self) -> sqlite3.Connection:
        """The writer connection.

        Raises:
            StoreError: the store is not open.
        """
        if self.conn is None:
            raise StoreError(f"store {self.path} is not open; call `await store.open(spec)`")
        return self.conn

    @contextmanager
    def reader(self, snapshot: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection to read with: the pool worker's own (no lock needed), or the writer
        connection under the lock on any other thread. ``snapshot``: the statements inside
        see one state of the file (one read transaction).

        Raises:
            StoreError: the store is not open.
        """
        self.require_conn()
        pool = self.pool
        reader = pool.reader() if pool is not None else None
        if reader is None:
            with self.lock:
                yield self.require_conn()
            return
        if not snapshot:
            yield reader
            return
        with self.translate("read"):
            reader.execute("BEGIN")
        try:
            yield reader
        finally:
            if reader.in_transaction:
                reader.execute("COMMIT")

    @contextmanager
    def write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the writer connection, under the lock, with
        errors translated: committed when the block ends, rolled back when it raises.

        Raises:
            StoreError: the store is not open, or the database failed (rolled back).
        """
        with self.lock:
            conn = self.require_conn()
            with self.translate(action):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise

    @contextmanager
    def translate(self, action: str) -> Iterator[None]:
        """Turn ``sqlite3`` errors raised inside into :class:`StoreError` subclasses.

        Raises:
            NotAStoreError: the file is not a database or is malformed.
            InvalidInputError: text that cannot be encoded as UTF-8.
            StoreError: any other ``sqlite3`` error, named after ``action``.
        """
        try:
            yield
        except sqlite3.DatabaseError as exc:
            text = str(exc)
            if "not a database" in text or "malformed" in text:
                raise NotAStoreError(f"{self.path} is not a store or is corrupt: {text}") from exc
            raise StoreError(f"{action} failed on {self.path}: {text}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"{action} failed on {self.path}: {exc}") from exc
        except UnicodeEncodeError as exc:
            raise InvalidInputError(f"{action}: text cannot be encoded as UTF-8: {exc}") from exc

    def parse(self, doc: str) -> MemoryRecord:
        """A stored JSON document as its record.

        Raises:
            StoreError: the document no longer validates against the record models.
        """
        try:
            return RECORD_ADAPTER.validate_json(doc)
        except ValidationError as exc:
            raise StoreError(f"{self.path}: a stored record no longer validates: {exc}") from exc

"""Reading back what was written to an SQLite store: its users, each record's index text and
vectors, and the embedding model recorded in a file before it is opened
(:attr:`~agent_memory.stores.base.Capability.EXPORT`, used by :mod:`agent_memory.copy`).

Every function reads only. :func:`recorded_embedding` opens the file read-only (``mode=ro``), so
looking at a source never creates, migrates or locks it for writing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ...models import MemoryRecord
from ..base import EmbeddingSpec, Indexed
from .migrations import ensure_ours


def users(conn: sqlite3.Connection) -> list[str]:
    """Every user id with a record, sorted (a walk of ``records_by_time``, whose first column
    is ``user_id``)."""
    return [u for (u,) in conn.execute("SELECT DISTINCT user_id FROM records ORDER BY user_id")]


def indexed(conn: sqlite3.Connection, user_id: str, ids: Sequence[str],
            parse: Callable[[str], MemoryRecord]) -> list[Indexed]:
    """The user's records with these ids, their full-text entries and vectors, in the order of
    ``ids`` (missing and repeated ids skipped). Run it inside one read transaction so the
    three come from one state of the file.

    Vectors come back as the float32 values stored (little-endian blobs), bit for bit.
    """
    wanted = json.dumps(list(dict.fromkeys(ids)))
    rows = conn.execute(
        "SELECT r.id, r.doc, f.text FROM records r LEFT JOIN text_docs f ON f.rid = r.rid "
        "WHERE r.user_id = ? AND r.id IN (SELECT value FROM json_each(?))",
        (user_id, wanted),
    ).fetchall()
    vectors: dict[str, dict[str, np.ndarray]] = {}
    for record_id, name, blob in conn.execute(
        "SELECT record_id, field, vec FROM vectors WHERE user_id = ? "
        "AND record_id IN (SELECT value FROM json_each(?)) ORDER BY record_id, field",
        (user_id, wanted),
    ):
        vectors.setdefault(record_id, {})[name] = np.frombuffer(blob, dtype="<f4").astype(
            np.float32)
    found = {rid: Indexed(parse(doc), text or "", vectors.get(rid, {}))
             for rid, doc, text in rows}
    return [found[i] for i in dict.fromkeys(ids) if i in found]


def recorded_embedding(path: Path) -> EmbeddingSpec | None:
    """The embedding spec recorded in the file at ``path``, read without writing anything.

    Returns:
        The spec, or ``None`` when there is no file, an empty one, or a store not yet opened
        with an embedder.

    Raises:
        NotAStoreError: the file is not SQLite, or a database of another program.
        sqlite3.Error: the file cannot be read (the caller translates it).
    """
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return None
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        ensure_ours(conn, path)
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            return None
        meta = dict(conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')"))
    finally:
        conn.close()
    if "embedding_model" not in meta or "embedding_dim" not in meta:
        return None
    return EmbeddingSpec(model=meta["embedding_model"], dim=int(meta["embedding_dim"]))

"""Migration 5: record versions, turn order held by the schema, typed control fields.

- ``records.etag``: the version token of each record (16 hex chars, new on every write);
  conditional writes compare it (:mod:`.writes`). Existing rows get one, also copied into
  their JSON document so a read returns it.
- ``records.updated_at`` (seconds since the epoch) with ``records_by_update`` on
  ``(user_id, kind, updated_at)``, so incremental steps read only what changed.
- ``turns_by_seq``: a unique partial index on ``(user_id, thread_id, seq)`` of turns. A thread
  whose turns share a ``seq`` (written concurrently by an older library) is renumbered first,
  in ``(seq, created_at, rid)`` order, so no turn is lost.
- ``records.pending``: 1 for a record stored without vectors (a session's turn whose
  embedding is deferred), with the partial index ``records_pending``, so the turns still to
  embed are found by an index seek from any process.
- Control fields that older libraries kept in ``metadata`` (``pinned``, ``merged_from``,
  ``audit``, ``supersede_evidence`` of facts; ``aggregated_at`` of thread summaries) move to
  their typed fields; a session record written by the memory keeper (it has an
  ``init_block``) gets ``folded_seq`` = its ``watermark_seq``, the meaning the field had.
"""

from __future__ import annotations

import json
import sqlite3

_FACT_KEYS = ("pinned", "merged_from", "audit", "supersede_evidence")


def _renumber_duplicate_seqs(conn: sqlite3.Connection) -> None:
    threads = conn.execute(
        "SELECT user_id, thread_id FROM records WHERE kind = 'turn' "
        "GROUP BY user_id, thread_id HAVING count(*) > count(DISTINCT seq)"
    ).fetchall()
    for user_id, thread_id in threads:
        rows = conn.execute(
            "SELECT rid FROM records WHERE kind = 'turn' AND user_id = ? AND thread_id IS ? "
            "ORDER BY seq, created_at, rid",
            (user_id, thread_id),
        ).fetchall()
        for seq, (rid,) in enumerate(rows):
            conn.execute(
                "UPDATE records SET seq = ?, doc = json_set(doc, '$.seq', ?) WHERE rid = ?",
                (seq, seq, rid),
            )


def _move_control_fields(conn: sqlite3.Connection) -> None:
    rows = conn.execute(
        "SELECT rid, kind, doc FROM records WHERE kind IN ('fact', 'insight', 'summary') "
        "AND json_type(doc, '$.metadata') = 'object' AND ("
        + " OR ".join(f"json_type(doc, '$.metadata.{k}') IS NOT NULL"
                      for k in (*_FACT_KEYS, "aggregated_at"))
        + ")"
    ).fetchall()
    for rid, kind, doc in rows:
        data = json.loads(doc)
        metadata = data.get("metadata") or {}
        keys = ("aggregated_at",) if kind == "summary" else _FACT_KEYS
        for key in keys:
            if key in metadata:
                data[key] = metadata.pop(key)
        metadata.pop("aggregated_with", None)
        conn.execute("UPDATE records SET doc = ? WHERE rid = ?", (json.dumps(data), rid))


def migration_005_versions(conn: sqlite3.Connection) -> None:
    """Add record versions, ``updated_at``, the unique turn order; move control fields."""
    conn.execute("ALTER TABLE records ADD COLUMN etag TEXT")
    conn.execute("ALTER TABLE records ADD COLUMN updated_at REAL")
    conn.execute("ALTER TABLE records ADD COLUMN pending INTEGER")
    conn.execute(
        "UPDATE records SET pending = 1 WHERE kind = 'turn' AND NOT EXISTS "
        "(SELECT 1 FROM vectors v WHERE v.user_id = records.user_id "
        "AND v.record_id = records.id)"
    )
    conn.execute(
        "UPDATE records SET doc = json_set(doc, '$.folded_seq', "
        "json_extract(doc, '$.watermark_seq')) WHERE kind = 'summary' "
        "AND json_type(doc, '$.init_block') = 'text'"
    )
    _renumber_duplicate_seqs(conn)
    _move_control_fields(conn)
    conn.execute(
        "UPDATE records SET etag = lower(hex(randomblob(8))), "
        "updated_at = (julianday(json_extract(doc, '$.updated_at')) - 2440587.5) * 86400.0"
    )
    conn.execute("UPDATE records SET doc = json_set(doc, '$.etag', etag)")
    conn.execute(
        "CREATE UNIQUE INDEX turns_by_seq ON records (user_id, thread_id, seq) "
        "WHERE kind = 'turn'"
    )
    conn.execute("CREATE INDEX records_by_update ON records (user_id, kind, updated_at)")
    conn.execute(
        "CREATE INDEX records_pending ON records (user_id, thread_id) WHERE pending = 1")

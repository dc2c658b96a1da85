"""Migration 6: the per-user full-text statistics and postings that :mod:`.bm25` scores from.

Tables::

    text_users     uid INTEGER PRIMARY KEY, user_id UNIQUE, docs, tokens, changes
    text_docs      rid (records.rid, ON DELETE CASCADE), uid, length, terms (JSON array);
                   migration 7 adds ``text`` (the index text)
    text_postings  (uid, term, rid) PRIMARY KEY -> tf, length; WITHOUT ROWID

``text_docs`` and ``text_postings`` are written by code (:func:`.bm25.index_documents`);
triggers on ``text_docs`` remove a document's postings with it and move its user's ``docs``,
``tokens`` and ``changes`` in the same transaction. Users are numbered (``uid``) so postings do not repeat long user ids.

An existing file is filled from its FTS5 index (``fts5vocab`` over ``records_fts``: the terms
and counts FTS5 itself indexed), one statement per table, inside the migration's transaction.
"""

from __future__ import annotations

import sqlite3

_TABLES = (
    """
    CREATE TABLE text_users (
        uid     INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL UNIQUE,
        docs    INTEGER NOT NULL DEFAULT 0,
        tokens  INTEGER NOT NULL DEFAULT 0,
        changes INTEGER NOT NULL DEFAULT 0
    )
    """,
    """
    CREATE TABLE text_docs (
        rid    INTEGER PRIMARY KEY REFERENCES records (rid) ON DELETE CASCADE,
        uid    INTEGER NOT NULL,
        length INTEGER NOT NULL,
        terms  TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE text_postings (
        uid    INTEGER NOT NULL,
        term   TEXT NOT NULL,
        rid    INTEGER NOT NULL,
        tf     INTEGER NOT NULL,
        length INTEGER NOT NULL,
        PRIMARY KEY (uid, term, rid)
    ) WITHOUT ROWID
    """,
)

_TRIGGERS = (
    # The postings themselves are inserted by the writer (it has the counts); the trigger only
    # moves the user's statistics.
    """
    CREATE TRIGGER text_docs_added AFTER INSERT ON text_docs BEGIN
        UPDATE text_users SET docs = docs + 1, tokens = tokens + new.length,
                              changes = changes + 1
        WHERE uid = new.uid;
    END
    """,
    """
    CREATE TRIGGER text_docs_removed AFTER DELETE ON text_docs BEGIN
        DELETE FROM text_postings WHERE uid = old.uid AND rid = old.rid
            AND term IN (SELECT value FROM json_each(old.terms));
        UPDATE text_users SET docs = docs - 1, tokens = tokens - old.length,
                              changes = changes + 1
        WHERE uid = old.uid;
    END
    """,
)


def migration_006_text_index(conn: sqlite3.Connection) -> None:
    """Create the per-user full-text tables and fill them from ``records_fts``."""
    for sql in _TABLES:
        conn.execute(sql)
    conn.execute("INSERT INTO text_users (user_id) SELECT DISTINCT user_id FROM records")
    conn.execute(
        "CREATE VIRTUAL TABLE temp.records_fts_instance USING fts5vocab(main, records_fts, "
        "instance)"
    )
    try:
        # Every step a sort or a primary-key look-up: linear in the postings.
        conn.execute(
            "CREATE TEMP TABLE text_counts AS SELECT doc AS rid, term, count(*) AS tf "
            "FROM temp.records_fts_instance GROUP BY doc, term"
        )
        conn.execute(
            "CREATE TEMP TABLE text_lengths (rid INTEGER PRIMARY KEY, length INTEGER, terms TEXT)"
        )
        conn.execute(
            "INSERT INTO temp.text_lengths SELECT rid, sum(tf), json_group_array(term) "
            "FROM temp.text_counts GROUP BY rid"
        )
        conn.execute(
            """
            INSERT INTO text_docs (rid, uid, length, terms)
            SELECT r.rid, u.uid, coalesce(l.length, 0), coalesce(l.terms, '[]')
            FROM records r JOIN text_users u ON u.user_id = r.user_id
            LEFT JOIN temp.text_lengths l ON l.rid = r.rid
            """
        )
        conn.execute(
            "INSERT INTO text_postings (uid, term, rid, tf, length) "
            "SELECT d.uid, c.term, c.rid, c.tf, d.length "
            "FROM temp.text_counts c JOIN text_docs d ON d.rid = c.rid "
            "ORDER BY d.uid, c.term, c.rid"  # in key order: appends, not page-by-page inserts
        )
        conn.execute(
            "UPDATE text_users SET docs = s.docs, tokens = s.tokens FROM "
            "(SELECT uid, count(*) AS docs, sum(length) AS tokens FROM text_docs GROUP BY uid) s "
            "WHERE s.uid = text_users.uid"
        )
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.text_lengths")
        conn.execute("DROP TABLE IF EXISTS temp.text_counts")
        conn.execute("DROP TABLE temp.records_fts_instance")
    for sql in _TRIGGERS:
        conn.execute(sql)

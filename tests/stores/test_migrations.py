"""Migrations on files written by older schemas: versions, turn order, control fields (5),
the per-user text index (6), no FTS5 table (7), valid time of facts (8)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agent_memory.errors import ConflictError
from agent_memory.models import Fact, ThreadSummary, Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from agent_memory.stores.sqlite.migrations import FTS_TOKENIZER

SPEC = EmbeddingSpec(model="test:four", dim=4)
TURNS = RecordQuery(kinds=frozenset({"turn"}))


def restore_records_fts(conn: sqlite3.Connection) -> None:
    """Undo migration 7: the FTS5 index older libraries wrote with every record (rowid =
    ``records.rid``), holding each record's index text (in these tests, its content)."""
    conn.execute(f"CREATE VIRTUAL TABLE records_fts USING fts5(text, tokenize = '{FTS_TOKENIZER}')")
    conn.execute("INSERT INTO records_fts (rowid, text) "
                 "SELECT rid, json_extract(doc, '$.content') FROM records")


def roll_back_to_7(path: Path) -> None:
    """Undo migration 8 on a closed file: no valid-time columns, no valid time in documents."""
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX records_by_validity")
        for column in ("valid_from", "valid_until"):
            conn.execute(f"ALTER TABLE records DROP COLUMN {column}")
        conn.execute("UPDATE records SET doc = json_remove(doc, '$.valid_from', "
                     "'$.valid_until')")
        conn.execute("PRAGMA user_version = 7")
    conn.close()


def roll_back_to_4(path: Path) -> None:
    """Undo migrations 8, 7, 6 and 5 on a closed file: what a file of an older library looks
    like."""
    roll_back_to_7(path)
    with sqlite3.connect(path) as conn:
        restore_records_fts(conn)
        for table in ("text_postings", "text_docs", "text_users"):
            conn.execute(f"DROP TABLE {table}")
        for index in ("turns_by_seq", "records_by_update", "records_pending"):
            conn.execute(f"DROP INDEX {index}")
        for column in ("etag", "updated_at", "pending"):
            conn.execute(f"ALTER TABLE records DROP COLUMN {column}")
        conn.execute("UPDATE records SET doc = json_remove(doc, '$.etag', '$.folded_seq', "
                     "'$.aggregated_at', '$.pinned', '$.merged_from', '$.audit', "
                     "'$.supersede_evidence')")
        conn.execute("PRAGMA user_version = 4")
    conn.close()


def turn(i: int, content: str, speaker: str | None = None) -> Indexed:
    return Indexed(Turn(id=f"t{i}", user_id="alice", thread_id="th", role="user", seq=i,
                        speaker=speaker, content=content))


def vec(*xs: float) -> dict[str, np.ndarray]:
    v = np.array([*xs, *[0.0] * (4 - len(xs))], dtype=np.float32)
    return {"content": v / np.linalg.norm(v)}


async def test_a_version_4_file_is_migrated_without_losing_a_turn(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    await store.open(SPEC)
    await store.put([Indexed(Turn(id=f"t{i}", user_id="u", thread_id="th", role="user",
                                  content=f"turn {i}", seq=i), vectors=vec(1, i))
                     for i in range(3)])
    await store.put([Indexed(Fact(id="f1", user_id="u", content="Ana lives in Porto."),
                             vectors=vec(0, 1))])
    await store.put([Indexed(ThreadSummary(id="summary_u_th", user_id="u", thread_id="th",
                                           content="recap", watermark_seq=1,
                                           init_block="block"), vectors=vec(0, 0, 1))])
    await store.close()
    roll_back_to_4(path)
    with sqlite3.connect(path) as conn:
        # what concurrent writers of the older library left: two turns at seq 1; control
        # fields in metadata
        conn.execute("UPDATE records SET seq = 1, doc = json_set(doc, '$.seq', 1) "
                     "WHERE id = 't2'")
        conn.execute("UPDATE records SET doc = json_set(doc, '$.metadata', json(?)) "
                     "WHERE id = 'f1'", (json.dumps({"pinned": True, "merged_from": ["a"],
                                                     "audit": [], "source": "kept"}),))
        conn.execute("UPDATE records SET doc = json_set(doc, '$.metadata', json(?)) "
                     "WHERE id = 'summary_u_th'",
                     (json.dumps({"aggregated_at": "2024-01-01T00:00:00Z"}),))
    conn.close()

    store = SQLiteStore(path)
    await store.open(SPEC)
    turns = await store.list("u", TURNS)
    assert sorted(t.seq for t in turns) == [0, 1, 2]  # renumbered, none lost
    assert all(t.etag for t in await store.list("u", RecordQuery(include_superseded=True)))
    (fact,) = await store.get("u", ["f1"])
    assert isinstance(fact, Fact) and fact.pinned and fact.merged_from == ["a"]
    assert fact.metadata == {"source": "kept"}
    (summary,) = await store.get("u", ["summary_u_th"])
    assert isinstance(summary, ThreadSummary) and summary.aggregated_at is not None
    assert summary.folded_seq == 1  # a keeper's record: its watermark meant folded turns
    with pytest.raises(ConflictError):  # the turn order is now held by the schema
        await store.put([Indexed(Turn(id="t9", user_id="u", thread_id="th", role="user",
                                      content="again", seq=2))])
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_3_file_gains_the_speaker_index(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    await store.open(SPEC)
    await store.put([turn(0, "hi", speaker="Ann"), turn(1, "hey", speaker="Bo")])
    await store.close()
    roll_back_to_4(path)
    with sqlite3.connect(path) as conn:  # then to migration 3
        conn.execute("DROP INDEX records_by_speaker")
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    store = SQLiteStore(path)
    await store.open(SPEC)
    assert await store.speakers("alice") == ["Ann", "Bo"]
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    conn.close()
    assert "records_by_speaker" in names


async def test_a_version_7_file_gains_valid_time(tmp_path: Path) -> None:
    """Facts read as valid from their ``created_at``; a fact retired by a contradiction
    becomes valid until its winner's ``created_at`` (column and document), one merged into a
    duplicate stays hidden from ``as_of`` reads."""
    from datetime import UTC, datetime

    from agent_memory.models import SupersedeReason

    jan, june, july = (datetime(2024, m, 1, tzinfo=UTC) for m in (1, 6, 7))
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    await store.open(SPEC)
    await store.put([
        Indexed(Fact(id="old", user_id="u", content="Ana lives in Porto.", created_at=jan,
                     superseded_by="new", supersede_reason=SupersedeReason.CONTRADICT),
                vectors=vec(1)),
        Indexed(Fact(id="new", user_id="u", content="Ana moved to Lisbon.", created_at=june),
                vectors=vec(1, 1)),
        Indexed(Fact(id="dup", user_id="u", content="Ana lives in Porto!", created_at=jan,
                     superseded_by="old", supersede_reason=SupersedeReason.DUPLICATE),
                vectors=vec(1)),
        turn(0, "hello"),
    ])
    await store.close()
    roll_back_to_7(path)

    store = SQLiteStore(path)
    await store.open(SPEC)
    old, new, dup = await store.get("u", ["old", "new", "dup"])
    assert isinstance(old, Fact) and isinstance(new, Fact) and isinstance(dup, Fact)
    assert (old.valid_from, old.valid_until) == (jan, june)
    assert (new.valid_from, new.valid_until) == (june, None)
    assert (dup.valid_from, dup.valid_until) == (jan, None)
    for moment, expected in ((datetime(2024, 3, 1, tzinfo=UTC), ["old"]), (july, ["new"])):
        query = RecordQuery(kinds=frozenset({"fact"}), as_of=moment)
        assert [r.id for r in await store.list("u", query)] == expected
        hits = await store.vector_search("u", vec(1)["content"], query, k=5)
        assert [h.record.id for h in hits] == expected
    await store.close()
    with sqlite3.connect(path) as conn:
        plan = " ".join(row[-1] for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM records r WHERE r.user_id = 'u' "
            "AND r.kind = 'fact' AND r.valid_from <= 1 AND r.valid_until > 0"))
        assert "records_by_validity" in plan
    conn.close()

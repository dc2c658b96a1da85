"""Full-text BM25 with per-user statistics (``stores/sqlite/bm25.py``, migration 6)."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_memory.models import RecordKind, Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite.bm25 import IDF_FLOOR, idf, tokenize
from agent_memory.stores.sqlite.migrations import FTS_TOKENIZER
from agent_memory.stores.sqlite.query import fts_query, where_clause
from agent_memory.stores.sqlite.text_schema import migration_006_text_index

from .test_migrations import restore_records_fts, roll_back_to_7

SPEC = EmbeddingSpec(model="test:four", dim=4)
ALL = RecordQuery()
TEXTS = [
    "Caroline went running with her dogs by the lake",
    "The dog ran after the ball; Caroline laughed",
    "Melanie paints landscapes of the lake at dawn",
    "A café in Paris served naïve paintings and coffee",
    "Running shoes, running socks, running everything",
    "Melanie adopted a dog named Luna from the shelter last week",
    "?! ... !!",
    "Coffee with Caroline: plans for the charity run",
]
QUERIES = [
    "running dog", "dog dogs", "Caroline lake", "cafe naive coffee", "paintings",
    "Melanie Caroline running coffee dawn", "charity", "nothing matches zzz",
]


def turn(i: int, content: str, user: str = "alice") -> Indexed:
    return Indexed(Turn(id=f"t{i}", user_id=user, thread_id="th", role="user", seq=i,
                        content=content))


async def opened(path: Path, budget: int = 2_000) -> SQLiteStore:
    store = SQLiteStore(path, text_match_budget=budget)
    await store.open(SPEC)
    return store


def fts5_scores(path: Path, text: str) -> dict[str, float]:
    """Record id -> FTS5's own ``-bm25()`` over an FTS5 table of every record's index text
    (here its content) built for the comparison, with table-wide statistics."""
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE VIRTUAL TABLE temp.fts USING fts5(text, tokenize = "
                     f"'{FTS_TOKENIZER}')")
        conn.execute("INSERT INTO temp.fts (rowid, text) "
                     "SELECT rid, json_extract(doc, '$.content') FROM records")
        scores = dict(conn.execute(
            "SELECT r.id, -bm25(fts) FROM temp.fts JOIN records r ON r.rid = fts.rowid "
            "WHERE fts MATCH ?", (fts_query(text),)))
    conn.close()
    return scores


async def test_one_users_scores_equal_fts5_bm25(tmp_path: Path) -> None:
    store = await opened(tmp_path / "m.db")
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    for text in QUERIES:
        hits = await store.text_search("alice", text, ALL, k=50)
        expected = fts5_scores(tmp_path / "m.db", text)
        assert {h.record.id: h.score for h in hits} == pytest.approx(expected, rel=1e-9), text
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
    await store.close()


async def test_scores_use_the_users_statistics_not_the_tables(tmp_path: Path) -> None:
    store = await opened(tmp_path / "m.db")
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    await store.put([turn(100 + i, "dog dog lake", user="bob") for i in range(20)])
    hits = await store.text_search("alice", "dog lake", ALL, k=50)
    # alice: 8 documents, 3 hold "dog" (by stem: "dogs", "dog", "dog"), 2 hold "lake"; her
    # lengths only.
    lengths = [sum(c.values()) for c in tokenize(TEXTS)]
    avgdl = sum(lengths) / len(lengths)
    df = {"dog": 3, "lake": 2}

    def bm25(doc: int, *terms: str) -> float:
        norm = 1.2 * (0.25 + 0.75 * lengths[doc] / avgdl)
        return sum(idf(8, df[t]) * 2.2 / (1 + norm) for t in terms)

    expected = {"t0": bm25(0, "dog", "lake"), "t1": bm25(1, "dog"), "t2": bm25(2, "lake"),
                "t5": bm25(5, "dog")}
    assert {h.record.id: h.score for h in hits} == pytest.approx(expected, rel=1e-12)
    await store.close()


def test_idf_is_floored_like_fts5() -> None:
    assert idf(10, 1) == pytest.approx(math.log(9.5 / 1.5))
    assert idf(10, 5) == IDF_FLOOR and idf(10, 10) == IDF_FLOOR


def test_tokenize_gives_fts5_stems_and_counts() -> None:
    counts = tokenize(["Running runners ran, RUNNING!", "café_naïve", "?!"])
    assert counts == [{"run": 2, "runner": 1, "ran": 1}, {"cafe": 1, "naiv": 1}, {}]
    assert tokenize(["dogs"]) == [{"dog": 1}]  # nothing is left from the previous call
    assert tokenize([]) == []


async def test_search_runs_on_a_read_only_connection(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    expected = [(h.record.id, h.score) for h in await store.text_search("alice", "dog", ALL, 50)]
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("PRAGMA query_only = ON")
    where, params = where_clause("alice", ALL)
    for inside in (False, True):  # its own read transaction, or the caller's
        if inside:
            reader.execute("BEGIN")
        top = store.text_index.search(reader, "alice", ["dog"], where, params, 50)
        ids = dict(reader.execute("SELECT rid, id FROM records").fetchall())
        assert [(ids[rid], score) for rid, score in top] == expected
        assert reader.in_transaction == inside
        if inside:
            reader.execute("COMMIT")
    reader.close()
    await store.close()


def text_tables(path: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    with sqlite3.connect(path) as conn:
        out = (
            conn.execute("SELECT user_id, docs, tokens FROM text_users ORDER BY user_id").fetchall(),
            [(rid, user, length, sorted(json.loads(terms))) for rid, user, length, terms in
             conn.execute("SELECT d.rid, u.user_id, d.length, d.terms FROM text_docs d "
                          "JOIN text_users u USING (uid) ORDER BY rid")],
            conn.execute("SELECT u.user_id, p.term, p.rid, p.tf, p.length FROM text_postings p "
                         "JOIN text_users u USING (uid) ORDER BY 1, 2, 3").fetchall(),
        )
    conn.close()
    return out


def rebuilt(path: Path, copy: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The text tables of ``path`` as migration 6 builds them from an FTS5 index alone."""
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as conn:
        restore_records_fts(conn)
        for table in ("text_postings", "text_docs", "text_users"):
            conn.execute(f"DROP TABLE {table}")
        migration_006_text_index(conn)
    conn.close()
    return text_tables(copy)


async def test_writes_keep_the_statistics_exact(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    await store.put([turn(i, text, user="bob") for i, text in enumerate(TEXTS[:4])])
    await store.put([turn(1, "the dog ran again and again"), turn(9, "new words here"),
                     turn(9, "newer words, once more")],
                    overwrite=True)  # t1 is replaced blind; t9 twice in one batch
    assert await store.delete("alice", ["t2", "t6"]) == 2
    assert await store.delete("bob", ["t0"]) == 1
    await store.close()
    tables = text_tables(path)
    users = {u: (d, t) for u, d, t in tables[0]}
    assert users["alice"][0] == 7 and users["bob"][0] == 3
    assert "newer" in tables[1][-1][3] and "here" not in tables[1][-1][3]  # t9's last text
    with sqlite3.connect(path) as conn:  # the index text itself, kept for exports
        assert conn.execute("SELECT d.text FROM text_docs d JOIN records r USING (rid) "
                            "WHERE r.user_id = 'alice' AND r.id = 't9'").fetchone() == (
            "newer words, once more",)
    conn.close()
    assert tables == rebuilt(path, tmp_path / "copy.db")


async def test_a_version_5_file_gains_the_text_index(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = await opened(path)
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    await store.put([turn(i, text, user="bob") for i, text in enumerate(reversed(TEXTS))])
    before = {q: await store.text_search("alice", q, ALL, k=50) for q in QUERIES}
    await store.close()
    roll_back_to_7(path)
    with sqlite3.connect(path) as conn:  # roll the file back to the schema before the index
        restore_records_fts(conn)
        for table in ("text_postings", "text_docs", "text_users"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("PRAGMA user_version = 5")
    conn.close()
    store = await opened(path)
    for q, hits in before.items():
        again = await store.text_search("alice", q, ALL, k=50)
        assert [(h.record.id, h.score) for h in again] == [(h.record.id, h.score) for h in hits]
    with sqlite3.connect(path) as conn:  # migration 7: the index texts moved, FTS5 gone
        assert conn.execute("SELECT count(*) FROM sqlite_master "
                            "WHERE name LIKE 'records_fts%'").fetchone() == (0,)
        texts = conn.execute("SELECT r.id, r.user_id, d.text FROM records r "
                             "JOIN text_docs d USING (rid)").fetchall()
    conn.close()
    expected = [(f"t{i}", "alice", t) for i, t in enumerate(TEXTS)]
    expected += [(f"t{i}", "bob", t) for i, t in enumerate(reversed(TEXTS))]
    assert sorted(texts) == sorted(expected)
    await store.put([turn(50, "Luna the dog")])
    assert (await store.text_search("alice", "Luna", ALL, k=5))[0].record.id == "t50"
    await store.close()


async def test_filters_apply_and_statistics_stay_the_partitions(tmp_path: Path) -> None:
    store = await opened(tmp_path / "m.db")
    await store.put([turn(i, text) for i, text in enumerate(TEXTS)])
    everything = {h.record.id: h.score
                  for h in await store.text_search("alice", "dog running", ALL, k=50)}
    some = await store.text_search("alice", "dog running", RecordQuery(ids=frozenset({"t1", "t4"})),
                                   k=50)
    # A filter narrows the hits; the scores keep the partition's statistics.
    assert {h.record.id: h.score for h in some} == {i: everything[i] for i in ("t1", "t4")}
    facts = RecordQuery(kinds=frozenset({RecordKind.FACT}))
    assert await store.text_search("alice", "dog", facts, k=50) == []
    assert await store.text_search("nobody", "dog", ALL, k=50) == []
    await store.close()

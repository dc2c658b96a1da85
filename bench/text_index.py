"""What the per-user full-text index costs (``stores/sqlite/bm25.py``, migration 6).

Figures:

- **write time**: the LoCoMo dev turns (``"{speaker}: {text}"``, 2,760) put through
  ``SQLiteStore.put`` in batches of ``--batch`` with random vectors, into a fresh file, with the
  per-user index and without it (the store's call into :mod:`.bm25` replaced by a no-op for the
  comparison), alternating ``--rounds`` times; ms per turn. (Before migration 7 the store also
  wrote the FTS5 table ``records_fts``; the figures of BENCHMARKS.md's "FTS5 alone" include it);
- **space**: pages of the per-user tables against the FTS5 index in ``--store`` (``dbstat``).
  This and the next two figures read ``records_fts``: ``--store`` must be a file written before
  migration 7 (which drops it), read here with ``sqlite3`` alone, never opened by the store;
- **migration**: seconds to build the per-user tables of ``--store`` from its FTS5 index, as
  opening a file written before migration 6 does (on a copy, tables dropped first);
- **document frequencies** of every word of 200 LoCoMo questions in ``--user``'s rows of
  ``--store``: counted through FTS5 (``MATCH`` joined to the user's records, what scoring with
  FTS5 as the matcher would need) against a count in the per-user postings;
- **one FTS5 table per user** (``--per-user-tables N``, the alternative design): schema
  entries, empty-file size, time to create the last user's table and the first query of a
  fresh connection, with N tables in a scratch file.

Usage::

    python bench/text_index.py [--store DIR/scale_locomo_100000.db] [--user scale-user]
        [--rounds 3] [--batch 50] [--per-user-tables 100 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import DEFAULT_LOCOMO, add_src_to_path, print_machine

add_src_to_path()

from agent_memory.datasets.locomo import load_locomo
from agent_memory.stores.base import EmbeddingSpec, Indexed
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite import writer as store_module
from agent_memory.stores.sqlite.bm25 import index_documents, tokenize
from agent_memory.stores.sqlite.migrations import FTS_TOKENIZER
from agent_memory.stores.sqlite.query import match_expression, query_terms
from agent_memory.stores.sqlite.text_schema import migration_006_text_index

SPEC = EmbeddingSpec(model="local:all-MiniLM-L6-v2", dim=384)
TEXT_TABLES = ("text_users", "text_docs", "text_postings")


def turns(path: Path) -> list[Indexed]:
    rng = np.random.default_rng(0)
    out = []
    for sample in load_locomo(path):
        for session in sample.sessions:
            for turn in session.turns:
                vec = rng.standard_normal(SPEC.dim).astype(np.float32)
                out.append(Indexed(turn, f"{turn.speaker}: {turn.content}",
                                   {"content": vec / np.linalg.norm(vec)}))
    return out


async def write_ms(items: list[Indexed], batch: int) -> float:
    """Milliseconds per turn to put ``items`` into a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "m.db")
        await store.open(SPEC)
        t = time.perf_counter()
        for i in range(0, len(items), batch):
            await store.put(items[i:i + batch])
        seconds = time.perf_counter() - t
        await store.close()
    return seconds * 1000 / len(items)


def space(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        pages = dict(conn.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    conn.close()
    mib = 1 << 20
    fts = sum(v for k, v in pages.items() if k.startswith("records_fts")) / mib
    text = sum(v for k, v in pages.items()
               if k.startswith(("text_", "sqlite_autoindex_text_"))) / mib
    whole = sum(pages.values()) / mib
    return (f"space: FTS5 index {fts:.1f} MiB, per-user tables {text:.1f} MiB, "
            f"file {whole:.1f} MiB")


def migration_s(path: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "m.db"
        shutil.copy(path, copy)
        conn = sqlite3.connect(copy, isolation_level=None)
        for table in reversed(TEXT_TABLES):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        t = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        migration_006_text_index(conn)
        conn.execute("COMMIT")
        seconds = time.perf_counter() - t
        rows = conn.execute("SELECT count(*) FROM text_docs").fetchone()[0]
        postings = conn.execute("SELECT count(*) FROM text_postings").fetchone()[0]
        conn.close()
    return f"migration: {rows:,} documents, {postings:,} postings in {seconds:.1f} s"


def frequencies(path: Path, user: str, questions: list[str]) -> str:
    conn = sqlite3.connect(path)
    uid = conn.execute("SELECT uid FROM text_users WHERE user_id = ?", (user,)).fetchone()[0]
    fts, postings = [], []
    for q in questions:
        words = query_terms(q)
        stems = sorted({t for counts in tokenize(words) for t in counts})
        t = time.perf_counter()
        for word in words:
            conn.execute(
                "SELECT count(*) FROM records_fts JOIN records r ON r.rid = records_fts.rowid "
                "WHERE records_fts MATCH ? AND r.user_id = ?", (match_expression([word]), user),
            ).fetchone()
        fts.append(time.perf_counter() - t)
        t = time.perf_counter()
        for stem in stems:
            conn.execute("SELECT count(*) FROM text_postings WHERE uid = ? AND term = ?",
                         (uid, stem)).fetchone()
        postings.append(time.perf_counter() - t)
    conn.close()
    a, b = np.asarray(fts) * 1000, np.asarray(postings) * 1000
    return (f"document frequencies of a question's words, ms p50 / p95: FTS5 MATCH joined to the "
            f"user's records {np.percentile(a, 50):.2f} / {np.percentile(a, 95):.2f}, per-user "
            f"postings {np.percentile(b, 50):.2f} / {np.percentile(b, 95):.2f}")


def per_user_tables(n: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.db"
        conn = sqlite3.connect(path, isolation_level=None)
        create = "CREATE VIRTUAL TABLE fts_{} USING fts5(text, tokenize = '" + FTS_TOKENIZER + "')"
        conn.execute("BEGIN")
        for i in range(n - 1):
            conn.execute(create.format(i))
        conn.execute("COMMIT")
        t = time.perf_counter()
        conn.execute(create.format(n - 1))
        last = time.perf_counter() - t
        conn.close()
        t = time.perf_counter()
        conn = sqlite3.connect(path)
        conn.execute("SELECT count(*) FROM fts_0").fetchone()
        first = time.perf_counter() - t
        entries = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        conn.close()
        size = path.stat().st_size / 1e6
    return (f"{n:,} FTS5 tables: {entries:,} schema entries, empty file {size:.1f} MB, creating "
            f"the last {last * 1000:.0f} ms, first query of a fresh connection "
            f"{first * 1000:.0f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--user", default="scale-user")
    parser.add_argument("--per-user-tables", type=int, nargs="*", default=[])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    args = parser.parse_args()
    print_machine()
    items = turns(args.locomo)
    with_index, without = [], []
    for _ in range(args.rounds):
        store_module.index_documents = index_documents
        with_index.append(await write_ms(items, args.batch))
        store_module.index_documents = lambda *args: None
        without.append(await write_ms(items, args.batch))
    store_module.index_documents = index_documents
    print(f"write: {len(items):,} turns in batches of {args.batch}, ms per turn (median of "
          f"{args.rounds}): with the per-user index {np.median(with_index):.3f}, "
          f"without it {np.median(without):.3f}")
    if args.store is not None:
        print(space(args.store))
        print(migration_s(args.store))
        questions = list(dict.fromkeys(
            q.question for sample in load_locomo(args.locomo) for q in sample.questions))
        print(frequencies(args.store, args.user, questions[:200]))
    for n in args.per_user_tables:
        print(per_user_tables(n), flush=True)


if __name__ == "__main__":
    asyncio.run(main())

"""Latency of ``AsyncMemory.search`` (query embedding included) by partition size, warm process.

For each size (default 1k, 10k, 100k records, all in ONE user's partition; ``--sizes`` takes
any list, e.g. ``--sizes 1000000``) a fresh child process builds a store, then measures:

- the first search after opening the store (hybrid; the embedder already loaded and warm, the
  store's per-user vector cache empty, so it pays loading the partition's vectors from SQLite;
  the file's pages are in the OS cache, having just been written);
- warm search latency p50 / p95 (ms, k = 10) in ``hybrid``, ``vector`` and ``text`` modes over
  ``--queries`` real questions (LoCoMo dev questions, a seeded sample across all categories),
  each call ``AsyncMemory.search(user, question, mode=..., k=10)``: embedding the question
  (vector and hybrid), the store's KNN and/or BM25, fusion, hit building;
- the parts of a hybrid search timed alone (p50 / p95): the query embedding, the store's
  ``vector_search`` and ``text_search`` for the 50 candidates hybrid fusion takes from each;
- peak RSS of the child (MiB): while building, and during the search phase only.

How the stores are built (what is measured is search, not ingest): the LoCoMo dev turns
(``"{speaker}: {text}"``, as the product indexes turns) form a pool of ~2,800 texts embedded
once with the local embedder. Record ``i`` is pool turn ``i mod P``; each further cycle over
the pool renames the speaker (20 names) and perturbs the vector with Gaussian noise
(sigma 0.01 per dimension, cosine ~0.98 to the original) before re-normalising, so no two
records share a vector. Records are :class:`~agent_memory.models.Turn` objects in threads of 25
turns, written straight through ``store.put`` in batches of 1,000 (one transaction each).
Without the dataset, synthetic sentences and questions stand in.

Bar (issue 2): p50 <= 20 ms at 10k records including the query embedding.

Usage::

    python bench/search_latency.py [--sizes 1000 10000 100000] [--queries 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from _common import (
    DEFAULT_LOCOMO,
    add_src_to_path,
    peak_rss_mb,
    percentiles_ms,
    print_machine,
    reset_peak_rss,
)

add_src_to_path()

from agent_memory import AsyncMemory
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.indexing import index_text
from agent_memory.models import Turn
from agent_memory.retrieval.search import SearchRequest
from agent_memory.stores.base import Indexed, RecordQuery

USER = "bench-user"
MODES = ("hybrid", "vector", "text")
PARTS = ("embed", "store_knn", "store_bm25")
"""Parts of a hybrid search timed alone: query embedding, the store's KNN and BM25 (top 50)."""
BATCH = 1_000
THREAD_TURNS = 25
NOISE_SIGMA = 0.01
NAMES = [
    "Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey",
    "Andrew", "Evan", "Sam", "Calvin", "Dave", "James", "Deborah", "Jolene", "Priya", "Omar",
]


def load_pool(path: Path, n_queries: int, seed: int) -> tuple[list[dict], list[str], str]:
    """Pool turns (speaker, content) and query questions from LoCoMo, or synthetic ones."""
    rng = random.Random(seed)
    if path.exists():
        from agent_memory.datasets.locomo import load_locomo

        samples = load_locomo(path)
        turns = [
            {"speaker": t.speaker, "content": t.content} for s in samples for t in s.turns()
        ]
        questions = [q.question for s in samples for q in s.questions]
        questions = list(dict.fromkeys(questions))
        rng.shuffle(questions)
        return turns, questions[:n_queries], f"LoCoMo dev ({path.name})"
    words = [
        "we", "talked", "about", "the", "trip", "to", "coast", "and", "my", "sister", "moved",
        "last", "year", "new", "job", "starts", "in", "March", "I", "saved", "for", "a", "house",
        "dogs", "running", "marathon", "painting", "books",
    ]
    turns = [
        {"speaker": rng.choice(NAMES), "content": " ".join(rng.choices(words, k=rng.randint(8, 30)))}
        for _ in range(2000)
    ]
    questions = [
        f"What did {rng.choice(NAMES)} say about {' '.join(rng.choices(words, k=3))}?"
        for _ in range(n_queries)
    ]
    return turns, questions, "synthetic (LoCoMo dev set absent)"


def make_turn(i: int, base: dict, start: datetime) -> Turn:
    """Record ``i`` of the store: pool turn ``base``, speaker renamed after the first cycle."""
    return Turn(
        id=f"b{i}", user_id=USER, thread_id=f"thread-{i // THREAD_TURNS}",
        role="user" if i % 2 == 0 else "assistant",
        speaker=base["speaker"], content=base["content"], seq=i % THREAD_TURNS,
        created_at=start + timedelta(minutes=i),
    )


async def build(memory: AsyncMemory, size: int, pool: list[dict], vectors: np.ndarray) -> float:
    """Write ``size`` records (see the module docstring); returns the seconds it took."""
    rng = np.random.default_rng(size)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    n_pool = len(pool)
    t0 = time.perf_counter()
    for lo in range(0, size, BATCH):
        idx = np.arange(lo, min(lo + BATCH, size))
        vecs = vectors[idx % n_pool].copy()
        cycles = idx // n_pool
        noisy = cycles > 0
        if noisy.any():
            vecs[noisy] += rng.normal(0, NOISE_SIGMA, (int(noisy.sum()), vecs.shape[1]))
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        batch = []
        for row, i in enumerate(idx.tolist()):
            base = pool[i % n_pool]
            if i >= n_pool:  # a later cycle: another speaker says the same thing
                base = {**base, "speaker": NAMES[(7 * (i // n_pool) + i) % len(NAMES)]}
            turn = make_turn(i, base, start)
            batch.append(Indexed(record=turn, text=index_text(turn),
                                 vectors={"content": vecs[row].astype(np.float32)}))
        await memory.store.put(batch)
    return time.perf_counter() - t0


async def child(size: int, workdir: Path, queries: list[str]) -> dict:
    """Build a store of ``size`` records and time searches on it (runs in its own process)."""
    pool = json.loads((workdir / "pool.json").read_text())
    vectors = np.load(workdir / "pool.npy")
    embedder = LocalEmbedder()
    embedder.load()
    store_path = workdir / f"store-{size}.db"
    async with AsyncMemory.open(store=str(store_path), embedder=embedder) as memory:
        build_s = await build(memory, size, pool, vectors)
    build_peak = peak_rss_mb()
    gc.collect()
    reset_peak_rss()

    # Warm the embedder on unrelated text, then reopen the store: its vector cache is empty.
    await embedder.embed(["warming up the embedder", "a second sentence"])
    async with AsyncMemory.open(store=str(store_path), embedder=embedder) as memory:
        t0 = time.perf_counter()
        await memory.search(USER, queries[0], mode="hybrid", k=10)
        first_ms = (time.perf_counter() - t0) * 1000
        for q in queries[1:6]:  # warm-up
            await memory.search(USER, q, mode="hybrid", k=10)
        # Modes interleaved query by query, so that load from other work on the machine falls
        # on all of them alike. Then the parts of a hybrid search, timed alone.
        samples: dict[str, list[float]] = {m: [] for m in (*MODES, *PARTS)}
        everything = RecordQuery()
        pool = SearchRequest(query="x").pool
        for q in queries:
            for mode in MODES:
                t = time.perf_counter()
                await memory.search(USER, q, mode=mode, k=10)
                samples[mode].append(time.perf_counter() - t)
            t = time.perf_counter()
            qvec = await embedder.embed_one(q)
            samples["embed"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await memory.store.vector_search(USER, qvec, everything, pool)
            samples["store_knn"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await memory.store.text_search(USER, q, everything, pool)
            samples["store_bm25"].append(time.perf_counter() - t)
        figures = {name: percentiles_ms(values) for name, values in samples.items()}
    embedder.close()
    return {
        "size": size, "build_s": build_s, "first_search_ms": first_ms, "latency_ms": figures,
        "peak_rss_build_mb": build_peak, "peak_rss_search_mb": peak_rss_mb(),
        "store_mb": store_path.stat().st_size / 1024**2,
    }


def embed_pool(workdir: Path, turns: list[dict]) -> float:
    """Embed the pool's index texts once; saves ``pool.json`` / ``pool.npy`` in ``workdir``."""
    start = datetime(2023, 1, 1, tzinfo=UTC)
    texts = [index_text(make_turn(i, t, start)) for i, t in enumerate(turns)]
    embedder = LocalEmbedder()
    embedder.load()
    t0 = time.perf_counter()
    vectors = embedder.embed_sync(texts)
    seconds = time.perf_counter() - t0
    embedder.close()
    (workdir / "pool.json").write_text(json.dumps(turns))
    np.save(workdir / "pool.npy", vectors.astype(np.float32))
    return seconds


def print_row(r: dict) -> None:
    """One table row."""
    lat = r["latency_ms"]
    cells = " ".join(f"{lat[m]['p50']:>7.1f}/{lat[m]['p95']:<7.1f}" for m in MODES)
    parts = " ".join(f"{lat[m]['p50']:>5.1f}/{lat[m]['p95']:<5.1f}" for m in PARTS)
    print(
        f"{r['size']:>9,} {r['build_s']:>7.1f}s {r['first_search_ms']:>8.1f} {cells} {parts} "
        f"{r['peak_rss_build_mb']:>6.0f}/{r['peak_rss_search_mb']:<6.0f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200, help="questions per mode")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO, help="locomo_dev.json")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:  # one size, in a fresh process (own peak RSS, own caches)
        queries = json.loads((args.workdir / "queries.json").read_text())
        print(json.dumps(asyncio.run(child(args.child, args.workdir, queries))))
        return 0

    machine = print_machine()
    turns, queries, source = load_pool(args.locomo, args.queries, seed=0)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        workdir = Path(tmp)
        pool_s = embed_pool(workdir, turns)
        (workdir / "queries.json").write_text(json.dumps(queries))
        print(
            f"\nSearch latency: AsyncMemory.search, k=10, one user; records from {source}: "
            f"a pool of {len(turns)} turns embedded once ({pool_s:.1f} s), cycled with renamed "
            f"speakers and perturbed vectors; {len(queries)} distinct questions per mode; "
            f"warm process, query embedding included"
        )
        header = (
            f"{'records':>9} {'build':>8} {'1st (ms)':>8} {'hybrid p50/p95':>15} "
            f"{'vector p50/p95':>15} {'text p50/p95':>15} {'embed':>11} {'store knn':>11} "
            f"{'store bm25':>11} {'RSS MiB b/s':>13}"
        )
        print(header)
        print("-" * len(header))
        for size in args.sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(size), "--workdir", str(workdir)],
                check=False, capture_output=True, text=True,
            )
            if out.returncode != 0:
                print(f"{size:>9,} failed:\n{out.stderr}", file=sys.stderr)
                return 1
            r = json.loads(out.stdout.strip().splitlines()[-1])
            results.append(r)
            print_row(r)
    print(
        "(ms; 1st = first hybrid search after opening the store, which loads the partition's "
        "vectors; embed / store knn / store bm25 = the parts of a hybrid search timed alone "
        "(top 50 each); RSS b/s = peak while building / during the searches; "
        "bar: hybrid p50 <= 20 ms at 10k)"
    )
    if args.json:
        args.json.write_text(json.dumps(
            {"machine": machine, "source": source, "queries": len(queries), "results": results},
            indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

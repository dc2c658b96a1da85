"""Benchmark of the SQLite store alone: put throughput and warm search latency by size.

For 1k, 10k and 100k records in one user's partition (random unit vectors of 384 dimensions,
synthetic turns of 8-30 words drawn by Zipf's law from a vocabulary of 20,000 made-up words),
it prints:

- put throughput (records/s, batches of 1,000, each batch one transaction);
- the first vector search after the writes (loads the user's vectors into the cache, ms);
- warm ``vector_search`` p50 / p95 (ms, k = 10), unfiltered and with a thread filter;
- ``vector_search`` right after a one-record ``put`` (an agent's store-then-search loop), ms;
- warm ``text_search`` p50 / p95 (ms, k = 10, queries of 3-6 words from the same vocabulary,
  skipping its 100 most frequent words: they play the part of the English stop words that
  :func:`~agent_memory.stores.sqlite.fts_query` drops from real queries).

No embedding model runs here: the figures are the store's share of a search.

Usage: ``python bench/store_search.py [--sizes 1000 10000 100000] [--queries 200]``
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from agent_memory.models import Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

DIM = 384
VOCAB = 20_000
BATCH = 1_000
USER = "bench-user"
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]


def vocabulary(rng: np.random.Generator) -> list[str]:
    """``VOCAB`` distinct made-up words of 2-4 syllables."""
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        n = int(rng.integers(2, 5))
        words["".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n))] = None
    return list(words)


class ZipfWords:
    """Draws words by Zipf's law (P(rank r) proportional to 1/r, as in English text) from
    ``words[skip:]``."""

    def __init__(self, words: list[str], skip: int = 0) -> None:
        self.pool = words[skip:]
        weights = 1.0 / np.arange(1, len(self.pool) + 1)
        self.cdf = np.cumsum(weights / weights.sum())

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        picks = np.searchsorted(self.cdf, rng.random(n), side="right")
        return [self.pool[min(i, len(self.pool) - 1)] for i in picks]


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ms = np.asarray(samples) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


async def run_size(root: Path, size: int, queries: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    words = vocabulary(rng)
    doc_words, query_words = ZipfWords(words), ZipfWords(words, skip=100)
    store = SQLiteStore(root / f"store-{size}.db")
    await store.open(EmbeddingSpec(model="bench:random", dim=DIM))
    start = datetime(2024, 1, 1, tzinfo=UTC)

    put_seconds = 0.0
    for lo in range(0, size, BATCH):
        n = min(BATCH, size - lo)
        vecs = unit_vectors(rng, n)
        lengths = rng.integers(8, 31, n)
        batch = []
        for j in range(n):
            i = lo + j
            text = " ".join(doc_words.draw(rng, int(lengths[j])))
            record = Turn(
                id=f"t{i}",
                user_id=USER,
                thread_id=f"th{i // 50}",
                role="user" if i % 2 == 0 else "assistant",
                content=text,
                seq=i % 50,
                created_at=start + timedelta(minutes=i),
            )
            batch.append(Indexed(record, vectors={"content": vecs[j]}))
        t0 = time.perf_counter()
        await store.put(batch)
        put_seconds += time.perf_counter() - t0

    probe = unit_vectors(rng, queries)
    t0 = time.perf_counter()
    await store.vector_search(USER, probe[0], RecordQuery(), 10)
    load_ms = (time.perf_counter() - t0) * 1000

    async def timed(calls) -> tuple[float, float]:
        samples = []
        for call in calls:
            t = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - t)
        return percentiles(samples)

    everything = RecordQuery()
    one_thread = RecordQuery(thread_id=f"th{size // 100}")
    vec = await timed([lambda q=q: store.vector_search(USER, q, everything, 10) for q in probe])
    vec_thread = await timed(
        [lambda q=q: store.vector_search(USER, q, one_thread, 10) for q in probe]
    )
    texts = [" ".join(query_words.draw(rng, int(rng.integers(3, 7)))) for _ in range(queries)]
    txt = await timed([lambda t=t: store.text_search(USER, t, everything, 10) for t in texts])

    # An agent's loop: store a turn, then search. The write is layered onto the warm cache.
    after_put = []
    extra = unit_vectors(rng, 100)
    for j in range(100):
        new = Turn(id=f"new{j}", user_id=USER, thread_id="live", role="user", content="new turn")
        await store.put([Indexed(new, vectors={"content": extra[j]})])
        t0 = time.perf_counter()
        await store.vector_search(USER, probe[j % len(probe)], everything, 10)
        after_put.append(time.perf_counter() - t0)
    put_then_search = percentiles(after_put)
    await store.close()
    return {
        "size": size,
        "put_per_s": size / put_seconds,
        "load_ms": load_ms,
        "vec_p50": vec[0],
        "vec_p95": vec[1],
        "vec_thread_p50": vec_thread[0],
        "vec_thread_p95": vec_thread[1],
        "text_p50": txt[0],
        "text_p95": txt[1],
        "after_put_p50": put_then_search[0],
        "after_put_p95": put_then_search[1],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    print(f"SQLite store, one user, dim {DIM}, k=10, {args.queries} warm queries per figure")
    header = (
        f"{'records':>8} {'put rec/s':>10} {'cache load':>11} {'vector p50/p95':>15} "
        f"{'vec+thread p50/p95':>19} {'text p50/p95':>14} {'put;vec p50/p95':>16}"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            r = await run_size(Path(tmp), size, args.queries, seed=size)
            print(
                f"{r['size']:>8,} {r['put_per_s']:>10,.0f} {r['load_ms']:>9.1f}ms "
                f"{r['vec_p50']:>6.2f}/{r['vec_p95']:<6.2f}ms "
                f"{r['vec_thread_p50']:>8.2f}/{r['vec_thread_p95']:<6.2f}ms "
                f"{r['text_p50']:>5.2f}/{r['text_p95']:<6.2f}ms "
                f"{r['after_put_p50']:>6.2f}/{r['after_put_p95']:<6.2f}ms"
            )


if __name__ == "__main__":
    asyncio.run(main())

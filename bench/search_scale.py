"""Search latency at 100k and 1M memories in one user's partition (issue 4 scale bar).

Builds a SQLite store per size with random unit vectors (384 dims) and short synthetic texts,
written in transactions of 20,000 records through ``store.put`` (the product write path minus
the embedder), then measures warm end-to-end search through ``retrieval.search.search`` with
the real local embedder (query embedding included): vector mode and hybrid mode (default
request), p50 / p95 over ``--queries`` queries, after one warm-up search that loads the vector
cache. Also prints the cold load time and the exact KNN share alone.

Usage: ``python bench/search_scale.py [--sizes 100000 1000000] [--queries 50]``
(1M needs about 3 GB of RAM and a few minutes to build.)
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.models import Fact
from agent_memory.retrieval.hits import SearchMode
from agent_memory.retrieval.search import SearchRequest, search
from agent_memory.stores.base import Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

DIM = 384
USER = "scale-user"
VOCAB = 20_000
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]


def vocabulary(rng: np.random.Generator) -> list[str]:
    """``VOCAB`` made-up words of 2-4 syllables; texts draw them by Zipf's law (s = 1.1), so
    posting lists look like a real language's (a tiny vocabulary would make every BM25 query
    touch a large share of the store)."""
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        n = int(rng.integers(2, 5))
        words["".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n))] = None
    return list(words)


def zipf_ids(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Word ids drawn by Zipf's law, capped to the vocabulary."""
    return np.minimum(rng.zipf(1.1, shape) - 1, VOCAB - 1)


VOC = vocabulary(np.random.default_rng(3))


async def build(path: Path, n: int, embedder: LocalEmbedder, batch: int = 20_000) -> float:
    rng = np.random.default_rng(7)
    store = SQLiteStore(path)
    await store.open(embedder.spec)
    t0 = time.perf_counter()
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for lo in range(0, n, batch):
        m = min(batch, n - lo)
        vecs = rng.standard_normal((m, DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        words = zipf_ids(rng, (m, 12))
        items = [
            Indexed(
                record=Fact(id=f"f{lo + i}", user_id=USER, content=" ".join(VOC[w] for w in ws),
                            created_at=start + timedelta(minutes=lo + i), importance=5),
                vectors={"content": vecs[i]},
            )
            for i, ws in enumerate(words.tolist())
        ]
        await store.put(items)
    await store.close()
    return time.perf_counter() - t0


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


async def measure(path: Path, embedder: LocalEmbedder, queries: int) -> dict[str, float]:
    store = SQLiteStore(path)
    await store.open(embedder.spec)
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    await store.vector_search(USER, await embedder.embed_one("warm"), RecordQuery(), 10)
    out["cold load s"] = time.perf_counter() - t0
    rng = np.random.default_rng(11)
    queries_text = [" ".join(VOC[100 + int(w)] for w in rng.integers(0, 5_000, 4))
                    for _ in range(queries)]
    qvec = await embedder.embed_one(queries_text[0])
    knn = []
    for _ in range(queries):
        t = time.perf_counter()
        await store.vector_search(USER, qvec, RecordQuery(), 10)
        knn.append(time.perf_counter() - t)
    out["exact KNN p50 ms"] = pct(knn, 50)
    for mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        times = []
        for i in range(queries):
            request = SearchRequest(query=queries_text[i], mode=mode, k=10)
            t = time.perf_counter()
            await search(store, embedder, USER, request)
            times.append(time.perf_counter() - t)
        out[f"{mode.value} p50 ms"] = pct(times, 50)
        out[f"{mode.value} p95 ms"] = pct(times, 95)
    await store.close()
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--dir", type=Path, default=None, help="keep the stores here")
    args = parser.parse_args()
    embedder = LocalEmbedder()
    await embedder.embed_one("load the model")
    with tempfile.TemporaryDirectory() as tmp:
        base = args.dir or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            path = base / f"scale_{n}.db"
            built = 0.0 if path.exists() else await build(path, n, embedder)
            figures = await measure(path, embedder, args.queries)
            shown = "  ".join(f"{k} {v:.1f}" for k, v in figures.items())
            print(f"{n:>9,} memories  build {built:.0f} s  {shown}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

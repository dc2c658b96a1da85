"""Search latency at 100k and 1M memories in one user's partition, exact and approximate
(issue 4 scale bar: p50 <= 20 ms at 100k and <= 100 ms at 1M, query embedding included; an
approximate index may lose at most 1 point of recall@10 against exact search).

Data (``--data``, both by default):

- ``locomo``: the LoCoMo dev turns (``"{speaker}: {text}"`` index text) embedded once with the
  local embedder (~2,800 texts, cached in ``--dir``), cycled: every further cycle renames the
  speaker and perturbs the vector with Gaussian noise (sigma 0.01 per dimension) before
  re-normalising, as ``bench/search_latency.py`` does. Queries: LoCoMo questions.
- ``gauss``: the LoCoMo texts cycled as in ``locomo``, with vectors drawn from a Gaussian that
  has the mean and covariance of the real LoCoMo turn embeddings (then normalised): every
  vector distinct, with the anisotropy of real sentence embeddings but none of the near-copy
  floods of ``locomo``. Queries: LoCoMo questions.
- ``random``: random unit vectors (384 dims) with 12-word texts drawn by Zipf's law from
  20,000 made-up words. Queries: random unit vectors for the recall figure (the hardest case
  for a graph index: no cluster structure), random word strings for end-to-end latency.

Records are :class:`~agent_memory.models.Turn` objects in threads of 25, written straight into
the SQLite file with ``executemany`` in one transaction (the store's own schema, rows built by
``stores.sqlite.query.record_row``, the per-user full-text index by
``stores.sqlite.bm25.index_documents``: this measures search, not ingest).

Measured per size and data, in one warm process, for ``exact``, ``pca`` and ``hnsw`` stores
(``--index``) on the same file: the first search (loads the partition, and builds the
projection or builds/restores the HNSW graph), the store's KNN alone (k = 10 and k = 50), its
BM25 alone (the 50 candidates of the turns' list, as hybrid search asks), the query embedding
alone, end-to-end ``retrieval.search.search`` in vector and hybrid mode (query embedding
included), RSS growth, and recall@10 of each approximate store against the exact one over
``--recall-queries`` queries (mean share of the exact top 10 that the approximate top 10
returns). The LoCoMo data holds dozens (100k) to hundreds (1M) of near-copies of each turn
whose order among themselves is decided by the noise, so the share of approximate hits whose
cosine reaches the exact 10th one less 0.001 is printed beside it.

Usage::

    python bench/search_scale.py [--sizes 100000 1000000] [--data locomo gauss random]
        [--queries 100] [--recall-queries 300] [--dir DIR]

1M needs about 4 GB of RAM; building the file takes a few minutes and the HNSW graph a few
more (the graph is saved next to the file, so later runs restore it).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from _common import DEFAULT_LOCOMO, add_src_to_path, current_rss_mb, print_machine

add_src_to_path()

from agent_memory.embedders.local import LocalEmbedder
from agent_memory.indexing import index_text
from agent_memory.models import RecordKind, Turn
from agent_memory.retrieval.hits import SearchMode
from agent_memory.retrieval.search import SearchRequest, search
from agent_memory.stores.base import RecordQuery
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite.bm25 import index_documents
from agent_memory.stores.sqlite.query import record_row

DIM = 384
USER = "scale-user"
VOCAB = 20_000
THREAD_TURNS = 25
NOISE_SIGMA = 0.01
TIE = 1e-3
BATCH = 50_000
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
NAMES = [
    "Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey",
    "Andrew", "Evan", "Sam", "Calvin", "Dave", "James", "Deborah", "Jolene", "Priya", "Omar",
]


def vocabulary(rng: np.random.Generator) -> list[str]:
    """``VOCAB`` made-up words of 2-4 syllables (texts draw them by Zipf's law, s = 1.1, so
    posting lists look like a real language's)."""
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        n = int(rng.integers(2, 5))
        words["".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n))] = None
    return list(words)


VOC = vocabulary(np.random.default_rng(3))


def zipf_text(rng: np.random.Generator, words: int) -> str:
    ids = np.minimum(rng.zipf(1.1, words) - 1, VOCAB - 1)
    return " ".join(VOC[i] for i in ids.tolist())


class Data:
    """Texts and vectors of the records, and the queries, of one kind of data."""

    def __init__(self, kind: str, workdir: Path, embedder: LocalEmbedder, locomo: Path) -> None:
        self.kind = kind
        rng = np.random.default_rng(5)
        if kind in ("locomo", "gauss"):
            from agent_memory.datasets.locomo import load_locomo

            cache = workdir / "locomo_pool.npz"
            samples = load_locomo(locomo)
            self.pool = [(t.speaker, t.content) for s in samples for t in s.turns()]
            questions = list(dict.fromkeys(q.question for s in samples for q in s.questions))
            rng.shuffle(questions)
            self.questions = questions
            if cache.exists():
                self.vectors = np.load(cache)["vectors"]
            else:
                texts = [f"{speaker}: {content}" for speaker, content in self.pool]
                self.vectors = embedder.embed_sync(texts).astype(np.float32)
                np.savez(cache, vectors=self.vectors)
            self.query_vectors = embedder.embed_sync(questions).astype(np.float32)
            if kind == "gauss":
                centred = self.vectors - self.vectors.mean(axis=0)
                # Sampling factor L with L @ L.T = covariance (eigen form: robust to rank loss).
                values, vecs = np.linalg.eigh(centred.T @ centred / (len(centred) - 1))
                self.mean = self.vectors.mean(axis=0)
                self.factor = (vecs * np.sqrt(values.clip(0))).astype(np.float32)
        else:
            self.pool = []
            self.questions = [zipf_text(rng, 5) for _ in range(1000)]
            q = rng.standard_normal((1000, DIM), dtype=np.float32)
            self.query_vectors = q / np.linalg.norm(q, axis=1, keepdims=True)

    def batch(self, lo: int, hi: int) -> tuple[list[tuple[str | None, str]], np.ndarray]:
        """Speakers/texts and unit vectors of records ``lo`` to ``hi - 1``."""
        rng = np.random.default_rng(lo + 17)
        idx = np.arange(lo, hi)
        if self.kind == "random":
            vecs = rng.standard_normal((hi - lo, DIM), dtype=np.float32)
            texts = [(None, zipf_text(rng, 12)) for _ in range(hi - lo)]
        elif self.kind == "gauss":
            z = rng.standard_normal((hi - lo, DIM), dtype=np.float32)
            vecs = self.mean + z @ self.factor.T
            texts = self.texts(idx)
        else:
            n_pool = len(self.pool)
            vecs = self.vectors[idx % n_pool].copy()
            noisy = idx >= n_pool
            vecs[noisy] += rng.normal(0, NOISE_SIGMA, (int(noisy.sum()), DIM)).astype(np.float32)
            texts = self.texts(idx)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        return texts, vecs.astype("<f4")

    def texts(self, idx: np.ndarray) -> list[tuple[str | None, str]]:
        """The LoCoMo turns cycled over ``idx``, speakers renamed after the first cycle."""
        n_pool = len(self.pool)
        texts = []
        for i in idx.tolist():
            speaker, content = self.pool[i % n_pool]
            if i >= n_pool:
                speaker = NAMES[(7 * (i // n_pool) + i) % len(NAMES)]
            texts.append((speaker, content))
        return texts


async def build(path: Path, n: int, data: Data, spec) -> float:
    """Write ``n`` turns straight into a fresh store file; returns the seconds it took."""
    store = SQLiteStore(path)
    await store.open(spec)
    conn = store.database.conn
    t0 = time.perf_counter()
    start = datetime(2023, 1, 1, tzinfo=UTC)
    conn.execute("BEGIN IMMEDIATE")
    for lo in range(0, n, BATCH):
        hi = min(lo + BATCH, n)
        texts, vecs = data.batch(lo, hi)
        records, docs, vectors = [], [], []
        for j, (speaker, content) in enumerate(texts):
            i = lo + j
            turn = Turn(
                id=f"t{i}", user_id=USER, thread_id=f"thread-{i // THREAD_TURNS}",
                role="user" if i % 2 == 0 else "assistant", speaker=speaker, content=content,
                seq=i % THREAD_TURNS, created_at=start + timedelta(minutes=i),
            )
            records.append((i + 1, *record_row(turn)))
            docs.append((i + 1, index_text(turn)))
            vectors.append((USER, turn.id, "content", vecs[j].tobytes()))
        conn.executemany(
            "INSERT INTO records (rid, user_id, id, kind, thread_id, agent_id, seq, created_at, "
            "content_hash, category, processed, superseded_by, doc, collection) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", records)
        index_documents(conn, USER, docs)
        conn.executemany(
            "INSERT INTO vectors (user_id, record_id, field, vec) VALUES (?, ?, ?, ?)", vectors)
    conn.execute("INSERT INTO user_versions (user_id, version) VALUES (?, 1)", (USER,))
    conn.execute("COMMIT")
    await store.close()
    return time.perf_counter() - t0


def pct(seconds: list[float]) -> str:
    ms = np.asarray(seconds) * 1000
    return f"{np.percentile(ms, 50):.1f} / {np.percentile(ms, 95):.1f}"


async def timed(fn, *args) -> float:
    t = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - t


async def measure(path: Path, index: str, data: Data, embedder: LocalEmbedder, queries: int,
                  spec) -> tuple[dict[str, str], list[list[tuple[str, float]]]]:
    """Figures for one store kind; also the top-10 ids of every recall query."""
    gc.collect()
    rss0 = current_rss_mb() or 0.0
    store = SQLiteStore(path, vector_index=index)
    await store.open(spec)
    everything = RecordQuery()
    out: dict[str, str] = {}
    first = await timed(store.vector_search, USER, data.query_vectors[0], everything, 10)
    out["first search s"] = f"{first:.1f}"
    rss1 = current_rss_mb() or 0.0
    out["RSS growth MiB"] = f"{rss1 - rss0:.0f}"
    qv = data.query_vectors
    for k in (10, 50):
        times = [await timed(store.vector_search, USER, qv[i % len(qv)], everything, k)
                 for i in range(queries)]
        out[f"store knn k={k} p50/p95 ms"] = pct(times)
    turns = RecordQuery(kinds=frozenset({RecordKind.TURN}))
    texts = [data.questions[i % len(data.questions)] for i in range(queries)]
    times = [await timed(store.text_search, USER, t, turns, 50) for t in texts]
    out["store bm25 k=50 p50/p95 ms"] = pct(times)
    times = [await timed(embedder.embed_one, t) for t in texts]
    out["query embedding p50/p95 ms"] = pct(times)
    for mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        times = []
        for i in range(queries):
            request = SearchRequest(query=data.questions[i % len(data.questions)], mode=mode)
            times.append(await timed(search, store, embedder, USER, request))
        out[f"{mode.value} search p50/p95 ms"] = pct(times)
    tops = []
    for v in data.recall_vectors:
        found = await store.vector_search(USER, v, everything, 10)
        tops.append([(s.record.id, s.score) for s in found])
    await store.close()
    return out, tops


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--data", nargs="+", default=["locomo", "gauss", "random"])
    parser.add_argument("--index", nargs="+", default=["exact", "pca", "hnsw"])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--recall-queries", type=int, default=300)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--dir", type=Path, default=None, help="keep the stores here")
    args = parser.parse_args()
    print_machine()
    embedder = LocalEmbedder()
    await embedder.embed_one("load the model")
    spec = embedder.spec
    with tempfile.TemporaryDirectory() as tmp:
        base = args.dir or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        for kind in args.data:
            if kind in ("locomo", "gauss") and not args.locomo.exists():
                print("locomo: dataset absent, skipped")
                continue
            data = Data(kind, base, embedder, args.locomo)
            nq = args.recall_queries
            data.recall_vectors = data.query_vectors[np.arange(nq) % len(data.query_vectors)]
            for n in args.sizes:
                path = base / f"scale_{kind}_{n}.db"
                built = None
                if not path.exists():
                    built = await build(path, n, data, spec)
                tops: dict[str, list[list[tuple[str, float]]]] = {}
                for index in args.index:
                    figures, tops[index] = await measure(path, index, data, embedder,
                                                         args.queries, spec)
                    shown = "  ".join(f"{k} {v}" for k, v in figures.items())
                    made = f"file built in {built:.0f} s  " if built is not None else ""
                    print(f"{kind} {n:>9,} {index:>5}: {made}{shown}", flush=True)
                if "exact" in tops:
                    for index, found in tops.items():
                        if index == "exact":
                            continue
                        pairs = list(zip(found, tops["exact"], strict=True))
                        recall = np.mean([len({i for i, _ in a} & {i for i, _ in e}) / len(e)
                                          for a, e in pairs if e])
                        # Near-copies tie: also count a hit whose cosine reaches the exact 10th.
                        tied = np.mean([sum(s >= e[-1][1] - TIE for _, s in a) / len(e)
                                        for a, e in pairs if e])
                        print(f"{kind} {n:>9,} {index:>5}: recall@10 vs exact {recall:.4f} "
                              f"(counting ties within {TIE} of the exact 10th cosine: "
                              f"{tied:.4f}) over {nq} queries", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

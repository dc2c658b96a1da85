"""Cost of ``as_of`` reads (temporal validity) against current reads in one SQLite partition.

Data: ``--facts`` facts of one user written through the store (hand-made texts "Person N
lives in city M", random unit vectors of 384 dims, seeded), valid from a day in 2020-2025;
every second fact retired by a contradiction (``superseded_by`` the next one, ``valid_until``
its ``valid_from``), so a past read holds a different half of the facts than a current one.

Measured (median of ``--repeats`` calls, warm): ``list`` of 100 facts and ``count`` with no
cut, with ``as_of`` mid-2022, and the store's KNN (k = 10) with and without ``as_of``. The
KNN repeats one query vector, so both read the product the store keeps for the last query
(as the several lists of one hybrid search do); a new query pays the product once.
Prints one JSON object. Run::

    PYTHONPATH=src python bench/as_of_reads.py --facts 20000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from agent_memory.models import Fact, SupersedeReason
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

DIM = 384
START = datetime(2020, 1, 1, tzinfo=UTC)


def corpus(n: int, rng: np.random.Generator) -> list[Indexed]:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    days = np.sort(rng.integers(0, 6 * 365, n))
    items = []
    for i in range(n):
        begin = START + timedelta(days=int(days[i]))
        retired = i % 2 == 0 and i + 1 < n
        end = START + timedelta(days=int(days[i + 1])) if retired else None
        fact = Fact(id=f"f{i}", user_id="u", content=f"Person {i % 500} lives in city {i}.",
                    created_at=begin, valid_from=begin, valid_until=end,
                    superseded_by=f"f{i + 1}" if retired else None,
                    supersede_reason=SupersedeReason.CONTRADICT if retired else None)
        items.append(Indexed(fact, vectors={"content": vectors[i]}))
    return items


async def timed(call, repeats: int) -> float:
    await call()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - t)
    return round(statistics.median(samples) * 1000, 2)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "m.db", vector_index="exact")
        await store.open(EmbeddingSpec(model="bench:random", dim=DIM))
        items = corpus(args.facts, rng)
        for start in range(0, len(items), 1000):
            await store.put(items[start:start + 1000])
        query = rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        now, past = RecordQuery(limit=100), RecordQuery(
            as_of=datetime(2022, 7, 1, tzinfo=UTC), limit=100)
        out = {"facts": args.facts}
        for name, q in (("current", now), ("as_of", past)):
            whole = q.model_copy(update={"limit": None})
            out[f"{name}_rows"] = await store.count("u", whole)
            out[f"list100_{name}_ms"] = await timed(lambda q=q: store.list("u", q), args.repeats)
            out[f"count_{name}_ms"] = await timed(lambda w=whole: store.count("u", w),
                                                  args.repeats)
            out[f"knn10_{name}_ms"] = await timed(
                lambda w=whole: store.vector_search("u", query, w, k=10), args.repeats)
        await store.close()
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())

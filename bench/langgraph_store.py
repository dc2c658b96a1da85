"""Latency of the LangGraph store (:class:`AgentMemoryStore`) against the client it wraps.

For each size (default 1,000 and 5,000 items in ONE user's namespace ``(user, "memories")``,
plus as many plain facts of the same user outside the store) it measures, warm, with the local
embedder and a fresh SQLite file:

- put throughput: items per second through ``abatch`` of 100 ``PutOp`` s (embedding included);
- ``asearch(("u", "memories"), query=..., limit=10)`` p50 / p95 (ms): reading the user's
  items, hybrid search over them, building ``SearchItem`` s;
- ``AsyncMemory.search(u, query, k=10)`` p50 / p95 (ms) on the same file, the floor;
- ``aget`` p50 / p95 (ms).

Items are sentences generated from templates written for this script (names, places, hobbies);
queries are paraphrases from the same vocabulary.

Usage::

    python bench/langgraph_store.py [--sizes 1000 5000] [--queries 50]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from _common import add_src_to_path, percentiles_ms, print_machine

add_src_to_path()

from langgraph.store.base import PutOp

from agent_memory import AsyncMemory, Settings
from agent_memory.integrations.langgraph import AgentMemoryStore

PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Emeka", "Fatima", "Goran", "Hana", "Ivo", "Jun"]
PLACES = ["Lisbon", "Osaka", "Nairobi", "Quito", "Tallinn", "Hobart", "Porto", "Accra"]
HOBBIES = ["climbing", "pottery", "chess", "sailing", "baking bread", "birdwatching"]
TEMPLATES = ["{p} moved to {c} for a new job.", "{p} spends weekends {h}.",
             "{p}'s sister lives in {c} and teaches {h}.", "{p} wants to learn {h} in {c}."]
QUERIES = ["Who relocated to {c} for work?", "Which friend enjoys {h} on weekends?",
           "Whose sibling is in {c}?"]


def sentence(rng: random.Random, pool: list[str]) -> str:
    return rng.choice(pool).format(p=rng.choice(PEOPLE), c=rng.choice(PLACES),
                                   h=rng.choice(HOBBIES))


async def measure(size: int, queries: int, folder: Path) -> None:
    rng = random.Random(size)
    settings = Settings.load(store=str(folder / f"lg_{size}.db"))
    async with AsyncMemory.open(settings) as memory:
        store = AgentMemoryStore(memory)
        await memory.add_memories("u", [{"content": sentence(rng, TEMPLATES)}
                                        for _ in range(size)])
        start = time.perf_counter()
        for first in range(0, size, 100):
            await store.abatch([PutOp(("u", "memories"), f"k{i}",
                                      {"text": sentence(rng, TEMPLATES)})
                                for i in range(first, min(size, first + 100))])
        rate = size / (time.perf_counter() - start)
        asked = [sentence(rng, QUERIES) for _ in range(queries)]
        store_t, client_t, get_t = [], [], []
        for query in asked:
            t = time.perf_counter()
            await store.asearch(("u", "memories"), query=query, limit=10)
            store_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            await memory.search("u", query, k=10)
            client_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            await store.aget(("u", "memories"), f"k{rng.randrange(size)}")
            get_t.append(time.perf_counter() - t)
        fmt = lambda s: "p50 {p50:.1f} ms, p95 {p95:.1f} ms".format(**percentiles_ms(s))
        print(f"{size} items (+{size} other facts): put {rate:.0f} items/s; "
              f"asearch {fmt(store_t)}; client search {fmt(client_t)}; aget {fmt(get_t)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    print_machine()
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            asyncio.run(measure(size, args.queries, Path(folder)))


if __name__ == "__main__":
    main()

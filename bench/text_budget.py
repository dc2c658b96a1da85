"""Full-text search latency against the match budget (``text_match_budget``) on a large store.

Full-text search scores every row matching any word of a query, so BM25's cost grows with the
summed document frequencies of the words (``stores/sqlite/terms.py``). This script opens a
store built by ``bench/search_scale.py`` (``--dir``; e.g. ``scale_gauss_100000.db``) once per
budget and
times ``text_search`` (the turns' 50 candidates, as hybrid search asks) over LoCoMo questions,
printing p50 / p95 in ms and the mean number of words kept per query.

Usage::

    python bench/text_budget.py STORE.db [--budgets 0 20000 10000 5000 2000] [--queries 200]

The effect of the budget on recall is measured with ``agent-memory eval locomo`` and
``AGENT_MEMORY_TEXT_MATCH_BUDGET`` (BENCHMARKS.md, "Search at scale").
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

import numpy as np
from _common import DEFAULT_LOCOMO, add_src_to_path, print_machine

add_src_to_path()

from agent_memory.datasets.locomo import load_locomo
from agent_memory.models import RecordKind
from agent_memory.stores.base import EmbeddingSpec, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.stores.sqlite.query import query_terms

SPEC = EmbeddingSpec(model="local:all-MiniLM-L6-v2", dim=384)
TURNS = RecordQuery(kinds=frozenset({RecordKind.TURN}))


async def run(path: Path, user: str, budget: int, questions: list[str]) -> str:
    """One line of figures: ``text_search`` p50 / p95 (ms) over ``questions`` with ``budget``,
    and the mean number of words kept (the document-frequency cache is warmed first)."""
    store = SQLiteStore(path, text_match_budget=budget)
    await store.open(SPEC)
    conn = store.database.conn
    assert conn is not None
    kept = [len(store.text_index.kept_terms(conn, user, query_terms(q))) for q in questions]  # warms
    times = []
    for q in questions:
        t = time.perf_counter()
        await store.text_search(user, q, TURNS, 50)
        times.append(time.perf_counter() - t)
    await store.close()
    ms = np.asarray(times) * 1000
    return (f"budget {budget:>7,}: p50 {np.percentile(ms, 50):6.1f} ms  "
            f"p95 {np.percentile(ms, 95):6.1f} ms  words kept {np.mean(kept):.2f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--user", default="scale-user")
    parser.add_argument("--budgets", type=int, nargs="+", default=[0, 20_000, 10_000, 5_000, 2_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    args = parser.parse_args()
    print_machine()
    samples = load_locomo(args.locomo)
    questions = list(dict.fromkeys(q.question for s in samples for q in s.questions))
    questions = questions[: args.queries]
    words = np.mean([len(query_terms(q)) for q in questions])
    print(f"{args.store.name}: {len(questions)} questions, {words:.2f} words each after stop words")
    for budget in args.budgets:
        print(await run(args.store, args.user, budget, questions), flush=True)


if __name__ == "__main__":
    asyncio.run(main())

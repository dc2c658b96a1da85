"""Event-loop lag and search throughput while searches and writes run concurrently.

One store of ``--size`` records in ONE user's partition is built as in
``bench/search_latency.py`` (the LoCoMo dev turns embedded once and cycled with renamed
speakers and perturbed vectors; synthetic sentences when the dataset is absent). Then, for
each store configuration and for ``--duration`` seconds, on one event loop:

- a ticker sleeps 1 ms at a time and records its lag: the time between two wake-ups minus
  the 1 ms asked for (``asyncio.sleep`` granularity alone costs a few hundredths of a ms:
  the ``idle`` row measures the ticker with nothing else running);
- ``--searchers`` tasks (default 8) each call ``AsyncMemory.search(user, question,
  mode="hybrid", k=10)`` back to back over LoCoMo dev questions (query embedding included);
- ``--writers`` tasks (default 2) each call ``AsyncMemory.add_turns`` back to back with
  ``--batch`` turns of their own thread of the same user (embedding, indexing, job counters).

Configurations: the store's thread pool at ``--threads`` workers (default ``1`` and ``0``,
the store's default: two per core), so the difference is what the second core gives. Each
configuration runs ``--rounds`` times, alternating, so that load from other work on the
machine falls on all of them alike; lags are pooled over the rounds and throughputs averaged.

Run against an older library without the thread pool (``threads`` unknown to
``SQLiteStore``), the script measures that library's one configuration, labelled
``no pool``: copy ``bench/`` elsewhere and put the other ``src`` first, e.g.
``cp bench/*.py /tmp/b/ && PYTHONPATH=/work/main/src python /tmp/b/loop_lag.py --locomo ...``.

Two process-wide knobs a server may set are options: ``--switch-interval`` (the GIL switch
interval, ms; a thread waiting for the GIL waits up to this long) and ``--gc-freeze``
(``gc.freeze()`` after the build, so full collections skip the objects alive by then: with
10k records cached they took 55-100 ms under load, the largest lags measured).

Bar (issue 9): lag p99 <= 10 ms under 8 concurrent searches and 2 writers.

The text-search case (issue 18): ``--mode text --searchers 200 --writers 0``, 200 concurrent
full-text searches (no query embedding: everything but the SQLite call is Python on the
loop's side of the store's thread hop). Bar: lag p99 <= 10 ms on a quiet machine.

Usage::

    python bench/loop_lag.py [--size 10000] [--duration 10] [--threads 1 0] [--rounds 2]
        [--searchers 8] [--writers 2] [--batch 1] [--mode hybrid|text|vector] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import DEFAULT_LOCOMO, add_src_to_path, print_machine
from search_latency import USER, build, embed_pool, load_pool

add_src_to_path()

from agent_memory import AsyncMemory
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.stores.sqlite.store import SQLiteStore

TICK_S = 0.001


def has_pool() -> bool:
    """Whether this library's SQLite store has a thread pool (a ``threads`` argument)."""
    return "threads" in inspect.signature(SQLiteStore.__init__).parameters


def make_store(path: Path, threads: int) -> SQLiteStore:
    """The store on ``path`` with ``threads`` workers (0: the store's default)."""
    if not has_pool():
        return SQLiteStore(path)
    return SQLiteStore(path, threads=threads or None)


def label(threads: int) -> str:
    if not has_pool():
        return "no pool"
    return "default" if threads == 0 else f"{threads} thread" + ("s" if threads > 1 else "")


async def ticker(lags: list[float], until: float) -> None:
    """Sleep 1 ms at a time until ``until``; append each wake-up's lag (seconds)."""
    prev = time.perf_counter()
    while prev < until:
        await asyncio.sleep(TICK_S)
        now = time.perf_counter()
        lags.append(now - prev - TICK_S)
        prev = now


async def run_once(path: Path, embedder: LocalEmbedder, threads: int, questions: list[str],
                   texts: list[dict], args: argparse.Namespace, tag: str) -> dict:
    """One configuration for ``args.duration`` seconds; lags, latencies and counts."""
    store = make_store(path, threads)
    async with AsyncMemory.open(store=store, embedder=embedder) as memory:
        for q in questions[:4]:  # loads the partition's vectors; warms the embedder
            await memory.search(USER, q, mode="hybrid", k=10)
        lags: list[float] = []
        latencies: list[float] = []
        written = [0]
        start = time.perf_counter()
        until = start + args.duration

        async def searcher(i: int) -> None:
            j = i
            while time.perf_counter() < until:
                t = time.perf_counter()
                await memory.search(USER, questions[j % len(questions)], mode=args.mode, k=10)
                latencies.append(time.perf_counter() - t)
                j += args.searchers

        async def writer(w: int) -> None:
            j = w
            while time.perf_counter() < until:
                batch = []
                for _ in range(args.batch):
                    turn = texts[j % len(texts)]
                    batch.append({"user_id": USER, "thread_id": f"live-{tag}-{w}",
                                  "role": "user", "speaker": turn["speaker"],
                                  "content": turn["content"]})
                    j += args.writers
                await memory.add_turns(batch)
                written[0] += len(batch)

        await asyncio.gather(
            ticker(lags, until),
            *(searcher(i) for i in range(args.searchers)),
            *(writer(w) for w in range(args.writers)),
        )
        elapsed = time.perf_counter() - start
    return {"lags": lags, "latencies": latencies, "searches": len(latencies),
            "turns": written[0], "seconds": elapsed}


def summary(name: str, runs: list[dict]) -> dict:
    """Pooled lag percentiles (ms) and mean throughputs of one configuration's runs."""
    lags = np.concatenate([np.asarray(r["lags"]) for r in runs]) * 1000
    lat = np.concatenate([np.asarray(r["latencies"] or [np.nan]) for r in runs]) * 1000
    seconds = sum(r["seconds"] for r in runs)
    p50, p99 = np.percentile(lags, [50, 99])
    return {
        "config": name, "runs": len(runs), "ticks_per_s": lags.size / seconds,
        "lag_p50_ms": float(p50), "lag_p99_ms": float(p99), "lag_max_ms": float(lags.max()),
        "searches_per_s": sum(r["searches"] for r in runs) / seconds,
        "search_p50_ms": float(np.nanpercentile(lat, 50)),
        "search_p99_ms": float(np.nanpercentile(lat, 99)),
        "turns_per_s": sum(r["turns"] for r in runs) / seconds,
    }


def print_row(s: dict) -> None:
    print(
        f"{s['config']:>10} {s['ticks_per_s']:>8.0f} {s['lag_p50_ms']:>8.2f} "
        f"{s['lag_p99_ms']:>8.2f} {s['lag_max_ms']:>8.1f} {s['searches_per_s']:>10.1f} "
        f"{s['search_p50_ms']:>8.1f}/{s['search_p99_ms']:<8.1f} {s['turns_per_s']:>8.1f}"
    )


async def measure(args: argparse.Namespace, workdir: Path, questions: list[str],
                  texts: list[dict]) -> list[dict]:
    pool = json.loads((workdir / "pool.json").read_text())
    vectors = np.load(workdir / "pool.npy")
    embedder = LocalEmbedder()
    await embedder.embed(["warm-up"])  # loads the model as the library does: on a worker
    path = workdir / "store.db"
    async with AsyncMemory.open(store=make_store(path, 0), embedder=embedder) as memory:
        build_s = await build(memory, args.size, pool, vectors)
    print(f"built {args.size:,} records in {build_s:.1f} s\n")
    if args.gc_freeze:
        gc.collect()
        gc.freeze()

    idle: list[float] = []
    await ticker(idle, time.perf_counter() + min(args.duration, 3.0))
    configs = args.threads if has_pool() else [0]
    runs: dict[int, list[dict]] = {t: [] for t in configs}
    for r in range(args.rounds):
        for t in configs:
            runs[t].append(await run_once(path, embedder, t, questions, texts, args,
                                          f"{r}-{t}"))
    embedder.close()
    idle_ms = np.asarray(idle) * 1000
    idle_row = {"config": "idle", "ticks_per_s": idle_ms.size / min(args.duration, 3.0),
                "lag_p50_ms": float(np.percentile(idle_ms, 50)),
                "lag_p99_ms": float(np.percentile(idle_ms, 99)),
                "lag_max_ms": float(idle_ms.max()), "searches_per_s": 0.0,
                "search_p50_ms": float("nan"), "search_p99_ms": float("nan"),
                "turns_per_s": 0.0}
    return [idle_row, *(summary(label(t), runs[t]) for t in configs)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="records in the partition")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per run")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 0],
                        help="store pool sizes to compare (0: the store's default)")
    parser.add_argument("--rounds", type=int, default=2, help="runs per configuration")
    parser.add_argument("--searchers", type=int, default=8, help="concurrent search tasks")
    parser.add_argument("--writers", type=int, default=2, help="concurrent add_turns tasks")
    parser.add_argument("--mode", choices=["hybrid", "text", "vector"], default="hybrid",
                        help="search mode of the searchers (text: the full-text case)")
    parser.add_argument("--batch", type=int, default=1, help="turns per add_turns call")
    parser.add_argument("--queries", type=int, default=200, help="distinct questions")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO, help="locomo_dev.json")
    parser.add_argument("--switch-interval", type=float,
                        help="sys.setswitchinterval in ms (Python's default: 5 ms)")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="gc.freeze() once the store is built (as a server may after "
                             "start-up): full collections then skip the objects alive so far")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval / 1000)

    machine = print_machine()
    turns, questions, source = load_pool(args.locomo, args.queries, seed=0)
    with tempfile.TemporaryDirectory(prefix="bench-lag-") as tmp:
        workdir = Path(tmp)
        embed_pool(workdir, turns)
        print(
            f"\nEvent-loop lag: a 1 ms ticker beside {args.searchers} {args.mode} searches (k=10) "
            f"and {args.writers} writers (add_turns of {args.batch}) on one loop; one user of "
            f"{args.size:,} records from {source}; {args.duration:g} s per run, "
            f"{args.rounds} round(s); GIL switch interval {sys.getswitchinterval() * 1000:g} ms"
            + ("; gc.freeze() after the build" if args.gc_freeze else "")
        )
        rows = asyncio.run(measure(args, workdir, questions, turns))
    header = (
        f"{'pool':>10} {'ticks/s':>8} {'lag p50':>8} {'lag p99':>8} {'lag max':>8} "
        f"{'searches/s':>10} {'search p50/p99':>17} {'turns/s':>8}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print_row(row)
    print("(lags and search latencies in ms; lag = time between two ticker wake-ups minus 1 ms; "
          "bar: lag p99 <= 10 ms)")
    by = {row["config"]: row for row in rows}
    if "1 thread" in by and "default" in by and by["1 thread"]["searches_per_s"]:
        gain = by["default"]["searches_per_s"] / by["1 thread"]["searches_per_s"]
        print(f"search throughput, default pool / 1 thread: {gain:.2f}x")
    if args.json:
        args.json.write_text(json.dumps(
            {"machine": machine, "source": source, "size": args.size, "rows": rows},
            indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The cost of the integrity check a SQLite store runs on open (``PRAGMA quick_check``, issue
18): seconds on a store of ``--turns`` turns (100k by default), beside a whole open and the
fuller ``PRAGMA integrity_check`` for scale.

The file holds one user's turns written through ``SQLiteStore.put`` (12-word texts drawn by
Zipf's law from ``bench/search_scale.py``'s made-up words, random unit vectors of 384
dimensions, threads of 25), then is measured cold (the OS page cache dropped is not possible
without root; the first run reads the file after it was written, so the figures are warm
page cache, which is the common case of a service restart) and warm, ``--runs`` times each.

Usage::

    python bench/store_open.py [--turns 100000] [--runs 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from _common import add_src_to_path, print_machine

add_src_to_path()

import numpy as np
from search_scale import DIM, zipf_text

from agent_memory.models import Turn
from agent_memory.stores.base import CONTENT, EmbeddingSpec, Indexed
from agent_memory.stores.sqlite import SQLiteStore

USER = "open-user"
BATCH = 2_000


async def build(path: Path, n: int, spec: EmbeddingSpec) -> float:
    """``n`` turns of one user written through ``SQLiteStore.put`` (the real write path) in
    batches of :data:`BATCH`; returns the seconds it took."""
    store = SQLiteStore(path)
    await store.open(spec)
    rng = np.random.default_rng(5)
    t0 = time.perf_counter()
    for lo in range(0, n, BATCH):
        vecs = rng.standard_normal((min(BATCH, n - lo), DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        await store.put([Indexed(Turn(id=f"t{lo + j}", user_id=USER,
                                      thread_id=f"thread-{(lo + j) // 25}", role="user",
                                      content=zipf_text(rng, 12), seq=(lo + j) % 25),
                                 vectors={CONTENT: vec}) for j, vec in enumerate(vecs)])
    await store.close()
    return time.perf_counter() - t0


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def pragma(path: Path, name: str) -> None:
    with sqlite3.connect(path) as db:
        assert db.execute(f"PRAGMA {name}").fetchone()[0] == "ok"


async def open_close(path: Path, spec: EmbeddingSpec) -> None:
    store = SQLiteStore(path)
    await store.open(spec)
    await store.close()


def show(name: str, seconds: list[float]) -> None:
    print(f"{name:28s} median {statistics.median(seconds) * 1000:9.1f} ms   "
          f"min {min(seconds) * 1000:9.1f} ms   max {max(seconds) * 1000:9.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    print_machine()
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="store_open_"))
    path = workdir / f"open_{args.turns}.db"
    spec = EmbeddingSpec(model="bench:random", dim=DIM)
    if not path.exists():
        seconds = asyncio.run(build(path, args.turns, spec))
        print(f"built {args.turns:,} turns in {seconds:.1f} s")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"file: {path.stat().st_size / 2**20:.1f} MiB, {args.turns:,} turns")
    show("PRAGMA quick_check", timed(lambda: pragma(path, "quick_check"), args.runs))
    show("PRAGMA integrity_check", timed(lambda: pragma(path, "integrity_check"), args.runs))
    show("store open + close", timed(lambda: asyncio.run(open_close(path, spec)), args.runs))


if __name__ == "__main__":
    main()

"""Throughput of ``agent-memory copy`` (:mod:`agent_memory.copy`) between two SQLite files.

Three runs on one source store (``--store PATH``; without it the LoCoMo dev set is ingested
into a temporary store with ``agent-memory ingest --format locomo``, pipeline included):

1. ``copy``: every user into a new file, vectors copied as stored (same embedding spec).
2. ``again``: the same command a second time (every record found equal, nothing written).
3. ``resume``: a new file whose writes fail after half the batches, then the same copy run
   again to finish it; reports the time of the finishing run.

Each run is timed with ``time.perf_counter`` around :func:`agent_memory.copy.copy_memory`
(stores opened inside, closed after), in this process. Prints records per second of each.

Usage::

    python bench/copy_speed.py [--store PATH] [--batch 100]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEFAULT_LOCOMO, print_machine

from agent_memory.copy import copy_memory
from agent_memory.errors import StoreError
from agent_memory.stores.sqlite import SQLiteStore


class FailingStore(SQLiteStore):
    """An SQLite store whose writes fail after ``allowed`` batches."""

    def __init__(self, path: Path, allowed: int) -> None:
        super().__init__(path)
        self.allowed = allowed

    async def put(self, items, *, overwrite: bool = False):
        if self.allowed <= 0:
            raise StoreError("interrupted")
        self.allowed -= 1
        return await super().put(items, overwrite=overwrite)


async def timed(src: Path, dst: SQLiteStore, batch: int):
    source = SQLiteStore(src)
    started = time.perf_counter()
    try:
        report = await copy_memory(source, dst, batch=batch)
    finally:
        await source.close()
        await dst.close()
    return report, time.perf_counter() - started


async def main(store: Path, batch: int, work: Path) -> None:
    first, seconds = await timed(store, SQLiteStore(work / "copy.db"), batch)
    total = first.written
    print(f"copy    {total} records of {len(first.users)} users in {seconds:.2f} s "
          f"({total / seconds:.0f} records/s), per kind {first.copied}; "
          f"{first.counters} counters, {first.marks} marks, {first.jobs} jobs")
    again, seconds = await timed(store, SQLiteStore(work / "copy.db"), batch)
    print(f"again   {sum(again.unchanged.values())} records found equal, {again.written} "
          f"written in {seconds:.2f} s ({total / seconds:.0f} records/s)")
    half = max(1, total // batch // 2)
    try:
        await timed(store, FailingStore(work / "resume.db", half), batch)
    except StoreError:
        pass
    resumed, seconds = await timed(store, SQLiteStore(work / "resume.db"), batch)
    print(f"resume  after {half} of about {total // batch + 1} batches: "
          f"{sum(resumed.unchanged.values())} records skipped, {resumed.written} written in "
          f"{seconds:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="source store (default: LoCoMo ingested)")
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    print_machine()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        store = args.store
        if store is None:
            store = work / "locomo.db"
            subprocess.run([sys.executable, "-c", "from agent_memory.cli.app import main; main()",
                            "ingest",
                            str(DEFAULT_LOCOMO), "--format", "locomo", "--store", str(store)],
                           check=True)
        asyncio.run(main(store, args.batch, work))

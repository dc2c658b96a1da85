"""Run the issue-2 benchmarks in sequence and print everything (``make bench``).

In order: ingest of the LoCoMo dev set with the pipeline and without it
(:mod:`ingest`), ``AsyncMemory.search`` latency by partition size (:mod:`search_latency`),
and the cold ``agent-memory search`` process (:mod:`cold_cli`). Each script runs in its own
process, so each one's peak RSS is its own. The figures and how to read them are in
``BENCHMARKS.md``; the store-only, embedder and reasoner benchmarks (``store_search.py``,
``embed_speed.py``, ``reasoner_speed.py``) are run separately.

Usage::

    python bench/run_all.py [--sizes 1000 10000 100000] [--locomo PATH] [--json-dir DIR]
                            [--quick]

``--quick``: sizes 1k and 10k, 100 queries, 3 cold runs (a few minutes less).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from _common import DEFAULT_LOCOMO

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", help="search_latency sizes")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--json-dir", type=Path, help="write each script's figures here")
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    args = parser.parse_args()

    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    locomo = ["--locomo", str(args.locomo)]
    jobs = [
        ("Ingest, pipeline", "ingest.py", [*locomo]),
        ("Ingest, --no-pipeline", "ingest.py", [*locomo, "--no-pipeline"]),
        ("Search latency", "search_latency.py",
         [*locomo, "--sizes", *map(str, sizes), *(["--queries", "100"] if args.quick else [])]),
        ("Cold CLI search", "cold_cli.py",
         [*locomo, "--profile", *(["--runs", "3"] if args.quick else [])]),
    ]
    if args.json_dir:
        args.json_dir.mkdir(parents=True, exist_ok=True)
    failed = []
    started = time.perf_counter()
    for i, (title, script, extra) in enumerate(jobs):
        print(f"\n{'=' * 20} {title} ({script}) {'=' * 20}", flush=True)
        if args.json_dir:
            extra = [*extra, "--json", str(args.json_dir / f"{i}-{script.removesuffix('.py')}.json")]
        if subprocess.run([sys.executable, str(HERE / script), *extra], check=False).returncode != 0:
            failed.append(title)
    print(f"\nall benchmarks: {time.perf_counter() - started:.0f} s"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

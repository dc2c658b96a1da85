"""Wall time of a cold ``agent-memory search`` process on an existing store.

Each run is a fresh process, ``agent-memory search QUERY --user U --store S`` (Python start-up,
imports, opening the store, loading the ONNX model, embedding the query, hybrid search,
printing the table), timed with ``time.perf_counter`` around ``subprocess`` and reaped with
``os.wait4`` for its peak RSS. Prints every run, the median (``--runs``, default 7) and, when
``hyperfine`` is installed, its figures for the same command (``--warmup 1``).

Then a phase split of one cold process (imports / client open + model load / first search) and,
with ``--profile`` or when the median is over the 2 s bar, the top imports by cumulative time
from ``python -X importtime``.

The store: ``--store PATH`` reuses one; otherwise the LoCoMo dev set is ingested into a
temporary store with ``agent-memory ingest --format locomo`` (pipeline included, so the store
holds turns, summaries, facts and profiles as a real one does).

Bar (issue 2): <= 2 s.

Usage::

    python bench/cold_cli.py [--store PATH] [--user conv-26] [--query TEXT] [--runs 7]
                             [--profile] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEFAULT_LOCOMO, print_machine, rusage_peak_mb

BAR_S = 2.0
CLI = Path(sys.executable).with_name("agent-memory")

_PHASES = """
import asyncio, json, sys, time
t0 = time.perf_counter()
import agent_memory.cli.app
from agent_memory.client import AsyncMemory
from agent_memory.config import Settings
t1 = time.perf_counter()
async def run():
    memory = AsyncMemory(Settings.load(store=sys.argv[1]))
    await memory.connect()
    memory.embedder.load()
    t2 = time.perf_counter()
    await memory.search(sys.argv[2], sys.argv[3], k=10)
    t3 = time.perf_counter()
    await memory.close()
    return t2, t3
t2, t3 = asyncio.run(run())
print(json.dumps({"imports": t1 - t0, "open_and_load": t2 - t1, "first_search": t3 - t2}))
"""


def cli_command(store: Path, user: str, query: str) -> list[str]:
    """The command line measured."""
    return [str(CLI), "search", query, "--user", user, "--store", str(store)]


def build_store(path: Path, locomo: Path) -> float:
    """Ingest the LoCoMo dev set into ``path`` with the CLI; returns the seconds it took."""
    t0 = time.perf_counter()
    subprocess.run(
        [str(CLI), "ingest", str(locomo), "--format", "locomo", "--store", str(path)],
        check=True, capture_output=True,
    )
    return time.perf_counter() - t0


def timed_run(command: list[str]) -> tuple[float, float, str]:
    """Run ``command`` once: (wall seconds, peak RSS MiB, stdout)."""
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{text}")
    return wall, rusage_peak_mb(usage), text


def hyperfine(command: list[str], runs: int) -> dict | None:
    """hyperfine's mean / median / stddev / min / max (s) for ``command``, or None."""
    exe = shutil.which("hyperfine")
    if exe is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        subprocess.run(
            [exe, "--warmup", "1", "--runs", str(runs), "--style", "none", "--export-json",
             export.name, shlex.join(command)],
            check=True, stdout=subprocess.DEVNULL,
        )
        result = json.loads(Path(export.name).read_text())["results"][0]
    return {key: result[key] for key in ("mean", "median", "stddev", "min", "max")}


def phases(store: Path, user: str, query: str) -> dict[str, float]:
    """Seconds of each phase in one cold process (imports, open + model load, first search)."""
    out = subprocess.run(
        [sys.executable, "-c", _PHASES, str(store), user, query],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def import_profile(store: Path, user: str, query: str) -> dict[str, list[tuple[float, str]]]:
    """Where a cold ``search`` spends its import time (``python -X importtime``).

    Returns:
        ``{"packages": [(seconds, name), ...], "ours": [(seconds, module), ...]}``, slowest
        first: ``packages`` sums the self time of every module of each top-level package
        (what each dependency costs in all); ``ours`` is the self time of each
        ``agent_memory`` module (its body: class definitions, pydantic schema building).
    """
    code = (
        "import sys; from agent_memory.cli.app import main; "
        f"sys.argv = ['agent-memory', 'search', {query!r}, '--user', {user!r}, "
        f"'--store', {str(store)!r}]; main()"
    )
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=False, capture_output=True, text=True,
    )
    packages: dict[str, float] = {}
    ours: dict[str, float] = {}
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, _cumulative_us, name = line[len("import time:"):].split("|")
        name = name.strip()
        top = name.split(".")[0]
        packages[top] = packages.get(top, 0.0) + int(self_us) / 1e6
        if top == "agent_memory":
            ours[name] = ours.get(name, 0.0) + int(self_us) / 1e6
    return {
        "packages": sorted(((v, k) for k, v in packages.items()), reverse=True),
        "ours": sorted(((v, k) for k, v in ours.items()), reverse=True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="an existing store (default: build one)")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO, help="to build the store")
    parser.add_argument("--user", default="conv-26")
    parser.add_argument("--query", default="When did Caroline go to the LGBTQ support group?")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="always profile the imports")
    parser.add_argument("--top", type=int, default=15, help="imports listed by the profile")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if not CLI.exists():
        print(f"agent-memory not found next to {sys.executable}", file=sys.stderr)
        return 1
    machine = print_machine()

    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        store = args.store
        build_s = None
        if store is None:
            if not args.locomo.exists():
                print(f"no --store and dataset not found: {args.locomo}", file=sys.stderr)
                return 1
            store = Path(tmp) / "locomo.db"
            build_s = build_store(store, args.locomo)
        elif not store.exists():
            print(f"store not found: {store}", file=sys.stderr)
            return 1
        command = cli_command(store, args.user, args.query)
        size_mb = store.stat().st_size / 1024**2
        origin = f"built from {args.locomo.name} in {build_s:.1f} s" if build_s else "given"
        print(f"\nCold CLI search: store {size_mb:.1f} MiB ({origin}), user {args.user}")
        print(f"command: agent-memory search {args.query!r} --user {args.user} --store STORE")

        runs = [timed_run(command) for _ in range(args.runs)]
        walls = [r[0] for r in runs]
        rss = [r[1] for r in runs]
        median = statistics.median(walls)
        print(
            "runs (s): " + ", ".join(f"{w:.2f}" for w in walls)
            + f"\nmedian {median:.2f} s (bar: <= {BAR_S:.0f} s), min {min(walls):.2f} s; "
            f"peak RSS {statistics.median(rss):.0f} MiB (median; max {max(rss):.0f})"
        )
        hf = hyperfine(command, args.runs)
        if hf:
            print(
                f"hyperfine ({args.runs} runs, 1 warm-up): mean {hf['mean']:.2f} s "
                f"+/- {hf['stddev']:.2f}, median {hf['median']:.2f} s, "
                f"range {hf['min']:.2f}-{hf['max']:.2f} s"
            )
        else:
            print("hyperfine: not installed (apt-get install hyperfine), skipped")

        split = phases(store, args.user, args.query)
        print(
            f"phases of one cold process: imports {split['imports']:.2f} s, open store + load "
            f"model {split['open_and_load']:.2f} s, first search {split['first_search']:.2f} s "
            f"(+ interpreter start-up and printing)"
        )
        profile = None
        if args.profile or median > BAR_S:
            profile = import_profile(store, args.user, args.query)
            total = sum(seconds for seconds, _ in profile["packages"])
            print(f"imports (python -X importtime): {total:.2f} s in all; by package (self time "
                  f"summed over its modules), top {args.top}:")
            print("  " + ", ".join(f"{name} {seconds * 1000:.0f} ms"
                                   for seconds, name in profile["packages"][: args.top]))
            print(f"our modules by self time, top {args.top}:")
            print("  " + ", ".join(f"{name} {seconds * 1000:.0f} ms"
                                   for seconds, name in profile["ours"][: args.top]))

    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine, "runs_s": walls, "median_s": median, "peak_rss_mb": rss,
            "hyperfine": hf, "phases_s": split, "imports": profile, "build_s": build_s,
        }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

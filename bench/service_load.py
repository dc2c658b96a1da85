"""A bounded load test of the REST service on loopback: ``agent-memory serve --workers 2`` over
the embedded SQLite store holding the LoCoMo dev set, driven by concurrent HTTP clients.

Setup (untimed): a fresh SQLite file is filled with ``agent-memory ingest <locomo> --format
locomo --no-pipeline`` (turns only: embedded and indexed, no summaries or facts), an admin API
key is created with ``agent-memory keys create`` (every request still passes the key check),
and ``agent-memory serve --workers N`` starts on a free loopback port. One session per
conversation user is started, so that context requests have a session to render.

Load: ``--requests`` (default 10,000) requests, drawn in a fixed order (``--seed``) with the
mix of the bar -- 70% ``POST /v1/users/{u}/search`` (a LoCoMo question of that user's
conversation, hybrid, k=10), 25% ``POST /v1/users/{u}/threads/{t}/turns`` (a new turn in one
of 8 load threads per user), 5% ``GET /v1/users/{u}/sessions/{s}/context`` -- are sent by
``--clients`` (default 32) asyncio tasks, each with its own httpx connection, taking the next
request from a shared queue as soon as their previous one is answered (closed loop).

Checks: every response is 2xx (any other status or transport error counts as an error), and
no turn is lost: the user's turn count after the run (read through the Python API once the
server has stopped) is the count before plus the turns the service acknowledged, and every
acknowledged turn id is stored.

Prints: the machine, requests/s over the whole run, and p50 / p95 / p99 / max latency (ms)
per request type, measured by the client from sending the request to reading the full
response. The server, the clients and the embedder share the machine's cores: on a 2-core
machine with other work running the figures are load-bound (the load average is printed).

Usage::

    python bench/service_load.py [--requests 10000] [--clients 32] [--workers 2]
                                 [--locomo PATH] [--seed 0] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx
import numpy as np
from _common import DEFAULT_LOCOMO, print_machine

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.models import RecordKind

MIX = (("search", 0.70), ("add_turn", 0.25), ("context", 0.05))
"""Request types and their shares (the bar's mix)."""
LOAD_THREADS = 8
"""New threads per user that the added turns go to."""
SENTENCES = (
    "I went hiking near the lake this weekend and saw a heron.",
    "My sister is visiting next month; we plan to go to the museum.",
    "Work has been busy, we are launching the new app on Friday.",
    "I started taking pottery classes on Tuesday evenings.",
    "We adopted a puppy, she is a golden retriever named Maple.",
    "I am reading a book about the history of jazz.",
)


def _cli() -> list[str]:
    """The ``agent-memory`` command of this interpreter's environment."""
    script = Path(sys.executable).with_name("agent-memory")
    return [str(script)] if script.exists() else [
        sys.executable, "-c", "from agent_memory.cli.app import main; main()"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _turn_counts(store: Path, users: list[str]) -> dict[str, set[str]]:
    """Ids of every stored turn, per user (through the Python API)."""
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        return {user: {t.id for t in await memory.get_memories(user, kinds=[RecordKind.TURN])}
                for user in users}


def _plan(samples, requests: int, seed: int) -> list[tuple[str, str, dict]]:
    """The requests to send, in order: ``(type, user, payload)``."""
    rng = random.Random(seed)
    kinds = [kind for kind, _ in MIX]
    weights = [share for _, share in MIX]
    plan = []
    for i in range(requests):
        sample = rng.choice(samples)
        kind = rng.choices(kinds, weights)[0]
        if kind == "search":
            payload = {"query": rng.choice(sample.questions).question, "k": 10}
        elif kind == "add_turn":
            payload = {"thread": f"load-{rng.randrange(LOAD_THREADS)}",
                       "role": rng.choice(["user", "assistant"]),
                       "content": f"{rng.choice(SENTENCES)} (note {i})"}
        else:
            payload = {}
        plan.append((kind, sample.user_id, payload))
    return plan


async def _client(base: str, key: str, queue: asyncio.Queue, results: dict, added: list,
                  errors: list) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=1)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120.0,
                                 limits=limits) as http:
        while True:
            try:
                kind, user, payload = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            started = time.perf_counter()
            try:
                if kind == "search":
                    response = await http.post(f"/v1/users/{user}/search", json=payload)
                elif kind == "add_turn":
                    body = {k: v for k, v in payload.items() if k != "thread"}
                    response = await http.post(
                        f"/v1/users/{user}/threads/{payload['thread']}/turns", json=body)
                else:
                    response = await http.get(f"/v1/users/{user}/sessions/load/context")
            except httpx.HTTPError as exc:
                errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                continue
            results[kind].append(time.perf_counter() - started)
            if response.is_error:
                errors.append(f"{kind}: HTTP {response.status_code}: {response.text[:200]}")
            elif kind == "add_turn":
                added.append((user, response.json()["id"]))


def _start_server(store: Path, keys: Path, workers: int, port: int) -> subprocess.Popen:
    command = [*_cli(), "serve", "--store", str(store), "--keys", str(keys), "--port",
               str(port), "--workers", str(workers)]
    log = open(store.with_suffix(".server.log"), "w")  # noqa: SIM115 - lives with the process
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "AGENT_MEMORY_STORE": str(store)})


def _wait_ready(base: str, server: subprocess.Popen, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not become ready")


def _row(name: str, seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds) * 1000
    p50, p95, p99 = np.percentile(ms, [50, 95, 99])
    figures = {"count": int(ms.size), "p50": float(p50), "p95": float(p95), "p99": float(p99),
               "max": float(ms.max())}
    print(f"  {name:<9} {ms.size:>6}  p50 {p50:7.1f}  p95 {p95:7.1f}  p99 {p99:7.1f}  "
          f"max {ms.max():7.1f} ms")
    return figures


async def run(args: argparse.Namespace) -> dict:
    machine = print_machine()
    samples = load_locomo(args.locomo)
    users = [s.user_id for s in samples]
    root = Path(tempfile.mkdtemp(prefix="service-load-"))
    store, keys = root / "memory.db", root / "keys.db"
    started = time.perf_counter()
    await asyncio.to_thread(subprocess.run, [*_cli(), "ingest", str(args.locomo), "--format",
                            "locomo", "--no-pipeline", "--store", str(store)], check=True,
                            stdout=subprocess.DEVNULL)
    print(f"ingested {len(users)} LoCoMo dev conversations (turns only, --no-pipeline) in "
          f"{time.perf_counter() - started:.1f} s")
    created = await asyncio.to_thread(
        subprocess.run, [*_cli(), "keys", "create", "--tenant", "bench", "--admin", "--keys",
                         str(keys), "--store", str(store)], check=True, capture_output=True,
        text=True)
    key = created.stdout.strip()
    before = await _turn_counts(store, users)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start_server(store, keys, args.workers, port)
    try:
        _wait_ready(base, server)
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"},
                          timeout=120.0) as http:
            for user in users:
                http.post(f"/v1/users/{user}/sessions", json={"session_id": "load"}
                          ).raise_for_status()
                http.post(f"/v1/users/{user}/search", json={"query": "warm up"}
                          ).raise_for_status()
        queue: asyncio.Queue = asyncio.Queue()
        for item in _plan(samples, args.requests, args.seed):
            queue.put_nowait(item)
        results: dict[str, list[float]] = defaultdict(list)
        added: list[tuple[str, str]] = []
        errors: list[str] = []
        print(f"load: {args.requests} requests, {args.clients} concurrent clients, "
              f"{args.workers} server workers; load average "
              f"{os.getloadavg()[0]:.2f} before")
        began = time.perf_counter()
        await asyncio.gather(*(_client(base, key, queue, results, added, errors)
                               for _ in range(args.clients)))
        elapsed = time.perf_counter() - began
        print(f"load average {os.getloadavg()[0]:.2f} after")
    finally:
        server.terminate()
        server.wait(timeout=60)
    after = await _turn_counts(store, users)
    acknowledged: dict[str, set[str]] = defaultdict(set)
    for user, turn_id in added:
        acknowledged[user].add(turn_id)
    lost = sum(len(acknowledged[u] - after[u]) for u in users)
    unexpected = sum(len(after[u]) - len(before[u]) - len(acknowledged[u]) for u in users)
    done = sum(len(v) for v in results.values())
    print(f"errors: {len(errors)}")
    for line in errors[:5]:
        print(f"  {line}")
    print(f"turns: {sum(map(len, before.values()))} before + {len(added)} acknowledged = "
          f"{sum(map(len, after.values()))} after; lost {lost}, unexpected {unexpected}")
    print(f"throughput: {done / elapsed:.1f} requests/s ({done} in {elapsed:.1f} s)")
    print("latency per request type (client side, ms):")
    rows = {kind: _row(kind, results[kind]) for kind, _ in MIX if results[kind]}
    rows["all"] = _row("all", [s for v in results.values() for s in v])
    search_p95 = rows.get("search", {}).get("p95", float("nan"))
    print(f"search p95 {search_p95:.1f} ms (target <= 100 ms at 32 clients): "
          f"{'met' if search_p95 <= 100 else 'NOT met'}")
    return {"machine": machine, "requests": args.requests, "clients": args.clients,
            "workers": args.workers, "errors": len(errors), "lost_turns": lost,
            "unexpected_turns": unexpected, "requests_per_second": done / elapsed,
            "seconds": elapsed, "latency_ms": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--json", type=Path, default=None, help="Write the figures here.")
    args = parser.parse_args()
    if args.requests < 1 or args.clients < 1 or args.workers < 1:
        parser.error("--requests, --clients and --workers must be >= 1")
    figures = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    failed = figures["errors"] or figures["lost_turns"] or figures["unexpected_turns"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

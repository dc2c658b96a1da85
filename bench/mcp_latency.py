"""Latency of the MCP ``search`` tool over streamable HTTP, against the same search in process.

One LoCoMo dev conversation (``--sample``, default the first) is stored through the Python API
(turns only, no pipeline) in a fresh SQLite file. The MCP HTTP app
(:func:`agent_memory.service.mcp.mcp_http_app`, stateless, JSON responses, a bearer-key
resolver) is served by uvicorn on a loopback port in a thread of this process. Then, over the
conversation's questions (``--queries``, default 100):

- ``in-process``: ``AsyncMemory.search(user, question, k=10)`` (hybrid);
- ``mcp-http``: ``client.call_tool("search", {"query": question, "k": 10})`` through the
  official MCP client (one connection, sequential calls): JSON-RPC over HTTP, the key check,
  argument validation, the same search, output validation and serialization.

Both run warm (one untimed call first) and print p50 / p95 / mean / max in ms. The difference is
the cost of the MCP surface per call. Figures are wall-clock on a shared machine; say so when
quoting them.

Usage::

    python bench/mcp_latency.py [--queries 100] [--sample 0]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
import uvicorn
from _common import DEFAULT_LOCOMO, percentiles_ms, print_machine
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.embedders.local import LocalEmbedder
from agent_memory.service.mcp import mcp_http_app

KEY = "bench-key"


def _serve(app) -> tuple[uvicorn.Server, threading.Thread, int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, port


async def run(queries: int, sample_index: int) -> None:
    sample = load_locomo(DEFAULT_LOCOMO)[sample_index]
    user = sample.sample_id
    questions = [q.question for q in sample.questions][:queries]
    embedder = LocalEmbedder()
    store = Path(tempfile.mkdtemp()) / "memory.db"
    settings = Settings.load(store=str(store))
    async with AsyncMemory.open(settings, embedder=embedder) as memory:
        for session in sample.sessions:
            await memory.add_turns(session.turns)
        turns = len(await memory.get_memories(user, kinds=["turn"]))
        print(f"{user}: {turns} turns, {len(questions)} questions, k=10, hybrid")
        await memory.search(user, questions[0], k=10)
        timings = []
        for question in questions:
            start = time.perf_counter()
            await memory.search(user, question, k=10)
            timings.append(time.perf_counter() - start)
        _report("in-process", timings)

    served = AsyncMemory(settings, embedder=embedder)
    app = mcp_http_app(served, lambda r: user if r.headers.get("authorization") == f"Bearer {KEY}"
                       else None, path="/mcp")
    server, thread, port = _serve(app)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120)
    try:
        async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                                 http_client=http)) as client:
            await client.call_tool("search", {"query": questions[0], "k": 10})
            timings = []
            for question in questions:
                start = time.perf_counter()
                result = await client.call_tool("search", {"query": question, "k": 10})
                timings.append(time.perf_counter() - start)
                assert not result.is_error, result.content
        _report("mcp-http", timings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        await served.close()


def _report(name: str, timings: list[float]) -> None:
    figures = percentiles_ms(timings)
    print(f"{name:<10}  " + "  ".join(f"{k} {v:7.1f} ms" for k, v in figures.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sample", type=int, default=0)
    args = parser.parse_args()
    if not DEFAULT_LOCOMO.exists():
        sys.exit(f"LoCoMo dev set not found at {DEFAULT_LOCOMO}")
    print_machine()
    asyncio.run(run(args.queries, args.sample))


if __name__ == "__main__":
    main()

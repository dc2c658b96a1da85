"""Request units (RU) per operation of the Cosmos DB store: add_turn, search, pipeline steps.

Runs one LoCoMo conversation through an :class:`~agent_memory.AsyncMemory` on a
:class:`~agent_memory.stores.cosmos.CosmosStore` and reads the store's request-charge tally
(``CosmosStore.request_charges``: every SDK response's ``x-ms-request-charge``) around each
phase:

- ``add_turn``: turns written one call at a time (the live-chat path);
- ``add_turns``: a session's turns in one batch (the bulk path);
- ``search``: hybrid, vector and text searches (k=10) with LoCoMo questions;
- ``thread summary`` / ``facts`` / ``profile``: the pipeline steps over the conversation.

For each it prints calls (SDK responses) and RU, per operation. Against a real account
(``--endpoint`` / ``COSMOS_ENDPOINT`` and ``COSMOS_KEY``) the RU are the account's; against the
local test server (the default: started from ``tests/cosmos_server`` when ``--endpoint`` is
not given) every response is charged 1 RU, so the figures count round trips instead.

Usage::

    python bench/cosmos_charges.py [--endpoint URL] [--locomo PATH] [--sessions N]
        [--questions N] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import sys
import time
import uuid
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agent_memory import AsyncMemory, Settings
from agent_memory.datasets.locomo import load_locomo
from agent_memory.stores.cosmos import CosmosSettings, CosmosStore

DEFAULT_LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"


def start_test_server():
    spec = importlib.util.spec_from_file_location(
        "cosmos_test_server", ROOT / "tests" / "cosmos_server" / "server.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    reason = module.unavailable_reason()
    if reason:
        raise SystemExit(f"the local Cosmos DB test server cannot start: {reason}")
    return module.start()


class Phases:
    """Differences of the store's tally between phase boundaries."""

    def __init__(self, store: CosmosStore) -> None:
        self.store = store
        self.rows: list[dict] = []
        self._before = store.request_charges

    def mark(self, phase: str, units: int, unit: str) -> None:
        after = self.store.request_charges
        for operation, charge in sorted(after.items()):
            before = self._before.get(operation)
            calls = charge.calls - (before.calls if before else 0)
            ru = charge.request_units - (before.request_units if before else 0.0)
            if calls:
                self.rows.append({"phase": phase, "operation": operation, "calls": calls,
                                  "ru": ru, "per": units, "unit": unit})
        self._before = after


async def run(args: argparse.Namespace) -> list[dict]:
    sample = load_locomo(args.locomo)[0]
    sessions = sample.sessions[:args.sessions]
    settings = CosmosSettings(endpoint=args.endpoint, key=args.key,
                              database=f"bench_{uuid.uuid4().hex[:8]}")
    store = CosmosStore(settings)
    user = sample.sample_id
    async with AsyncMemory.open(Settings.load(), store=store) as memory:
        phases = Phases(store)
        first, rest = sessions[0], sessions[1:]
        for turn in first.turns:
            await memory.add_turn(user, first.thread_id, turn.role, turn.content,
                                  speaker=turn.speaker, created_at=turn.created_at)
        phases.mark("add_turn (one turn per call)", len(first.turns), "turn")
        turns = 0
        for session in rest:
            await memory.add_turns(session.turns)
            turns += len(session.turns)
        phases.mark("add_turns (one session per call)", turns, "turn")
        questions = [q.question for q in sample.questions[:args.questions]]
        for mode in ("hybrid", "vector", "text"):
            for question in questions:
                await memory.search(user, question, mode=mode, k=10)
            phases.mark(f"search ({mode}, k=10)", len(questions), "search")
        for session in sessions:
            await memory.generate_thread_summary(user, session.thread_id)
        phases.mark("thread summary step", len(sessions), "thread")
        for session in sessions:
            await memory.extract_facts(user, session.thread_id)
        phases.mark("fact extraction step", len(sessions), "thread")
        await memory.generate_user_summary(user)
        phases.mark("profile step", 1, "user")
    return phases.rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", default=os.environ.get("COSMOS_ENDPOINT"))
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")
    server = None
    if args.endpoint:
        args.key = os.environ.get("COSMOS_KEY")
        target = args.endpoint
    else:
        server = start_test_server()
        args.endpoint, args.key = server.endpoint, server.key
        target = f"local test server {server.endpoint} (1 RU per response: round trips)"
    print(f"target: {target}")
    started = time.perf_counter()
    try:
        rows = asyncio.run(run(args))
    finally:
        if server is not None:
            server.stop()
    print(f"{'phase':36} {'operation':18} {'calls':>6} {'RU':>9} {'RU each':>9}")
    for row in rows:
        each = row["ru"] / row["per"] if row["per"] else 0.0
        print(f"{row['phase']:36} {row['operation']:18} {row['calls']:6d} {row['ru']:9.1f} "
              f"{each:9.2f} per {row['unit']}")
    print(f"wall time {time.perf_counter() - started:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

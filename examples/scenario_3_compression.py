"""Scenario 3 (seed 001 section 6.3): real-time context compression.

An 18-turn budget conversation goes through the memory keeper with k=10, N=5: after the 10th
turn the first ten become an interaction and the cumulative summary, and only the last five
stay verbatim. Prints the buffer and the context size after every turn, then the context.

Run: ``python examples/scenario_3_compression.py [--store PATH]`` (offline, embedded default).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from advisor_data import LONG_SESSION, USER

from agent_memory import AsyncMemory, Settings
from agent_memory.tokens import count_tokens


async def main(store: Path) -> None:
    settings = Settings.load(store=str(store), k_turn_buffer=10, n_active_turns=5)
    async with AsyncMemory.open(settings) as memory:
        sid = await memory.start_session(USER)  # a new session on every run
        keeper = await memory.session_keeper(USER, sid)
        history = 0
        print(f"{'turn':>4}  {'buffered':>8}  {'verbatim':>8}  {'history tok':>11}  "
              f"{'context tok':>11}")
        for n, (role, text) in enumerate(LONG_SESSION, 1):
            await keeper.add_turn(role, text)
            history += count_tokens(f"{role}: {text}")
            context = await keeper.get_current_context()
            state = await keeper.state()
            buffered = len(state.buffered)
            note = "  <- pruned: interaction stored, summary updated" if buffered == 0 else ""
            print(f"{n:>4}  {buffered:>8}  {len(state.active_turns):>8}  {history:>11}  "
                  f"{count_tokens(context):>11}{note}")
        print("\nContext after the last turn:\n")
        print(await keeper.get_current_context())
        interactions = await memory.get_memories(USER, kinds=["interaction"])
        print(f"\n{len(interactions)} interaction record(s):")
        for record in interactions:
            print(f"- {record.id}: {len(record.evidence)} turns; topics {record.topics}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.store or Path(tmp) / "demo.db"))

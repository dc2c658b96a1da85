"""A worker process whose thread-summary step never returns, for the signal tests.

Run as ``python blocking_worker.py STORE``. Prints ``started`` once SIGINT/SIGTERM handlers are
in place, ``in job`` when the step is running, and at exit the JSON list of outcome states.
"""

from __future__ import annotations

import asyncio
import json
import sys

from agent_memory import AsyncMemory, Settings
from agent_memory.jobs import Worker, WorkerConfig, queue_for, run_until_signalled
from agent_memory.reasoners.extractive import ExtractiveReasoner


class BlockingReasoner(ExtractiveReasoner):
    """The extractive reasoner, except that summarizing a thread waits forever."""

    async def summarize_thread(self, previous, turns, max_tokens):
        print("in job", flush=True)
        await asyncio.Event().wait()


async def main(store: str) -> None:
    async with AsyncMemory.open(Settings.load(store=store),
                                reasoner=BlockingReasoner()) as memory:
        worker = Worker(memory.components, queue_for(memory.store),
                        config=WorkerConfig(lease_seconds=60, poll_seconds=0.05))
        outcomes = await run_until_signalled(worker,
                                             started=lambda: print("started", flush=True))
    print(json.dumps([o.state for o in outcomes]), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

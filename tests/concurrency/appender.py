"""A writer process for the concurrency tests: ``python appender.py STORE USER THREAD N``.

Adds ``N`` turns one call at a time to one thread (no explicit ``seq``), with automatic
processing on (summary and fact extraction every 20 turns), as a client of the shared file.
"""

from __future__ import annotations

import asyncio
import os
import sys

from agent_memory import AsyncMemory, Settings

EVERY = 20
SENTENCES = ["I adopted a dog named Rex{n}.", "I work as a nurse in ward {n}.",
             "My sister moved to city {n}.", "I ran {n} kilometres this morning."]


async def main(store: str, user: str, thread: str, n: int) -> None:
    settings = Settings.load(store=store, thread_summary_every_n=EVERY,
                             fact_extraction_every_n=EVERY)
    async with AsyncMemory.open(settings) as memory:
        for i in range(n):
            text = SENTENCES[i % len(SENTENCES)].format(n=f"{os.getpid()}-{i}")
            await memory.add_turn(user, thread, "user", text, speaker="Ana")


if __name__ == "__main__":
    store, user, thread, n = sys.argv[1:]
    asyncio.run(main(store, user, thread, int(n)))

"""A third-party command plugin (test fixture): ``agent-memory kinds`` counts a user's records
per kind, with the shared ``--user`` / ``--store`` options and the filter options, and our
errors turned into one line by ``handles_errors``."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import typer

from agent_memory import AsyncMemory, MemoryFilter, Settings
from agent_memory.cli.commands import handles_errors
from agent_memory.cli.options import StoreOpt, UserOpt, filter_options


def register(app: typer.Typer) -> None:
    """Add ``kinds`` to the ``agent-memory`` app."""

    @app.command()
    @handles_errors
    @filter_options
    def kinds(user: UserOpt, filter: MemoryFilter, store: StoreOpt = None) -> None:
        """Count a user's records per kind (JSON)."""

        async def run():
            async with AsyncMemory.open(Settings.load(store=store)) as memory:
                return await memory.get_memories(user, filter=filter)

        counts = Counter(record.kind.value for record in asyncio.run(run()))
        print(json.dumps(dict(sorted(counts.items()))))

"""``agent-memory memories``: list a user's records by filter (the options of
:class:`~agent_memory.filters.MemoryFilter`), a page at a time."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer

from ..filters import MemoryFilter
from ..models import Fact
from .options import StoreOpt, UserOpt, filter_options, reading
from .render import console, short_id, text_table


def register(app: typer.Typer) -> None:
    """Add the ``memories`` command to ``app``."""
    from .commands import handles_errors

    @app.command()
    @handles_errors
    @filter_options
    def memories(
        user: UserOpt,
        filter: MemoryFilter,
        store: StoreOpt = None,
        newest_first: Annotated[bool, typer.Option(
            "--newest-first", help="Newest records first.")] = False,
        limit: Annotated[int, typer.Option("--limit", min=1, max=1000,
                                           help="Records per page.")] = 100,
        cursor: Annotated[str | None, typer.Option(
            "--cursor", help="Continue after this page (the cursor the last one printed).")
        ] = None,
        as_json: Annotated[bool, typer.Option(
            "--json", help="Print the page as JSON: records and cursor.")] = False,
    ) -> None:
        """List a user's records matching the filter, one page at a time.

        Records come in created_at order (--newest-first: descending); pass the printed cursor
        back with --cursor for the next page (keyset paging: pages never shift).
        """
        from ..client import AsyncMemory

        async def run():
            async with AsyncMemory.open(reading(store)) as memory:
                return await memory.get_memories_page(
                    user, filter=filter, newest_first=newest_first, limit=limit, cursor=cursor)

        page = asyncio.run(run())
        if as_json:
            print(json.dumps({"records": [r.model_dump(mode="json") for r in page.records],
                              "cursor": page.cursor}, indent=2))
            return
        table = text_table(f"records of {user} ({len(page.records)})",
                           ["id", "kind", "created"], clipped="thread")
        for record in page.records:
            retired = isinstance(record, Fact) and not record.active
            text = " ".join(record.content.split())
            if retired:
                reason = record.supersede_reason.value if record.supersede_reason else "superseded"
                text = f"(retired: {reason}) {text}"
            table.add_row(short_id(record.id), record.kind.value,
                          f"{record.created_at:%Y-%m-%d %H:%M}", record.thread_id or "-", text)
        console.print(table)
        if page.cursor:
            console.print(f"next page: --cursor {page.cursor}", markup=False, soft_wrap=True)

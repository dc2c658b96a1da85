"""``agent-memory copy SRC DST``: copy users' memory between stores (see :mod:`agent_memory.copy`),
with a progress bar and a summary of counts per kind."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Annotated

import typer
from rich.progress import Progress, TaskID
from rich.table import Table

from ..copy import DEFAULT_BATCH, MAX_BATCH, CopyReport
from .render import console, progress_bar


class BarProgress:
    """Feeds a rich progress bar from a copy (one bar over every user's records), shown from
    the moment the copy starts writing (an error in the checks before prints no bar)."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task: TaskID | None = None

    def start(self, totals: Mapping[str, int]) -> None:
        """Show the bar, sized to the source's record count."""
        self.bar.start()
        self.task = self.bar.add_task("copying", total=sum(totals.values()))

    def stop(self) -> None:
        """Stop refreshing the bar (leaves its last state on screen)."""
        if self.task is not None:
            self.bar.stop()

    def advance(self, user_id: str, records: int) -> None:
        """Move the bar by one batch of ``user_id``."""
        if self.task is not None:
            self.bar.update(self.task, advance=records, description=f"copying {user_id}")


def print_report(report: CopyReport, source: str, destination: str) -> None:
    """The summary: embedding handling, counts per kind, job-queue state."""
    if report.reembedded:
        console.print(f"Re-embedded with {report.target.model} ({report.target.dim} dims): the "
                      f"source holds {report.source.model} ({report.source.dim} dims).")
    else:
        console.print(f"Vectors copied as stored ({report.source.model}, "
                      f"{report.source.dim} dims): nothing re-embedded.")
    table = Table("kind", "copied", "already there", title=f"{source} -> {destination}: "
                  f"{len(report.users)} user(s)")
    for kind in sorted(set(report.copied) | set(report.unchanged)):
        table.add_row(kind, str(report.copied.get(kind, 0)), str(report.unchanged.get(kind, 0)))
    table.add_row("total", str(report.written), str(sum(report.unchanged.values())),
                  style="bold")
    console.print(table)
    if report.vectors_dropped:
        console.print(f"{report.vectors_dropped} vector field(s) could not be re-embedded and "
                      "were left out.")
    if report.job_queue:
        console.print(f"Job queue not copied: {report.job_queue}.")
    else:
        console.print(f"Job queue: {report.counters} counter(s) and {report.marks} mark(s) "
                      f"raised, {report.jobs} unfinished job(s) enqueued.")


def register(app: typer.Typer) -> None:
    """Add the ``copy`` command to ``app``."""
    from .commands import handles_errors

    @app.command("copy")
    @handles_errors
    def copy_command(
        source: Annotated[str, typer.Argument(help="Source store: a file path, sqlite:PATH or "
                                              "cosmos://ACCOUNT.")],
        destination: Annotated[str, typer.Argument(help="Destination store (created when "
                                                   "missing).")],
        user: Annotated[list[str] | None, typer.Option("--user", "-u", help="A user to copy "
                        "(repeatable).")] = None,
        all_users: Annotated[bool, typer.Option("--all-users", help="Copy every user of the "
                             "source.")] = False,
        batch: Annotated[int, typer.Option("--batch", min=1, max=MAX_BATCH, help="Records "
                         "per atomic write.")] = DEFAULT_BATCH,
        embedder: Annotated[str | None, typer.Option("--embedder", help="Embedding model of a "
                            "new destination, e.g. openai:text-embedding-3-small (default: the "
                            "source's; vectors are then copied as stored).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")
                           ] = False,
    ) -> None:
        """Copy users' records (with index text and vectors) and job-queue counters between
        stores. Idempotent: run it again to resume an interrupted copy."""
        from ..config import Settings
        from ..copy import copy_stores
        from ..errors import InvalidInputError

        if bool(user) == all_users:
            raise InvalidInputError("give --user (repeatable) or --all-users, not both and not "
                                    "neither")
        settings = Settings.load()
        built = None
        if embedder is not None:
            from ..embedders import get_embedder

            built = get_embedder(embedder, batch_size=settings.embed_batch_size)

        async def run() -> CopyReport:
            bar = BarProgress(progress_bar())
            try:
                return await copy_stores(
                    source, destination, users=None if all_users else user, batch=batch,
                    embedder=built, progress=bar, vector_index=settings.vector_index)
            finally:
                bar.stop()
                if built is not None:
                    await built.aclose()

        report = asyncio.run(run())
        if as_json:
            print(json.dumps(report.model_dump(mode="json")))
        else:
            print_report(report, source, destination)

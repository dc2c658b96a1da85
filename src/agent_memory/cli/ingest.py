"""``agent-memory ingest``: load a file, store its threads, run the pipeline, with progress."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..client import AsyncMemory
from ..config import Settings
from ..ingest import IngestReport, Progress, ThreadBatch, ingest_threads
from .render import console, progress_bar


def load_batches(path: Path, fmt: str) -> list[ThreadBatch]:
    """Read ``path`` in format ``locomo`` or ``jsonl`` as thread batches.

    Raises:
        InvalidInputError: the file is not in that format (the error names the line/sample).
    """
    if fmt == "locomo":
        from ..datasets.locomo import load_locomo

        return [
            ThreadBatch(sample.sample_id, session.thread_id, session.turns)
            for sample in load_locomo(path)
            for session in sample.sessions
        ]
    from ..datasets.jsonl import load_jsonl

    groups: dict[tuple[str, str], list] = {}
    for turn in load_jsonl(path):
        groups.setdefault((turn.user_id, turn.thread_id), []).append(turn)
    return [ThreadBatch(user, thread, turns) for (user, thread), turns in groups.items()]


async def ingest_with_progress(
    memory: AsyncMemory, batches: list[ThreadBatch], *, pipeline: bool = True
) -> IngestReport:
    """Run :func:`ingest_threads` behind a rich progress bar."""
    with progress_bar() as bar:
        task = bar.add_task("ingesting threads", total=len(batches))
        hooks = Progress(
            advance=lambda batch: bar.update(
                task, advance=1, description=f"{batch.user_id} / {batch.thread_id}"
            )
        )
        return await ingest_threads(memory, batches, pipeline=pipeline, progress=hooks)


def print_report(report: IngestReport) -> None:
    """Print an ingest report in one block."""
    rate = report.turns / report.turn_seconds if report.turn_seconds else 0.0
    console.print(
        f"Ingested {report.turns} turns in {report.threads} threads of {report.users} users "
        f"in {report.seconds:.1f} s (turn storage {rate:.0f} turns/s).\n"
        f"Derived: {report.summaries} thread summaries, {report.facts} facts "
        f"({report.exact_dedup_skipped} exact duplicates skipped), {report.profiles} profiles."
    )


def run_ingest(path: Path, fmt: str, settings: Settings, *, pipeline: bool = True) -> None:
    """Ingest ``path`` into the store of ``settings`` and print what was done."""
    batches = load_batches(path, fmt)

    async def run() -> IngestReport:
        async with AsyncMemory.open(settings) as memory:
            # every turn checked before the progress display and the first write
            await memory.validate_turns(t for batch in batches for t in batch.turns)
            return await ingest_with_progress(memory, batches, pipeline=pipeline)

    report = asyncio.run(run())
    console.print(f"Store: {settings.store}")
    print_report(report)

"""Bulk ingest: store whole threads of turns, then run the pipeline steps over them.

Used by ``agent-memory ingest`` (LoCoMo and our JSON-lines format), the demo and the LoCoMo
evaluation. Re-ingesting the same data is idempotent: turn ids are deterministic in both formats
and the steps are incremental. A loaded turn whose id is stored already replaces the stored one
(a file whose turns were edited between loads updates them), where
:meth:`~agent_memory.AsyncMemory.add_turns` refuses to rewrite a turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from .client import AsyncMemory
from .models import Turn
from .turns import TurnInput


@dataclass
class ThreadBatch:
    """The turns of one thread of one user, in order."""

    user_id: str
    thread_id: str
    turns: Sequence[Turn | TurnInput]


class IngestReport(BaseModel):
    """What an ingest did.

    Attributes:
        users / threads / turns: counts stored.
        summaries / facts / profiles: derived records written.
        exact_dedup_skipped: facts skipped as exact re-extractions.
        seconds: wall time of the whole ingest (turn storage + pipeline).
        turn_seconds: wall time spent storing (embedding + writing) turns, which all
            happens before the pipeline steps run.
    """

    users: int = 0
    threads: int = 0
    turns: int = 0
    summaries: int = 0
    facts: int = 0
    profiles: int = 0
    exact_dedup_skipped: int = 0
    seconds: float = 0.0
    turn_seconds: float = 0.0


@dataclass
class Progress:
    """Callbacks for a progress display (all optional): ``start(total_threads)``,
    ``advance(thread_batch)``."""

    start: Callable[[int], None] = lambda total: None
    advance: Callable[[ThreadBatch], None] = lambda batch: None
    users: set[str] = field(default_factory=set)


async def ingest_threads(
    memory: AsyncMemory,
    threads: Iterable[ThreadBatch],
    *,
    pipeline: bool = True,
    progress: Progress | None = None,
    chunk_turns: int = 512,
) -> IngestReport:
    """Store every thread's turns and, with ``pipeline``, summarize each thread, extract its
    facts, and finally update each user's profile.

    Turns are stored first, in chunks of whole threads of about ``chunk_turns`` turns (each
    chunk one atomic batch and one embedding pass, written as :meth:`~AsyncMemory.add_turns`
    does except that a turn whose id is stored replaces it).
    Every turn of every thread is checked (:meth:`AsyncMemory.validate_turns`) before the
    first chunk is written, so bad input anywhere stores nothing. Two chunks are in flight at
    a time, so that one chunk is embedded while the chunk before it is tokenized, written and
    committed (the embedder's last batches and the write would otherwise leave cores idle);
    chunks that share a thread are stored one after the other. Then the pipeline steps run
    thread by thread, then the profiles.

    Raises:
        InvalidInputError: a turn is invalid; nothing is stored.
    """
    import time

    batches = list(threads)
    await memory.validate_turns(turn for batch in batches for turn in batch.turns)
    progress = progress or Progress()
    progress.start(len(batches))
    report = IngestReport()
    started = time.perf_counter()
    users: list[str] = []
    for batch in batches:
        if batch.user_id not in users:
            users.append(batch.user_id)
    in_flight: tuple[list[ThreadBatch], asyncio.Task[list[Turn]]] | None = None
    try:
        for chunk in _chunks(batches, chunk_turns):
            if in_flight is not None and _keys(in_flight[0]) & _keys(chunk):
                await _finish(in_flight, report, progress, pipeline=pipeline)
                in_flight = None
            task = asyncio.ensure_future(  # re-ingesting updates turns edited between loads
                memory._write_turns([turn for batch in chunk for turn in batch.turns],
                                    replace=True)
            )
            if in_flight is not None:
                previous, in_flight = in_flight, (chunk, task)
                await _finish(previous, report, progress, pipeline=pipeline)
            else:
                in_flight = (chunk, task)
        if in_flight is not None:
            await _finish(in_flight, report, progress, pipeline=pipeline)
            in_flight = None
    finally:
        if in_flight is not None:  # a chunk failed: let the other one end before raising
            await asyncio.gather(in_flight[1], return_exceptions=True)
    report.turn_seconds = time.perf_counter() - started
    if pipeline:
        for batch in batches:
            await _process(memory, batch, report)
            report.threads += 1
            progress.advance(batch)
        for user_id in users:
            result = await memory.generate_user_summary(user_id)
            report.profiles += len(result.written)
    report.users = len(users)
    report.seconds = time.perf_counter() - started
    return report


def _keys(chunk: Sequence[ThreadBatch]) -> set[tuple[str, str]]:
    return {(batch.user_id, batch.thread_id) for batch in chunk}


async def _finish(
    in_flight: tuple[list[ThreadBatch], asyncio.Task[list[Turn]]],
    report: IngestReport,
    progress: Progress,
    *,
    pipeline: bool,
) -> None:
    """Wait for one chunk's turns to be stored and count them."""
    chunk, task = in_flight
    report.turns += len(await task)
    if not pipeline:
        for batch in chunk:
            report.threads += 1
            progress.advance(batch)


def _chunks(batches: Sequence[ThreadBatch], chunk_turns: int) -> list[list[ThreadBatch]]:
    chunks: list[list[ThreadBatch]] = [[]]
    size = 0
    for batch in batches:
        if chunks[-1] and size + len(batch.turns) > chunk_turns:
            chunks.append([])
            size = 0
        chunks[-1].append(batch)
        size += len(batch.turns)
    return [c for c in chunks if c]


async def _process(memory: AsyncMemory, batch: ThreadBatch, report: IngestReport) -> None:
    for result in await memory.process_thread(batch.user_id, batch.thread_id):
        if result.step == "thread_summary":
            report.summaries += len(result.written)
        else:
            report.facts += len(result.written)
            report.exact_dedup_skipped += result.exact_dedup_skipped

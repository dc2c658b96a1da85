"""``agent-memory eval locomo``: ingest LoCoMo into a store and score evidence retrieval."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from rich.table import Table

from ..client import AsyncMemory
from ..config import Settings
from ..datasets.locomo import load_locomo
from ..eval.locomo import evaluate_locomo
from ..ingest import ThreadBatch
from .ingest import ingest_with_progress, print_report
from .render import console, progress_bar


async def _evaluate(path: Path, store: Path, mode: str):
    samples = load_locomo(path)
    settings = Settings.load(store=str(store))
    async with AsyncMemory.open(settings) as memory:
        users = {s.sample_id for s in samples}
        have = {u for u in users if await memory.get_profile(u) is not None}
        todo = [s for s in samples if s.sample_id not in have]
        if todo:
            batches = [ThreadBatch(s.sample_id, sess.thread_id, sess.turns)
                       for s in todo for sess in s.sessions]
            print_report(await ingest_with_progress(memory, batches))

        async def retrieve(user_id: str, question: str, k_max: int):
            hits = await memory.search(user_id, question, mode=mode, k=2 * k_max)
            return [(h.provenance.kind.value, h.record.id, h.provenance.evidence) for h in hits]

        with progress_bar() as bar:
            task = bar.add_task("answering questions", total=None)
            report = await evaluate_locomo(
                samples, retrieve, progress=lambda done, total: bar.update(
                    task, completed=done, total=total)
            )
    return report


def run_eval(path: Path, json_out: Path | None, store: Path | None, mode: str) -> None:
    """Evaluate on ``path``; print the table and optionally write JSON to ``json_out``."""
    if store is None:
        with tempfile.TemporaryDirectory() as tmp:
            report = asyncio.run(_evaluate(path, Path(tmp) / "locomo.db", mode))
    else:
        report = asyncio.run(_evaluate(path, store, mode))
    table = Table(title=f"LoCoMo evidence recall ({mode}, turn level, n={report.n})")
    table.add_column("questions")
    table.add_column("n", justify="right")
    for name in report.columns:
        table.add_column(name, justify="right")
    for label, n, values in report.rows():
        table.add_row(label, str(n), *[f"{v:.3f}" for v in values])
    console.print(table)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(report.to_json() + "\n")
        console.print(f"wrote {json_out}")

"""``agent-memory eval locomo``: ingest LoCoMo into a store and score evidence retrieval."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from rich.table import Table

from ..client import AsyncMemory
from ..config import Settings
from ..datasets.locomo import load_locomo
from ..eval.budget import ContextHit, coverage, render_hit, summarize
from ..eval.locomo import evaluate_locomo
from ..ingest import ThreadBatch
from .ingest import ingest_with_progress, print_report
from .render import console, progress_bar


def budget_k(budget: int, k_max: int) -> int:
    """Hits asked for when packing a ``budget``-token context: enough to fill it (about 8
    tokens per hit at least), never fewer than the ranking's ``2 * k_max``."""
    return min(1000, max(2 * k_max, budget // 8))


async def _evaluate(path: Path, store: Path, mode: str, budget: int | None = None):
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

        contexts: dict[tuple[str, str], list[ContextHit]] = {}

        async def retrieve(user_id: str, question: str, k_max: int):
            hits = await memory.search(user_id, question, mode=mode, k=2 * k_max)
            if budget is not None:
                wide = await memory.search(user_id, question, mode=mode,
                                           k=budget_k(budget, k_max))
                contexts[(user_id, question)] = [
                    ContextHit(h.provenance.kind.value, h.record.id, h.provenance.evidence,
                               render_hit(h.provenance.kind.value, h.record.content,
                                          h.record.created_at, h.provenance.speaker))
                    for h in wide
                ]
            return [(h.provenance.kind.value, h.record.id, h.provenance.evidence) for h in hits]

        with progress_bar() as bar:
            task = bar.add_task("answering questions", total=None)
            report = await evaluate_locomo(
                samples, retrieve, progress=lambda done, total: bar.update(
                    task, completed=done, total=total)
            )
    budgeted = None
    if budget is not None:
        budgeted = summarize(
            ((q.category, coverage(contexts[(q.sample_id, q.question)], q.gold, budget))
             for q in report.questions),
            budget,
        )
    return report, budgeted


def run_eval(
    path: Path, json_out: Path | None, store: Path | None, mode: str, budget: int | None = None
) -> None:
    """Evaluate on ``path``; print the table and optionally write JSON to ``json_out``.

    With ``budget`` (tokens), also report the share of questions whose evidence turns all fit
    in the context plain search fills within that many tokens (:mod:`agent_memory.eval.budget`).
    """
    if store is None:
        with tempfile.TemporaryDirectory() as tmp:
            report, budgeted = asyncio.run(_evaluate(path, Path(tmp) / "locomo.db", mode, budget))
    else:
        report, budgeted = asyncio.run(_evaluate(path, store, mode, budget))
    for kind in ("any", "all"):  # one table each: both fit 80 columns
        table = Table(title=f"LoCoMo turn-level recall_{kind}@k ({mode}, n={report.n})")
        table.add_column("questions", no_wrap=True)
        table.add_column("n", justify="right")
        keep = [k for k, name in enumerate(report.columns) if name.startswith(f"recall_{kind}@")]
        for k in keep:
            table.add_column(f"k={report.columns[k].partition('@')[2]}", justify="right")
        for label, n, values in report.rows():
            table.add_row(label, str(n), *[f"{values[k]:.3f}" for k in keep])
        console.print(table)
    data = report.to_dict()
    if budgeted is not None:
        data["budget"] = budgeted
        btable = Table(title=f"Evidence inside a {budget}-token context (plain search)")
        for column in ("questions", "n", "all evidence turns in", "all cited", "tokens used"):
            btable.add_column(column, justify="left" if column == "questions" else "right")
        rows = [("overall", budgeted["n"], budgeted["overall"])] + [
            (c, v["n"], v) for c, v in budgeted["by_category"].items()
        ]
        for label, n, v in rows:
            btable.add_row(str(label), str(n), f"{v['turns']:.3f}", f"{v['cited']:.3f}",
                           f"{v['tokens']:.0f}")
        console.print(btable)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2) + "\n")
        console.print(f"wrote {json_out}")

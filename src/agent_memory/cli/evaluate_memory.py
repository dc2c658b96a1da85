"""``agent-memory eval locomo-memory``: derived facts, summaries and profiles against LoCoMo's
reference observations and session summaries (:mod:`agent_memory.eval.memory`)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from ..client import AsyncMemory
from ..config import Settings
from ..datasets.locomo import load_locomo
from ..errors import InvalidInputError
from ..eval.memory import TARGET_COMPRESSION, MemoryReport, evaluate_memory, ingest_samples
from ..eval.memory_metrics import COVER_COSINE, DUPLICATE_COSINE
from ..eval.readability import FLAGS
from ..ingest import Progress
from .ingest import print_report
from .render import console, progress_bar


async def _evaluate(path: Path, store: Path, conversations: int | None) -> MemoryReport:
    samples = load_locomo(path)
    if conversations is not None:
        if conversations < 1:
            raise InvalidInputError(f"--conversations must be >= 1, got {conversations}")
        samples = samples[:conversations]
    async with AsyncMemory.open(Settings.load(store=str(store))) as memory:
        # a sample whose profile exists was ingested with the pipeline before: reuse it
        with progress_bar() as bar:
            task = bar.add_task("ingesting threads", total=sum(len(s.sessions)
                                                                for s in samples))
            hooks = Progress(advance=lambda batch: bar.update(
                task, advance=1, description=f"{batch.user_id} / {batch.thread_id}"))
            ingested = await ingest_samples(memory, samples, hooks)
        if ingested is not None:
            print_report(ingested)
        with progress_bar() as bar:
            task = bar.add_task("scoring conversations", total=len(samples))
            return await evaluate_memory(
                memory, samples, progress=lambda done, total: bar.update(task, completed=done))


def _cell(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def report_tables(report: MemoryReport) -> list[Table]:
    """The facts table, the readability table and the summaries-and-profile table, a row per
    conversation + overall."""
    facts = Table(box=box.SIMPLE_HEAD, title=(
        f"Facts vs LoCoMo observations (obs); match: same turn, cosine >= {COVER_COSINE}. "
        "f/obs: facts per observation; matched: matched precision; cites: facts citing an "
        "observation's turn; attr: attribution"))
    for column in ("conv", "obs", "facts", "f/obs", "recall", "matched", "cites", "attr"):
        facts.add_column(column, justify="left" if column == "conv" else "right", no_wrap=True)
    readable = Table(box=box.SIMPLE_HEAD, title=(
        "Readability: facts per failure (lead pronoun, 1st/2nd person, question, chatter, "
        "multi-claim, no named subject, dangling it/this; any)"))
    for column in ("conv", "facts", "lead", "1/2p", "?", "chat", "multi", "noname", "it",
                   "any"):
        readable.add_column(column, justify="left" if column == "conv" else "right",
                            no_wrap=True)
    other = Table(box=box.SIMPLE_HEAD, title=(
        "Summaries vs LoCoMo session summaries: n, compression mean/min/share at target, "
        f"ROUGE-1/L recall. Profile: tok(ens), own sentences, dups (cosine >= "
        f"{DUPLICATE_COSINE}) of sentences"))
    # short headers and a light box: the table fits 80 columns
    for column in ("conv", "n", "compr", "min", f">={TARGET_COMPRESSION:g}:1", "R-1", "R-L",
                   "tok", "own", "dups"):
        other.add_column(column, justify="left" if column == "conv" else "right", no_wrap=True)
    for label, figures in report.rows():
        f, s, p = figures["facts"], figures["summaries"], figures["profile"]
        facts.add_row(label, str(f["observations"]), str(f["facts"]),
                      _cell(f["per_observation"], 2), _cell(f["recall"]),
                      _cell(f["matched_precision"]), _cell(f["precision"]),
                      _cell(f["attribution"]))
        r = f["readability"]
        readable.add_row(label, str(f["facts"]), *(str(r[flag]) for flag in FLAGS),
                         f"{r['unreadable']} ({_cell(f['unreadable_share'], 2)})")
        other.add_row(label, str(s["n"]), _cell(s.get("compression_mean"), 2),
                      _cell(s.get("compression_min"), 2), _cell(s.get("at_target")),
                      _cell(s.get("rouge1_recall")), _cell(s.get("rougeL_recall")),
                      _cell(p["tokens_mean"], 0), _cell(p["own_share"]),
                      f"{p['duplicates']}/{p['sentences']}")
    return [facts, readable, other]


def run_memory_eval(path: Path, json_out: Path | None, store: Path | None,
                    conversations: int | None) -> None:
    """Ingest ``path`` (unless ``store`` already holds it), score, print, optionally write JSON.

    Raises:
        InvalidInputError: a bad file or ``conversations`` < 1.
        ConfigError: ``rouge-score`` is not installed (``pip install 'agent-memory[eval]'``).
    """
    if store is None:
        with tempfile.TemporaryDirectory() as tmp:
            report = asyncio.run(_evaluate(path, Path(tmp) / "locomo.db", conversations))
    else:
        report = asyncio.run(_evaluate(path, store, conversations))
    for table in report_tables(report):
        console.print(table)
    fields = report.to_dict()["overall"]["profile"].get("fields") or {}
    if fields:  # one profile per speaker: statements shown per field, all profiles together
        console.print("Profile statements per field: "
                      + ", ".join(f"{name} {n}" for name, n in fields.items()))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(report.to_dict(), indent=2) + "\n")
        console.print(f"wrote {json_out}")

"""Rich rendering shared by the CLI commands."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..consistency.reconcile import ReconcileResult
from ..models import Fact
from ..retrieval.hits import Hit
from ..stores.base import MemoryStore

_HEX_ID = re.compile(r"^([a-z]+_)([0-9a-f]{32})$")
SHORT_ID = 8
"""Hex digits a table shows of a generated id ("fact_8bd32b21"); the commands that take an
id accept such a prefix when it names one record."""

console = Console()
err_console = Console(stderr=True)


def progress_bar() -> Progress:
    """A progress bar with count and elapsed time (rendered on stderr)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def text_table(title: str, columns: Sequence[str], clipped: str | None = None,
               min_width: int = 20) -> Table:
    """A table whose last column, "content", wraps and takes whatever the terminal leaves;
    ``columns`` before it keep to their content on one line, and ``clipped`` (after them)
    is cut with an ellipsis at 16 characters. The caller adds the rows."""
    table = Table(title=title, box=box.SIMPLE_HEAD, expand=True, pad_edge=False)
    for column in columns:
        table.add_column(column, no_wrap=True)
    if clipped:
        table.add_column(clipped, max_width=16, overflow="ellipsis", no_wrap=True)
    table.add_column("content", ratio=1, min_width=min_width, overflow="fold")
    return table


def hits_table(hits: Sequence[Hit], title: str = "Results", width: int = 90) -> Table:
    """A table of hits, one row each: rank, fused score, each signal's score and rank
    (``v`` vector, ``t`` full text), kind, where it comes from (date, thread, the evidence
    turns of a derived record) and the text, clipped to ``width`` characters (see
    :func:`text_table`: about 26 characters of text a line at 80 columns)."""
    table = text_table(title, ["#", "score", "signals", "kind"], clipped="date / thread",
                       min_width=24)
    for column in table.columns[:2]:
        column.justify = "right"
    for i, hit in enumerate(hits, start=1):
        vec = hit.signals.get("vector")
        txt = hit.signals.get("text")
        prov = hit.provenance
        where = f"{prov.created_at:%Y-%m-%d %H:%M}\n{prov.thread_id or '-'}"
        if prov.evidence and prov.evidence != [hit.record.id]:  # a turn is its own evidence
            own = f"{prov.thread_id}:"
            cited = [f"turn {e.removeprefix(own)}" if e.startswith(own) else e
                     for e in prov.evidence]
            where += "\nfrom " + ",".join(cited[:3]) + ("…" if len(cited) > 3 else "")
        table.add_row(
            str(i),
            f"{hit.score:.4f}",
            "\n".join([f"v {vec.score:.3f} ({vec.rank})" if vec else "v -",
                       f"t {txt.score:.2f} ({txt.rank})" if txt else "t -"]),
            hit.provenance.kind.value,
            where,
            _clip(hit.record.content, width),
        )
    return table


async def print_retired(store: MemoryStore, user_id: str, result: ReconcileResult,
                        indent: str = "   ") -> None:
    """Print each fact a reconciliation pass retired, struck through, with why and, for a
    contradiction or a merge, the fact that holds now."""
    for fact in await store.get(user_id, result.superseded_ids):
        if not isinstance(fact, Fact):
            continue
        newer = await store.get(user_id, [fact.superseded_by] if fact.superseded_by else [])
        console.print(f"{indent}- [strike]{fact.content}[/] ({fact.supersede_reason}"
                      + (f"; now: {newer[0].content}" if newer else "") + ")")


def short_id(record_id: str) -> str:
    """A generated id cut to its kind and :data:`SHORT_ID` hex digits
    (``fact_8bd32b21905044ae...`` -> ``fact_8bd32b21``); other ids as they are."""
    found = _HEX_ID.match(record_id)
    return f"{found[1]}{found[2][:SHORT_ID]}" if found else record_id

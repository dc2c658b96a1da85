"""Rich rendering shared by the CLI commands."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..retrieval.hits import Hit

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


def hits_table(hits: Sequence[Hit], title: str = "Results", width: int = 90) -> Table:
    """A table of hits: rank, fused score, each signal's score and rank, kind, provenance, text."""
    table = Table(title=title, show_lines=False, expand=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("vector (rank)", justify="right")
    table.add_column("text (rank)", justify="right")
    table.add_column("kind")
    table.add_column("thread / date / evidence")
    table.add_column("content")
    for i, hit in enumerate(hits, start=1):
        vec = hit.signals.get("vector")
        txt = hit.signals.get("text")
        prov = hit.provenance
        evidence = ",".join(prov.evidence[:3]) + ("…" if len(prov.evidence) > 3 else "")
        where = f"{prov.thread_id or '-'}\n{prov.created_at:%Y-%m-%d %H:%M}\n{evidence}"
        table.add_row(
            str(i),
            f"{hit.score:.4f}",
            f"{vec.score:.3f} ({vec.rank})" if vec else "-",
            f"{txt.score:.2f} ({txt.rank})" if txt else "-",
            hit.provenance.kind.value,
            where,
            _clip(hit.record.content, width),
        )
    return table

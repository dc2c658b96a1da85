"""``agent-memory recall``: seed 004 recall with its scores explained signal by signal."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer
from rich.table import Table

from .options import StoreOpt, UserOpt, reading
from .render import console


def register(app: typer.Typer) -> None:
    """Add the ``recall`` command to ``app``."""
    from .commands import handles_errors

    @app.command()
    @handles_errors
    def recall(
        context: Annotated[str, typer.Argument(help="The situation to recall memories for.")],
        user: UserOpt,
        store: StoreOpt = None,
        agent: Annotated[str | None, typer.Option("--agent", help="Recall for this agent "
                         "(its bound collections).")] = None,
        collection: Annotated[list[str] | None, typer.Option(
            "--collection", help="Collections to search (repeatable).")] = None,
        strategy: Annotated[str, typer.Option(
            "--strategy", help="HARD_LIMIT, COLLECTION_LIMIT or SUMMARY.")] = "HARD_LIMIT",
        max_memories: Annotated[int, typer.Option("--max", min=1)] = 10,
        min_score: Annotated[float, typer.Option("--min-score", min=0.0, max=1.0)] = 0.0,
        relevance_alpha: Annotated[float, typer.Option("--relevance-alpha", min=0.0)] = 1.0,
        importance_alpha: Annotated[float, typer.Option("--importance-alpha", min=0.0)] = 1.0,
        recency_alpha: Annotated[float, typer.Option("--recency-alpha", min=0.0)] = 1.0,
        no_access_update: Annotated[bool, typer.Option(
            "--no-access-update", help="Do not record the access.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Recall scored memories (relevance + importance + recency), each score explained."""
        from ..client import AsyncMemory

        async def run():
            async with AsyncMemory.open(reading(store)) as memory:
                return await memory.recall(
                    user, context, agent_id=agent, collections=collection, strategy=strategy,
                    max_memories=max_memories, min_score=min_score,
                    relevance_alpha=relevance_alpha, importance_alpha=importance_alpha,
                    recency_alpha=recency_alpha, update_access=not no_access_update,
                )

        result = asyncio.run(run())
        if as_json:
            print(json.dumps(result.model_dump(mode="json"), indent=2))
            return
        table = Table(title=f"recall for {context!r} ({user}, {result.strategy.value}, "
                      f"{result.candidates} candidates)")
        for column in ("#", "score", "relevance", "importance", "recency", "kind",
                       "collection", "content"):
            table.add_column(column, justify="right" if column in {"#", "score"} else "left")
        for i, m in enumerate(result.memories, start=1):
            e = m.explanation
            table.add_row(str(i), f"{m.score:.3f}", f"{e.relevance.scaled:.3f}",
                          f"{e.importance.scaled:.3f} ({e.importance.raw:g})",
                          f"{e.recency.scaled:.3f}", m.record.kind.value, m.collection or "-",
                          " ".join(m.record.content.split())[:80])
        console.print(table)
        if result.summary:
            console.print(f"[bold]summary[/bold]: {result.summary}")

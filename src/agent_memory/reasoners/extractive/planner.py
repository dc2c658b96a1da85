"""The offline contextual fact retrieval planner: which searches to run, and the compiled answer.

Plan (deterministic): when the query names an insight category (keyword map of
:mod:`.reflection`), ``search_insights`` filtered to that category first; then
``search_insights`` unfiltered, ``search_interactions`` and ``search_session_summaries``. The
answer lists each distinct record once, profile and insights first, then conversation chunks,
then session summaries (each group best-scored first), every line citing ``[record id, date]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import InvalidInputError
from ..sessions_models import (
    SEARCH_INSIGHTS,
    SEARCH_INTERACTIONS,
    SEARCH_SESSION_SUMMARIES,
    FactRetrieval,
    RetrievedItem,
    ToolCall,
    ToolRunner,
)
from .reflection import category_of

NOTHING_FOUND = "No relevant information about the user was found in memory."
_ORDER = {"profile": 0, "insight": 1, "interaction": 2, "session_summary": 3}


def plan(query: str, categories: Sequence[str], top_k: int) -> list[tuple[str, dict[str, Any]]]:
    """The searches to run for ``query``, in order (see the module docstring)."""
    steps: list[tuple[str, dict[str, Any]]] = []
    category = category_of(query, categories)[0]
    if category is not None:
        steps.append((SEARCH_INSIGHTS, {"query": query, "category": category, "top_k": top_k}))
    steps += [
        (SEARCH_INSIGHTS, {"query": query, "top_k": top_k}),
        (SEARCH_INTERACTIONS, {"query": query, "top_k": top_k}),
        (SEARCH_SESSION_SUMMARIES, {"query": query, "top_k": min(3, top_k)}),
    ]
    return steps


def cite(item: RetrievedItem) -> str:
    """``[id, YYYY-MM-DD]`` (or ``[id]`` when the item has no date)."""
    return f"[{item.id}, {item.date:%Y-%m-%d}]" if item.date else f"[{item.id}]"


def compile_answer(query: str, items: Sequence[RetrievedItem]) -> str:
    """The retrieved records as one cited line each (see the module docstring)."""
    if not items:
        return NOTHING_FOUND
    ranked = sorted(
        enumerate(items), key=lambda pair: (_ORDER.get(pair[1].kind, 9), -pair[1].score, pair[0])
    )
    lines = [f"Facts from memory relevant to {query!r}:"]
    for _index, item in ranked:
        text = " / ".join(line.strip() for line in item.text.splitlines() if line.strip())
        label = item.kind.replace("_", " ") + (f", {item.category}" if item.category else "")
        lines.append(f"- ({label}) {text} {cite(item)}")
    return "\n".join(lines)


async def retrieve_facts(
    query: str, run_tool: ToolRunner, categories: Sequence[str], top_k: int
) -> FactRetrieval:
    """Run :func:`plan` through ``run_tool`` and compile the results.

    Raises:
        InvalidInputError: blank query.
    """
    if not query or not query.strip():
        raise InvalidInputError("the query must not be empty")
    calls: list[ToolCall] = []
    items: dict[str, RetrievedItem] = {}
    for name, arguments in plan(query.strip(), categories, top_k):
        found = await run_tool(name, arguments)
        calls.append(ToolCall(name=name, arguments=arguments, result_ids=[i.id for i in found]))
        for item in found:
            items.setdefault(item.id, item)
    values = list(items.values())
    return FactRetrieval(answer=compile_answer(query.strip(), values), items=values, calls=calls)

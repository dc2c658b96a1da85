"""The LLM reasoner's session tasks; :class:`~.openai.OpenAIReasoner` delegates here.

Structured answers (interaction metadata, reflection, structured profile) go through
:func:`~.structured.complete_structured` (json_schema response format, validation, repair).
Contextual fact retrieval is a bounded tool-calling loop on the chat completions ``tools`` API:
at most ``max_rounds`` rounds in which the model may call the three search tools
(:data:`~.sessions_models.CFR_TOOLS`); then, if it is still calling tools, one last request with
``tool_choice="none"`` makes it answer from what it has.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import openai
from pydantic import BaseModel

from ..errors import InvalidInputError, ReasonerError
from ..models import Turn
from ..text.dates import resolve_dates
from .sessions_models import (
    CFR_TOOLS,
    FactRetrieval,
    InsightNote,
    InteractionDraft,
    RetrievedItem,
    SessionReflection,
    ToolCall,
    ToolRunner,
)
from .sessions_prompts import (
    cfr_messages,
    interaction_messages,
    profile_messages,
    reflection_messages,
)
from .structured import OutputRejected, schema_text

if TYPE_CHECKING:
    from .openai import OpenAIReasoner


async def describe_interaction(r: OpenAIReasoner, turns: Sequence[Turn]) -> InteractionDraft:
    """Summary, topics and entities of a chunk of turns."""
    if not turns:
        raise InvalidInputError("an interaction needs at least one turn")
    messages = interaction_messages(turns, schema_text(InteractionDraft))
    return await r.structured(messages, InteractionDraft, lambda d: d)


async def reflect_on_session(
    r: OpenAIReasoner, turns: Sequence[Turn], categories: Sequence[str]
) -> SessionReflection:
    """Session reflection; refuses (and repairs) insights outside ``categories``; evidence ids
    not among ``turns`` are dropped (an insight left citing none cites every turn); relative
    dates are resolved against the first cited turn's time."""
    if not turns:
        return SessionReflection(reflection_flag="no-insight")
    allowed = set(categories)
    ids = [t.id for t in turns]
    known = set(ids)
    by_id = {t.id: t for t in turns}

    def check(result: SessionReflection) -> SessionReflection:
        bad = [f"- insights.{i}: category {x.category!r}" for i, x in enumerate(result.insights)
               if x.category not in allowed]
        if bad:
            raise OutputRejected(
                "these insights use a category outside " + ", ".join(categories) + ":\n"
                + "\n".join(bad)
            )
        fixed = []
        for insight in result.insights:
            cited = [e.strip().strip("[]") for e in insight.evidence]
            cited = [e for e in dict.fromkeys(cited) if e in known] or ids
            text = resolve_dates(insight.insight_text, by_id[cited[0]].created_at).text
            fixed.append(insight.model_copy(update={"evidence": cited, "insight_text": text}))
        return result.model_copy(update={"insights": fixed})

    messages = reflection_messages(turns, categories, schema_text(SessionReflection))
    return await r.structured(messages, SessionReflection, check)


async def fill_profile(
    r: OpenAIReasoner,
    model: type[BaseModel],
    previous: Mapping[str, Any] | None,
    notes: Sequence[InsightNote],
) -> dict[str, Any]:
    """The structured profile as ``model`` (structured outputs), dumped to JSON-able data.

    Raises:
        MalformedOutputError: the answers kept failing ``model``'s validation.
    """
    messages = profile_messages(previous, notes, schema_text(model))
    value = await r.structured(messages, model, lambda v: v)
    return value.model_dump(mode="json")


def _items_json(items: Sequence[RetrievedItem]) -> str:
    return json.dumps(
        [
            {"id": i.id, "kind": i.kind, "session_id": i.session_id,
             "date": i.date.strftime("%Y-%m-%d %H:%M") if i.date else None,
             "category": i.category, "text": i.text}
            for i in items
        ],
        ensure_ascii=False,
    )


async def retrieve_facts(
    r: OpenAIReasoner, query: str, run_tool: ToolRunner, max_rounds: int
) -> FactRetrieval:
    """The bounded tool-calling loop (see the module docstring).

    Tool errors (bad arguments, unknown tool) are sent back to the model as the tool's result.

    Raises:
        InvalidInputError: blank query or ``max_rounds`` < 1.
        ReasonerError: the endpoint failed or returned no answer.
    """
    if not query or not query.strip():
        raise InvalidInputError("the query must not be empty")
    if max_rounds < 1:
        raise InvalidInputError("max_rounds must be >= 1")
    messages: list[dict[str, Any]] = cfr_messages(query.strip())
    calls: list[ToolCall] = []
    items: dict[str, RetrievedItem] = {}
    for round_number in range(1, max_rounds + 2):
        final = round_number > max_rounds
        message = await _complete(r, messages, "none" if final else "auto")
        tool_calls = list(message.tool_calls or [])
        if final or not tool_calls:
            answer = (message.content or "").strip()
            if not answer:
                raise ReasonerError(f"{r.name}: the model gave no answer to the fact request")
            return FactRetrieval(answer=answer, items=list(items.values()), calls=calls,
                                 rounds=round_number)
        messages.append({
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in tool_calls
            ],
        })
        for call in tool_calls:
            record = ToolCall(name=call.function.name)
            try:
                arguments = json.loads(call.function.arguments or "{}")
                if not isinstance(arguments, dict):
                    raise InvalidInputError("tool arguments must be a JSON object")
                record.arguments = arguments
                found = await run_tool(call.function.name, arguments)
                record.result_ids = [i.id for i in found]
                for item in found:
                    items.setdefault(item.id, item)
                content = _items_json(found)
            except (json.JSONDecodeError, InvalidInputError) as exc:
                record.error = str(exc)
                content = json.dumps({"error": str(exc)})
            calls.append(record)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError("unreachable")  # pragma: no cover - the last round always returns


async def _complete(r: OpenAIReasoner, messages: list[dict[str, Any]], tool_choice: str) -> Any:
    params: dict[str, Any] = {"model": r.model, "messages": messages, "tools": CFR_TOOLS,
                              "tool_choice": tool_choice}
    if r.temperature is not None:
        params["temperature"] = r.temperature
    try:
        completion = await r.chat.send(params)
    except openai.OpenAIError as exc:
        raise r.chat.translate(exc) from exc
    if not completion.choices:
        raise ReasonerError(f"{r.name}: the endpoint returned no choices")
    return completion.choices[0].message

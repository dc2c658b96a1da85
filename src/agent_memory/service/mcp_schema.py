"""Tool schemas as a model reads them: descriptions written for an LLM, no code references.

The JSON schemas of the MCP tools come from pydantic models, and pydantic copies each model's
docstring into its schema's ``description``. Those docstrings are written for Python developers
(Sphinx roles, design-note numbers, double backticks); a model calling the tools needs to know
what to pass and what it gets back. :func:`for_model` rewrites a tool's input or output schema:
every model (the root and each ``$defs`` entry) gets its description from :data:`MODELS` (or
none), and properties without a description get one from :data:`FIELDS`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

MODELS: dict[str, str] = {
    "MemoryInput": "One thing to remember about the user.",
    "AddedMemory": "A memory that was stored.",
    "AddFailure": "A memory that was refused, with the reason.",
    "AddMemoriesOutput": "The memories stored and those refused.",
    "TurnItem": "One message of the conversation.",
    "StoredTurn": "A stored message and its position in the thread.",
    "AddTurnsOutput": "The stored messages, in the order given.",
    "SearchOutput": "Matching memories, best first.",
    "MemoryHit": "One matching memory.",
    "Signal": "How one ranking method scored the memory.",
    "RetrievedItem": "A memory the answer is drawn from.",
    "RetrieveFactsOutput": "The facts relevant to the question, citing the memory ids, and the "
                           "memories they come from.",
    "ProfileOutput": "The user's profile; found is false when none was compiled yet.",
    "ForgetReport": "What was deleted.",
    "RecordKind": "The kind of memory: turn (a message), summary (of a conversation), fact, "
                  "insight or profile.",
    "Role": "Who wrote the message (agent means assistant).",
    "SearchMode": "How to match: hybrid (meaning and keywords, the best default), vector "
                  "(meaning only) or text (keywords only).",
}
"""Model title -> its description in a tool schema, written for the calling model."""

FIELDS: dict[tuple[str, str], str] = {
    ("MemoryInput", "content"): "The statement to remember, self-contained: 'The user is "
                                "allergic to peanuts.'",
    ("MemoryInput", "collection"): "A group to file it under, e.g. 'health' or 'travel'.",
    ("MemoryInput", "kind"): "fact (about the user or the world, the default) or insight "
                             "(a lesson or pattern).",
    ("MemoryInput", "importance"): "1 (trivial) to 10 (critical); leave out if unsure.",
    ("MemoryInput", "retrieval_key"): "Words to find it by, when they differ from the "
                                      "statement (the situation where it matters).",
    ("MemoryInput", "agent_id"): "Keep it for this agent only.",
    ("MemoryInput", "thread_id"): "The conversation it came from.",
    ("MemoryInput", "category"): "A short topic label, e.g. 'preference'.",
    ("MemoryInput", "subject"): "Who or what it is about, when not the user.",
    ("MemoryInput", "confidence"): "How sure you are, 0 to 1 (default 1).",
    ("MemoryInput", "evidence"): "Ids of the messages it was learned from.",
    ("MemoryInput", "metadata"): "Any extra key-value data to keep with it.",
    ("MemoryInput", "created_at"): "When it became true (ISO 8601; default now).",
    ("MemoryInput", "valid_from"): "When the fact started to hold, if not when it was said "
                                   "(ISO 8601).",
    ("MemoryInput", "valid_until"): "When the fact stopped holding, if it already has "
                                    "(ISO 8601).",
    ("MemoryInput", "id"): "Your own id for it; leave out to get a new one.",
    ("AddedMemory", "index"): "Its position in the list you sent (from 0).",
    ("AddedMemory", "id"): "The memory id (for forget).",
    ("AddFailure", "index"): "Its position in the list you sent (from 0).",
    ("AddFailure", "item"): "The memory as you sent it.",
    ("AddFailure", "error"): "Why it was refused.",
    ("TurnItem", "metadata"): "Any extra key-value data to keep with the message.",
    ("AddTurnsInput", "turns"): "The messages, oldest first.",
    ("ForgetReport", "records"): "Memories deleted, per kind.",
    ("ForgetReport", "missing"): "Ids that matched no memory of the user.",
    ("ForgetReport", "jobs"): "Pending background jobs removed.",
    ("ForgetReport", "counters"): "Background bookkeeping entries removed.",
    ("ForgetReport", "marks"): "Background bookkeeping entries removed.",
    ("ProfileOutput", "content"): "The profile as text.",
    ("ProfileOutput", "structured"): "The profile as fields.",
    ("ProfileOutput", "sources"): "Ids of the memories it was compiled from.",
    ("ProfileOutput", "updated_at"): "When it was last compiled.",
    ("RetrieveFactsOutput", "answer"): "The relevant facts, each citing memory ids, with a "
                                       "Sources list.",
    ("RetrieveFactsOutput", "items"): "The memories found.",
}
"""(model title, property) -> a description for a property its model leaves undescribed."""

MARKUP = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):|``|\bseed \d")
"""Markup and internal references a tool schema must not carry."""


def for_model(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of the JSON ``schema`` with LLM-facing descriptions (see the module docstring).

    Args:
        schema: a pydantic JSON schema (a root object with optional ``$defs``).

    Returns:
        The rewritten copy; the input is left as it is.
    """
    out = copy.deepcopy(schema)
    _rewrite(out)
    for definition in out.get("$defs", {}).values():
        _rewrite(definition)
    return out


def _rewrite(model: dict[str, Any]) -> None:
    title = model.get("title", "")
    if "properties" in model or "enum" in model:
        text = MODELS.get(title)
        if text is None:
            model.pop("description", None)
        else:
            model["description"] = text
    for name, prop in model.get("properties", {}).items():
        text = FIELDS.get((title, name))
        if text is not None and "description" not in prop:
            prop["description"] = text


def markup_in(value: Any) -> list[str]:
    """Every string in ``value`` (nested dicts and lists) that carries :data:`MARKUP`."""
    if isinstance(value, str):
        return [value] if MARKUP.search(value) else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in markup_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in markup_in(v)]
    return []

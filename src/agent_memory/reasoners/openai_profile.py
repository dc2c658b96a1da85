"""The LLM reasoner's profile step: the model sorts numbered facts into the schema's fields.

The model only chooses a field for each fact (by number); it writes no profile text, so a
profile built this way says only what its facts say, in their words (a small model cannot slip
a wrong number or a plan that was never made into it). Facts that do not fit one request are
sent in several (:func:`agent_memory.reasoners.chunking.pack_items`), each numbered from 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ..profile_schema import SchemaField
from . import chunking, prompts
from .base import FieldAssignment
from .structured import OutputRejected, schema_text

if TYPE_CHECKING:
    from .openai import OpenAIReasoner

ANSWER_TOKENS = 600
"""Tokens kept free for the answer of one request (field names and fact numbers)."""
LLM_SCORE = 0.5
"""Score of a field chosen by the model (it gives no confidence; ties rank newest first)."""


class FieldFacts(BaseModel):
    """One field and the numbers of the facts that belong there."""

    model_config = ConfigDict(extra="forbid")

    field: str
    facts: list[int] = Field(default_factory=list)


class ProfileFields(BaseModel):
    """The answer of the profile prompt (:func:`.prompts.profile_field_messages`)."""

    model_config = ConfigDict(extra="forbid")

    fields: list[FieldFacts] = Field(default_factory=list)


def _checker(count: int, names: set[str]):
    def check(answer: ProfileFields) -> ProfileFields:
        problems = [f"unknown field {item.field!r} (use one of {', '.join(sorted(names))})"
                    for item in answer.fields if item.field not in names]
        problems += [f"fact number {n} in {item.field!r} is not between 1 and {count}"
                     for item in answer.fields for n in item.facts if not 1 <= n <= count]
        if problems:
            raise OutputRejected("\n".join(problems))
        return answer

    return check


async def assign_profile_fields(
    reasoner: OpenAIReasoner, subject: str | None, facts: Sequence[str],
    fields: Sequence[SchemaField],
) -> list[FieldAssignment]:
    """The field of each fact as the model sorts them (``None`` for facts it leaves out; a
    fact named in two fields keeps the first).

    Raises:
        MalformedOutputError: invalid output after the reasoner's repairs.
        ReasonerError: the endpoint failed.
        ConfigError: the context is too small for the prompt.
    """
    out = [FieldAssignment() for _ in facts]
    if not facts:
        return out
    who = subject or "the user"
    described = [(f.name, f.description) for f in fields]
    schema = schema_text(ProfileFields)
    fixed = chunking.message_tokens(prompts.profile_field_messages(who, [], described, schema))
    budget = chunking.material_budget(reasoner.context_tokens, fixed, ANSWER_TOKENS)
    start = 0
    for part in chunking.pack_items(list(facts), budget):
        messages = prompts.profile_field_messages(who, part, described, schema)
        answer = await reasoner.structured(messages, ProfileFields,
                                            _checker(len(part), {f.name for f in fields}))
        for item in answer.fields:
            for n in item.facts:
                if out[start + n - 1].field is None:
                    out[start + n - 1] = FieldAssignment(field=item.field, score=LLM_SCORE)
        start += len(part)
    return out

"""The LLM reasoner's profile step: the model sorts numbered facts into the schema's fields.

The model only chooses a field for each fact (by number); it writes no profile text, so a
profile built this way says only what its facts say, in their words (a small model cannot slip
a wrong number or a plan that was never made into it). Facts that do not fit one request are
sent in several (:func:`agent_memory.reasoners.chunking.pack_items`), each numbered from 1.

The choices are checked against the offline reading (:class:`.extractive.profile.FieldIndex`,
the local embedder): a small model files "looked at her pension statement" under *age*. A
fact stays where the model put it unless another field's prototypes are nearer by at least
:data:`OVERRULE` and that field would be the offline choice (it reaches the field threshold
and beats chatter); then it moves there, and the move is logged. A fact the model leaves
out of every field goes where the offline reading puts it, when it has a field (a small
model left "Priya's budget for the house is $350,000" out), and so does every fact of a
request whose answer fails validation after the repairs (a 1.5B model gave words, "nurse",
where fact numbers belong). Without the local embedder the model's choices stand (logged once
per call). As offline, a fact that does not stand alone ("Priya wants to raise it to 6%":
:func:`.extractive.profile.stand_alone`) goes in no field.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from .._threads import run_in_worker
from ..errors import ConfigError, MalformedOutputError, ModelUnavailableError
from ..profile_schema import SchemaField
from . import chunking, prompts
from .base import FieldAssignment
from .structured import OutputRejected, schema_text

if TYPE_CHECKING:
    from .extractive.profile import FieldIndex
    from .openai import OpenAIReasoner

log = logging.getLogger(__name__)

ANSWER_TOKENS = 600
"""Tokens kept free for the answer of one request (field names and fact numbers)."""
LLM_SCORE = 0.5
"""Score of a field chosen by the model (it gives no confidence; ties rank newest first)."""
OVERRULE = 0.1
"""Cosine margin (all-MiniLM-L6-v2) by which the offline reading's field must beat the
model's field to move a fact there."""

_indexes: dict[tuple, FieldIndex] = {}
_lock = threading.Lock()


def _field_index(fields: Sequence[SchemaField]) -> FieldIndex:
    """The offline :class:`~.extractive.profile.FieldIndex` of ``fields``, built once per
    schema on the shared local embedder (:func:`.offline_checks.local_embedder`).

    Raises:
        ModelUnavailableError: the local embedding model is not installed.
    """
    from .extractive.profile import FieldIndex
    from .offline_checks import local_embedder

    key = tuple((f.name, tuple(f.prototypes)) for f in fields)
    with _lock:
        if key not in _indexes:
            _indexes[key] = FieldIndex(local_embedder().embed_sync, fields)
        return _indexes[key]


def check_fields(subject: str | None, facts: Sequence[str], fields: Sequence[SchemaField],
                 chosen: Sequence[FieldAssignment]) -> list[FieldAssignment]:
    """The model's field choices ``chosen`` (one per fact, ``len(facts)``), each kept unless
    the offline reading clearly puts the fact in another field, and a fact the model left out
    filed where the offline reading puts it (see the module docstring); a moved or filed
    fact's score is its cosine to that field's best prototype; a fact that does not stand
    alone gets no field. Embeds and parses ``facts`` (CPU: call it off the event loop).

    Raises:
        ModelUnavailableError: the local embedding model is not installed.
    """
    from .extractive.profile import FIELD_THRESHOLD, stand_alone

    index = _field_index(fields)
    names = [f.name for f in fields]
    best, chatter = index.scores(list(facts), [subject] * len(facts))
    try:
        alone = stand_alone(facts, [subject] * len(facts))
    except ConfigError as exc:  # no spaCy: every fact is taken to stand alone
        log.warning("profile facts not checked for words pointing elsewhere: %s", exc)
        alone = [True] * len(facts)
    out = []
    for text, row, reject, pick, ok in zip(facts, best, chatter, chosen, alone, strict=True):
        if not ok:
            log.info("profile field of %r: none, it does not stand alone", text)
            out.append(FieldAssignment(field=None, score=0.0))
            continue
        k = int(row.argmax())
        offline = names[k] if row[k] >= FIELD_THRESHOLD and row[k] > reject else None
        if pick.field is None and offline is not None:
            log.info("profile field of %r: model left it out, offline reading %s (%.2f)",
                     text, offline, row[k])
            pick = FieldAssignment(field=offline, score=float(row[k]))
        elif (pick.field is not None and offline is not None and offline != pick.field
                and row[k] - row[names.index(pick.field)] >= OVERRULE):
            log.info("profile field of %r: model chose %s, offline reading %s (%.2f vs %.2f)",
                     text, pick.field, offline, row[k], row[names.index(pick.field)])
            pick = FieldAssignment(field=offline, score=float(row[k]))
        out.append(pick)
    return out


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
    fact named in two fields keeps the first), checked against the offline reading
    (:func:`check_fields`), which also files the facts the model left out. When the model's
    answer for a request still fails validation after the reasoner's repairs, that request's
    facts are filed by the offline reading alone (logged); without the local embedder they
    stay unfiled.

    Raises:
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
        try:
            answer = await reasoner.structured(messages, ProfileFields,
                                                _checker(len(part), {f.name for f in fields}))
        except MalformedOutputError as exc:  # the offline reading files this part instead
            log.warning("profile fields: the model's sorting of %d facts failed validation, "
                        "filed by the offline reading instead: %s", len(part), exc)
            answer = ProfileFields()
        for item in answer.fields:
            for n in item.facts:
                if out[start + n - 1].field is None:
                    out[start + n - 1] = FieldAssignment(field=item.field, score=LLM_SCORE)
        start += len(part)
    try:
        return await run_in_worker(check_fields, subject, list(facts), list(fields), out)
    except ModelUnavailableError as exc:
        log.warning("profile fields not checked against the offline reading: %s", exc)
        return out

"""The fields of a person's profile, and how a profile is rendered within its token budget.

A profile schema is a pydantic model (seed 003): each field is one part of the profile, its
``description`` says what belongs there and its ``examples`` are prototype statements about a
generic person ("The person works as a nurse."). The offline reasoner files each fact of the
default schema by a learned model, and of another schema in the field whose prototypes its
embedding is nearest (:mod:`agent_memory.reasoners.extractive.profile`); an LLM reasoner reads
the descriptions. :class:`PersonProfile` is the default; another model is
chosen with ``Settings.profile_schema`` (``"module:Class"``).

:func:`render_profile` picks the statements that fit ``profile_max_tokens`` breadth first over
the fields (each field's best statement before any field's second) and writes one
``"Label: statements"`` line per field in schema order.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, Field

from .errors import ConfigError
from .models import ProfileField
from .tokens import count_tokens, truncate_tokens

NEWER_WINS_THRESHOLD = 0.6
"""Jaccard overlap of content terms above which two statements of a field say one thing."""
PERSON = "The person"
"""How prototype statements name their subject; a fact's subject is written the same way
before it is compared with them."""


def _field(description: str, *examples: str) -> list[str]:
    return Field(default_factory=list, description=description, examples=list(examples))


class PersonProfile(BaseModel):
    """The default profile schema: who a person is, as a friend or an advisor would remember.

    Every field is a list of statements; the examples are prototype statements written for this
    project (no dataset text).
    """

    name: list[str] = _field("names, nicknames", "The person's name is Sam.",
                             "The person is called Alex by friends.")
    age: list[str] = _field("age and birthday", "The person is 34 years old.",
                            "The person is in their thirties.", "The person turned 40.")
    occupation: list[str] = _field(
        "job, employer, studies, career", "The person works as a nurse at a hospital.",
        "The person is a software engineer.", "The person is studying for a degree.",
        "The person started a new job.", "The person wants a career in counseling.")
    location: list[str] = _field(
        "where the person lives or comes from, moves", "The person lives in Chicago.",
        "The person moved to a new city.", "The person is originally from Sweden.")
    family: list[str] = _field(
        "partner, children, parents, relatives, friends",
        "The person is married to her husband.", "The person has two kids.",
        "The person's daughter was born in January.", "The person's mother visited.",
        "The person has been friends with someone for years.")
    pets: list[str] = _field("pets and animals", "The person has a dog named Max.",
                             "The person's cat is called Luna.")
    health: list[str] = _field(
        "health, fitness, medical conditions, wellbeing", "The person has a back injury.",
        "The person goes to therapy.", "The person runs to stay fit.")
    hobbies: list[str] = _field(
        "hobbies, activities, art, sports, travel", "The person enjoys painting.",
        "The person plays the guitar.", "The person went camping with the family.",
        "The person loves reading books.", "The person went on a trip to the beach.")
    goals: list[str] = _field(
        "plans and goals", "The person wants to buy a house.",
        "The person plans to retire by 60.", "The person hopes to adopt a child.")
    preferences: list[str] = _field(
        "likes, dislikes, how the person wants to be contacted",
        "The person prefers email to phone calls.", "The person likes spicy food.",
        "The person's favorite color is blue.")
    finances: list[str] = _field(
        "money: income, savings, debts, investments, budget",
        "The person has saved $20,000.", "The person has a student loan.",
        "The person's budget for the house is $400,000.",
        "The person contributes to a pension plan.", "The person is nervous about investing.")


@dataclass(frozen=True)
class SchemaField:
    """One field of a profile schema: its name, description and prototype statements."""

    name: str
    description: str
    prototypes: tuple[str, ...]

    @property
    def label(self) -> str:
        """``"financial_goals"`` -> ``"Financial goals"``."""
        return self.name.replace("_", " ").capitalize()


@cache
def schema_fields(model: type[BaseModel] = PersonProfile) -> tuple[SchemaField, ...]:
    """The fields of ``model`` in declaration order. A field without examples uses its
    description (else its name) as its one prototype."""
    out = []
    for name, info in model.model_fields.items():
        description = info.description or name.replace("_", " ")
        examples = tuple(str(e) for e in (info.examples or ()))
        out.append(SchemaField(name, description, examples or (f"{PERSON}'s {description}.",)))
    return tuple(out)


def load_profile_schema(spec: str | None) -> type[BaseModel]:
    """The profile schema named by ``spec`` (``"module:Class"``); :class:`PersonProfile` when
    ``spec`` is empty.

    Raises:
        ConfigError: the module or class cannot be imported, it is not a pydantic model, or it
            has no field.
    """
    if not spec:
        return PersonProfile
    module_name, _, attr = spec.partition(":")
    try:
        model = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"cannot load profile schema {spec!r}: {exc}") from exc
    if not (isinstance(model, type) and issubclass(model, BaseModel)) or not model.model_fields:
        raise ConfigError(f"profile schema {spec!r} is not a pydantic model with fields")
    return model


@dataclass(frozen=True)
class Statement:
    """A fact placed in a field: its text, id, conversation time and assignment score."""

    field: str
    text: str
    fact_id: str
    order: float
    score: float


def newest_distinct(statements: Sequence[Statement]) -> list[Statement]:
    """``statements`` without the older of two near-duplicates (same field, content-term
    Jaccard >= :data:`NEWER_WINS_THRESHOLD`; of two from the same time, the shorter: "Priya
    updated her budget for the house" gives way to "Priya's budget for the house is now
    $480,000"), in their original order."""
    from .reasoners.extractive.sentences import content_terms, jaccard  # (import cycle)

    kept: list[tuple[Statement, tuple[str, ...]]] = []
    for s in sorted(statements, key=lambda s: (-s.order, -len(s.text))):
        terms = tuple(content_terms(s.text))
        if terms and any(k.field == s.field and jaccard(terms, t) >= NEWER_WINS_THRESHOLD
                         for k, t in kept):
            continue
        kept.append((s, terms))
    return sorted((s for s, _ in kept), key=lambda s: s.order)


def render_profile(statements: Sequence[Statement], fields: Sequence[SchemaField],
                   max_tokens: int) -> tuple[str, list[ProfileField]]:
    """The profile text and fields from ``statements``, within ``max_tokens``.

    Statements are taken breadth first: each field's best-scoring statement (newest on ties),
    then each field's second, ... while they fit (a field's label counts once). Within a line
    statements keep conversation order (then their order in ``statements``).

    Args:
        statements: candidate statements; fields not in ``fields`` are ignored.
        fields: the schema, in display order.
        max_tokens: the budget (:func:`agent_memory.tokens.count_tokens`), >= 1.

    Returns:
        ``(text, fields)``: the text has ``count_tokens(text) <= max_tokens``; ``fields`` the
        non-empty fields with the ids of the facts shown.
    """
    by_field = {f.name: sorted((s for s in statements if s.field == f.name),
                               key=lambda s: (-s.score, -s.order)) for f in fields}
    chosen: dict[str, list[Statement]] = {f.name: [] for f in fields}
    remaining = max_tokens
    depth = 0
    while any(depth < len(group) for group in by_field.values()):
        for f in fields:
            group = by_field[f.name]
            if depth >= len(group):
                continue
            cost = count_tokens(group[depth].text) + (
                0 if chosen[f.name] else count_tokens(f"{f.label}:"))
            if cost <= remaining:
                chosen[f.name].append(group[depth])
                remaining -= cost
        depth += 1
    position = {id(s): k for k, s in enumerate(statements)}
    lines, out = [], []
    for f in fields:
        group = sorted(chosen[f.name], key=lambda s: (s.order, position[id(s)]))
        if group:
            body = " ".join(s.text for s in group)
            lines.append(f"{f.label}: {body}")
            out.append(ProfileField(name=f.name, text=body, facts=[s.fact_id for s in group]))
    text = "\n".join(lines)
    if not lines and statements:  # every statement is longer than the budget
        best = max(statements, key=lambda s: (s.score, s.order))
        text = truncate_tokens(best.text, max_tokens)
        out = [ProfileField(name=best.field, text=text, facts=[best.fact_id])]
    return text, out

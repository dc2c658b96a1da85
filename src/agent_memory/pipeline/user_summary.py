"""generate_user_summary: one profile per person of the user's threads, from current facts.

The user's profile is stored as ``user_summary_{user_id}`` (``thread_id="__user_summary__"``);
in a thread with several human speakers (two friends talking, as in LoCoMo) every other speaker
gets ``user_summary_{user_id}__{slug}`` (:func:`agent_memory.models.profile_id`).

Each run rebuilds the profiles from the facts and insights that hold *now* (a fact superseded by
reconciliation is left out, so an old loan balance disappears once the new one retired it),
whenever the set of current facts changed since the user's profile was built (a digest of
their ids and versions in ``metadata["facts_digest"]``):

1. Each fact's person is its ``subject``, else the speaker of its evidence turn; facts with
   neither, and facts from an unnamed user's turns, are the user's. The user is the person
   most facts from ``user``-role turns are about; the other human speakers get profiles of
   their own; facts about anyone else (a pet) and facts drawn only from the assistant's
   turns (its suggestions) go in no profile.
2. A fact that states in the present or future something placed in a period over by the
   person's latest conversation time ("is going to a conference in July 2023", read in
   October) no longer says what holds and is left out (:func:`agent_memory.timeref.
   plan_passed`); it stays a fact, and a past statement ("went to a conference in July
   2023") stays in.
3. The reasoner places each fact in a field of the profile schema
   (``Settings.profile_schema``, :mod:`agent_memory.profile_schema`), or in none
   (:meth:`Reasoner.assign_profile_fields`).
4. Of two near-duplicate facts in one field the newer stays; the statements are rendered
   within ``Settings.profile_max_tokens``, breadth first over the fields
   (:func:`~agent_memory.profile_schema.render_profile`). The profile's text is its facts'
   own sentences, so it needs no grounding check of its own.
5. ``covers_from`` / ``covers_until`` are the conversation times of the shown facts' evidence
   turns.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from ..models import (
    Fact,
    RecordKind,
    Role,
    Turn,
    UserProfile,
    merge_ids,
    profile_id,
    require_scope,
    utcnow,
)
from ..profile_schema import (
    SchemaField,
    Statement,
    load_profile_schema,
    newest_distinct,
    render_profile,
    schema_fields,
)
from ..stores.base import RecordQuery
from ..stores.conditional import retry_on_conflict
from ..timeref import plan_passed
from .context import Components, StepResult


async def generate_user_summary(c: Components, user_id: str) -> StepResult:
    """Rebuild the profiles of the user's threads from their current facts (see the module
    docstring); nothing is written when no fact changed since the user's profile.

    Returns:
        A :class:`StepResult`; ``written`` holds the ids of the profiles written.

    Raises:
        MissingScopeError: blank user_id.
        ConfigError: ``Settings.profile_schema`` cannot be loaded.
        ReasonerError: the reasoner failed (the old profiles are kept).
        ConflictError: concurrent writers kept changing a profile (each attempt re-reads).
    """
    user_id = require_scope(user_id)
    fields = schema_fields(load_profile_schema(c.settings.profile_schema))
    return await retry_on_conflict(lambda: _build(c, user_id, fields))


def _person(fact: Fact, turn: Turn | None) -> str | None:
    if turn is not None and turn.role is Role.USER and not turn.speaker:
        return None  # said by the (unnamed) user: theirs, whatever name the fact uses
    return fact.subject or (turn.speaker if turn is not None else None)


def _said_by_a_person(fact: Fact, turns: dict[str, Turn]) -> bool:
    """False when every evidence turn is known and none is a user's (the assistant's
    suggestion is no one's profile)."""
    known = [turns[e] for e in fact.evidence if e in turns]
    return len(known) < len(fact.evidence) or any(t.role is Role.USER for t in known)


def _the_user(facts: Sequence[Fact], turns: dict[str, Turn]) -> str | None:
    """The person most facts from the user's own turns are about (first seen wins ties)."""
    counts: Counter[str] = Counter()
    for fact in facts:
        turn = turns.get(fact.evidence[0]) if fact.evidence else None
        person = _person(fact, turn)
        if person and (turn is None or turn.role is Role.USER):
            counts[person] += 1
    return counts.most_common(1)[0][0] if counts else None


async def _build(c: Components, user_id: str, fields: Sequence[SchemaField]) -> StepResult:
    result = StepResult(step="user_summary", user_id=user_id)
    every = [r for r in await c.store.list(user_id, RecordQuery(
        kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT}), include_superseded=True))
        if isinstance(r, Fact)]
    if not every:
        return result
    watermark = max(max(r.updated_at, r.superseded_at or r.updated_at) for r in every)
    current = sorted((f for f in every if f.active), key=lambda f: (f.created_at, f.id))
    digest = _digest(current)
    mine = await c.store.get(user_id, [profile_id(user_id)])
    if mine and mine[0].metadata.get("facts_digest") == digest:
        return result  # the same facts hold as when the profiles were built
    turns = {t.id: t for t in await c.store.get(
        user_id, merge_ids([], *(f.evidence for f in current))) if isinstance(t, Turn)}
    user = _the_user(current, turns)
    people: dict[str | None, list[Fact]] = {None: []}
    speakers = {t.speaker for t in turns.values() if t.role is Role.USER and t.speaker}
    for fact in current:
        if not _said_by_a_person(fact, turns):
            continue
        person = _person(fact, turns.get(fact.evidence[0]) if fact.evidence else None)
        if person is None or person == user:
            people[None].append(fact)
        elif person in speakers:
            people.setdefault(person, []).append(fact)
    for person, facts in people.items():
        written = await _write_profile(c, user_id, person, user, facts, turns, fields,
                                       watermark, digest)
        if written:
            result.written.append(written)
            result.turns_read += len(facts)
    return result


def _digest(current: Sequence[Fact]) -> str:
    """A hash of which facts hold now and their versions: the profiles are rebuilt when it
    changes (a new fact, an edit, a fact superseded or forgotten)."""
    keys = sorted(f"{f.id}@{f.updated_at.isoformat()}" for f in current)
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:32]


def _when(fact: Fact, turns: dict[str, Turn]) -> list[datetime]:
    return [turns[e].created_at for e in fact.evidence if e in turns] or [fact.created_at]


async def _write_profile(c: Components, user_id: str, person: str | None, user: str | None,
                         facts: list[Fact], turns: dict[str, Turn],
                         fields: Sequence[SchemaField], watermark: datetime,
                         digest: str) -> str | None:
    if not facts:
        return None
    named = Counter(f.subject for f in facts if f.subject).most_common(1)
    subject = person or user or (named[0][0] if named else None)
    pid = profile_id(user_id, person)
    found = await c.store.get(user_id, [pid])
    previous = found[0] if found and isinstance(found[0], UserProfile) else None
    latest = max(t for f in facts for t in _when(f, turns))
    holding = [f for f in facts if not plan_passed(f.content, min(_when(f, turns)), latest)]
    placed = await c.reasoner.assign_profile_fields(
        subject, [f.content for f in holding], fields) if holding else []
    statements = [Statement(field=a.field, text=f.content, fact_id=f.id,
                            order=min(_when(f, turns)).timestamp(), score=a.score)
                  for f, a in zip(holding, placed, strict=True) if a.field]
    text, shown = render_profile(newest_distinct(statements), fields,
                                 c.settings.profile_max_tokens)
    if not text.strip():
        return None
    by_id = {f.id: f for f in facts}
    used = [by_id[i] for field in shown for i in field.facts]
    times = [t for f in used for t in _when(f, turns)]
    now = utcnow()
    profile = UserProfile(
        id=pid, user_id=user_id, subject=subject, content=text, fields=shown,
        structured=previous.structured if previous else None,
        sources=[f.id for f in facts], evidence=merge_ids([], *(f.evidence for f in used)),
        watermark=watermark, covers_from=min(times), covers_until=max(times),
        created_at=previous.created_at if previous else now, updated_at=now,
        metadata={**(previous.metadata if previous else {}),
                  "key_topics": [field.name for field in shown][:5], "facts_digest": digest},
        etag=previous.etag if previous else None,
    )
    await c.write([profile])
    return pid


"""Long-term reflection (seed 001 section 4.5 B): unprocessed insights into the one profile.

The profile is the :class:`~agent_memory.models.UserProfile` ``user_summary_{user_id}``, the
same record the thread-summary pipeline's ``generate_user_summary`` maintains (seed 000
user_summary = seed 001 long-term insight). :func:`run_longterm_reflection`:

1. loads the active insights with ``processed=False``, oldest first (by when they were said);
2. when a profile model (a pydantic class, seed 003) is given, asks
   ``Reasoner.fill_profile`` for the structured part and validates it against the model: a
   failure raises :class:`~agent_memory.errors.ProfileSchemaError` before anything is written,
   so the old profile stays;
3. rebuilds the per-field profile from the facts and insights that hold now (the pipeline's
   :func:`~agent_memory.pipeline.user_summary.generate_user_summary`: one profile per person,
   each field with its source facts), then writes the structured part onto the user's profile;
4. marks the insights ``processed`` (``store.update``, no re-embedding).

A crash between 3 and 4 leaves the insights unprocessed: the next run merges them again (the
profile is rebuilt from the same current facts, so nothing is counted twice).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..errors import MalformedOutputError, ProfileSchemaError
from ..models import Fact, RecordKind, UserProfile, merge_ids, profile_id, require_scope, utcnow
from ..pipeline.context import Components
from ..pipeline.user_summary import generate_user_summary
from ..reasoners.sessions_models import InsightNote
from ..reasoners.structured import describe_validation_error
from ..stores.base import RecordQuery
from ..stores.conditional import modify, retry_on_conflict

STRUCTURED_ONLY = "(structured profile only)"
"""Profile text used when only the structured part has been set."""


class ProfileUpdate(BaseModel):
    """What long-term reflection did.

    Attributes:
        profile: the profile after the run (``None`` when there is none yet).
        merged: ids of the insights merged in this run (now ``processed``).
        ungrounded: always 0: the profile's statements are its facts' own sentences (kept
            for compatibility).
    """

    profile: UserProfile | None = None
    merged: list[str] = Field(default_factory=list)
    ungrounded: int = 0

    @property
    def changed(self) -> bool:
        """Whether the profile was rewritten."""
        return bool(self.merged)


def validate_structured(model: type[BaseModel], data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``data`` against ``model`` and return it as JSON-able data.

    Raises:
        ProfileSchemaError: it does not validate (one line per problem).
    """
    try:
        return model.model_validate(dict(data or {})).model_dump(mode="json")
    except ValidationError as exc:
        raise ProfileSchemaError(
            f"structured profile does not validate against {model.__name__}:\n"
            + describe_validation_error(exc)
        ) from exc


async def get_profile(c: Components, user_id: str) -> UserProfile | None:
    """The user's profile record, or ``None``."""
    found = await c.store.get(user_id, [profile_id(user_id)])
    return found[0] if found and isinstance(found[0], UserProfile) else None


async def run_longterm_reflection(
    c: Components, user_id: str, profile_model: type[BaseModel] | None = None
) -> ProfileUpdate:
    """Merge the unprocessed insights into the profile (see the module docstring).

    Raises:
        MissingScopeError: blank user_id.
        ProfileSchemaError: the structured part fails ``profile_model`` (nothing written).
        ReasonerError: the reasoner failed (nothing written).
    """
    user_id = require_scope(user_id)
    previous = await get_profile(c, user_id)
    query = RecordQuery(kinds=frozenset({RecordKind.INSIGHT}), processed=False)
    insights = [f for f in await c.store.list(user_id, query) if isinstance(f, Fact)]
    if not insights:
        return ProfileUpdate(profile=previous)
    insights.sort(key=lambda f: (f.created_at, f.id))
    structured = previous.structured if previous else None
    if profile_model is not None:  # validated before anything is written
        notes = [InsightNote(id=f.id, category=f.category, text=f.content,
                             created_at=f.created_at) for f in insights]
        try:
            raw = await c.reasoner.fill_profile(profile_model, structured, notes)
        except MalformedOutputError as exc:
            raise ProfileSchemaError(
                f"the reasoner could not produce a profile valid for {profile_model.__name__}: "
                f"{exc}"
            ) from exc
        structured = validate_structured(profile_model, raw)
    # the per-field profile, rebuilt from the facts and insights that hold now
    await generate_user_summary(c, user_id)
    now = utcnow()

    def finish(current: UserProfile | None) -> UserProfile:
        if current is None:
            return UserProfile(id=profile_id(user_id), user_id=user_id, content=STRUCTURED_ONLY,
                               structured=structured, sources=[f.id for f in insights],
                               evidence=merge_ids([], *(f.evidence for f in insights)),
                               created_at=now, updated_at=now,
                               metadata={"longterm_reflection_at": now.isoformat()})
        return current.model_copy(update={
            "structured": structured, "updated_at": now,
            "metadata": {**current.metadata, "longterm_reflection_at": now.isoformat()}})

    profile = await retry_on_conflict(lambda: _write_finished(c, user_id, finish))
    for insight in insights:
        await modify(c.store, user_id, insight.id,
                     lambda f: f.model_copy(update={"processed": True, "updated_at": now}),
                     kind=Fact)
    return ProfileUpdate(profile=profile, merged=[f.id for f in insights])


async def _write_finished(c: Components, user_id: str, finish) -> UserProfile:
    (profile,) = await c.write([finish(await get_profile(c, user_id))])
    return profile


async def set_structured_profile(
    c: Components, user_id: str, data: Mapping[str, Any], profile_model: type[BaseModel]
) -> UserProfile:
    """Replace the profile's structured part with ``data`` after validating it.

    Raises:
        ProfileSchemaError: ``data`` fails ``profile_model`` (the stored profile is unchanged).
    """
    user_id = require_scope(user_id)
    structured = validate_structured(profile_model, data)
    previous = await get_profile(c, user_id)
    now = utcnow()
    if previous is None:
        profile = UserProfile(id=profile_id(user_id), user_id=user_id, content=STRUCTURED_ONLY,
                              structured=structured, created_at=now, updated_at=now)
    else:
        profile = previous.model_copy(update={"structured": structured, "updated_at": now})
    (profile,) = await c.write([profile])
    return profile

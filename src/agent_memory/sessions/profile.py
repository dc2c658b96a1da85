"""Long-term reflection (seed 001 section 4.5 B): unprocessed insights into the one profile.

The profile is the :class:`~agent_memory.models.UserProfile` ``user_summary_{user_id}``, the
same record the thread-summary pipeline's ``generate_user_summary`` maintains (seed 000
user_summary = seed 001 long-term insight). :func:`run_longterm_reflection`:

1. loads the active insights with ``processed=False``, oldest first (by when they were said);
2. merges their texts into the profile text with ``Reasoner.summarize_user`` (newer wins);
3. when a profile model (a pydantic class, seed 003) is given, asks
   ``Reasoner.fill_profile`` for the structured part and validates it against the model: a
   failure raises :class:`~agent_memory.errors.ProfileSchemaError` before anything is written,
   so the old profile stays;
4. writes the profile (the insight ids appended to ``sources``, their turns to ``evidence``),
   then marks the insights ``processed`` (``store.update``, no re-embedding).

A crash between 4's two writes leaves the insights unprocessed: the next run merges them again
(``sources`` does not grow twice; the text merge drops near-duplicates).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..errors import MalformedOutputError, ProfileSchemaError
from ..grounding import ground_text
from ..models import Fact, RecordKind, UserProfile, merge_ids, profile_id, require_scope, utcnow
from ..pipeline.context import Components
from ..reasoners.sessions_models import InsightNote
from ..reasoners.structured import describe_validation_error
from ..stores.base import RecordQuery
from ..stores.conditional import modify

STRUCTURED_ONLY = "(structured profile only)"
"""Profile text used when only the structured part has been set."""


class ProfileUpdate(BaseModel):
    """What long-term reflection did.

    Attributes:
        profile: the profile after the run (``None`` when there is none yet).
        merged: ids of the insights merged in this run (now ``processed``).
        ungrounded: sentences of the reasoner's profile text dropped because their names or
            numbers are in none of the insights, too few of their content words are
            (``Settings.grounding_min_lexical``), or they address the memory (see
            :func:`agent_memory.grounding.ground_text`).
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
    base = previous.content if previous and previous.content != STRUCTURED_ONLY else None
    draft = await c.reasoner.summarize_user(
        base, [f.content for f in insights], c.settings.profile_max_tokens
    )
    # the same check as the pipeline's profile (agent_memory.pipeline.user_summary): a line
    # must have its names and numbers, and most of its content words, in the insights
    text, dropped = ground_text(draft.text, [f.content for f in insights], base,
                                min_lexical=c.settings.grounding_min_lexical,
                                when=[f.created_at for f in insights])
    structured = previous.structured if previous else None
    if profile_model is not None:
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
    sources = merge_ids(previous.sources if previous else [], (f.id for f in insights))
    evidence = merge_ids(previous.evidence if previous else [], *(f.evidence for f in insights))
    now = utcnow()
    metadata = dict(previous.metadata) if previous else {}
    metadata["key_topics"] = draft.key_topics[:5]
    metadata["longterm_reflection_at"] = now.isoformat()
    profile = UserProfile(
        id=profile_id(user_id), user_id=user_id, content=text or base or STRUCTURED_ONLY,
        structured=structured,
        sources=sources, evidence=evidence,
        watermark=previous.watermark if previous else None,
        created_at=previous.created_at if previous else now, updated_at=now, metadata=metadata,
        etag=previous.etag if previous else None,
    )
    (profile,) = await c.write([profile])
    for insight in insights:
        await modify(c.store, user_id, insight.id,
                     lambda f: f.model_copy(update={"processed": True, "updated_at": now}),
                     kind=Fact)
    return ProfileUpdate(profile=profile, merged=[f.id for f in insights], ungrounded=dropped)


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

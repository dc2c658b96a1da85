"""generate_user_summary: the cross-thread user profile (seed 000 user_summary).

Stored under ``user_summary_{user_id}`` with ``thread_id="__user_summary__"``. Built from what
is known about the user, facts and insights (not thread summaries, which also report what the
assistant said). Incremental: the existing profile is merged with only the facts and insights
updated after its watermark.
"""

from __future__ import annotations

from ..grounding import ground_text, ground_topics
from ..models import (
    Fact,
    MemoryRecord,
    RecordKind,
    UserProfile,
    merge_ids,
    profile_id,
    require_scope,
    utcnow,
)
from ..stores.base import RecordQuery
from ..stores.conditional import retry_on_conflict
from .context import Components, StepResult


def _item_text(record: MemoryRecord) -> str:
    return record.content


async def generate_user_summary(c: Components, user_id: str) -> StepResult:
    """Create or update the user's profile from what changed since its watermark.

    Returns:
        A :class:`StepResult`; ``written`` is empty when nothing new was found.

    Raises:
        MissingScopeError: blank user_id.
        ReasonerError: the reasoner failed (the old profile is kept).
        ConflictError: concurrent writers kept changing the profile (each attempt re-reads).
    """
    user_id = require_scope(user_id)
    return await retry_on_conflict(lambda: _summarize_user(c, user_id))


async def _summarize_user(c: Components, user_id: str) -> StepResult:
    pid = profile_id(user_id)
    found = await c.store.get(user_id, [pid])
    previous = found[0] if found else None
    assert previous is None or isinstance(previous, UserProfile)
    watermark = previous.watermark if previous else None
    # only what changed after the watermark is read (an indexed range on updated_at)
    candidates = await c.store.list(
        user_id, RecordQuery(kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT}),
                             updated_after=watermark)
    )
    items = [r for r in candidates if isinstance(r, Fact) and r.active]
    result = StepResult(step="user_summary", user_id=user_id)
    if not items:
        return result
    # Oldest first by conversation time, so the reasoner lets newer information win.
    items.sort(key=lambda r: (r.created_at, r.updated_at))
    draft = await c.reasoner.summarize_user(
        previous.content if previous else None,
        [_item_text(r) for r in items],
        c.settings.profile_max_tokens,
    )
    # a profile line whose names or numbers are in none of the items, whose content words
    # mostly are not, or that addresses the memory is dropped and counted
    # (agent_memory.grounding.steps.ground_text)
    text, dropped = ground_text(draft.text, [_item_text(r) for r in items],
                                previous.content if previous else None,
                                min_lexical=c.settings.grounding_min_lexical,
                                when=[r.created_at for r in items])
    result.grounding_rejected = dropped
    if dropped:
        result.grounding_reasons["profile line"] = dropped
    if not text.strip():
        return result
    sources = merge_ids(previous.sources if previous else [], (r.id for r in items))
    evidence = merge_ids(previous.evidence if previous else [], *(r.evidence for r in items))
    now = utcnow()
    profile = UserProfile(
        id=pid,
        user_id=user_id,
        content=text,
        structured=previous.structured if previous else None,
        sources=sources,
        evidence=evidence,
        watermark=max(r.updated_at for r in items),
        created_at=previous.created_at if previous else now,
        updated_at=now,
        metadata={"key_topics": ground_topics(draft.key_topics,
                                              [_item_text(r) for r in items])[:5]},
        etag=previous.etag if previous else None,
    )
    await c.write([profile])
    result.written.append(pid)
    result.turns_read = len(items)
    return result

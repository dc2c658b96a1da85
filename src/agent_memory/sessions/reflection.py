"""Session reflection (seed 001 section 4.5 A): insights from a finished session, or the
``no-insight`` flag, and aggregation of no-insight sessions.

- :func:`reflect_session` runs once per completed session whose ``reflection_status`` is
  ``pending``. The reasoner proposes insights; those with ``confidence`` under
  ``Settings.insight_confidence_threshold``, outside ``Settings.insight_categories``, or with
  the same ``content_hash`` as an active insight are not stored, nor those the grounding
  check refuses (:mod:`agent_memory.grounding`: evidence that is not a turn of these sessions,
  or only turns addressing the memory or the model, or content the turns do not support;
  counted in ``ungrounded``). Stored insights are
  :class:`~agent_memory.models.Fact` records of kind ``insight`` (``processed=False``, evidence
  = turn ids, ``metadata["session_ids"]``); the session becomes ``processed`` (with
  ``insight_ids``) when at least one was stored, else ``no-insight``.
- :func:`aggregate_no_insight`: once ``Settings.min_sessions_for_aggregation`` completed
  sessions are ``no-insight`` (and not yet aggregated), their turns are reflected on together;
  the sessions become ``processed`` when that yields insights, else they are marked
  ``aggregated_at`` and not gathered again.

Insight ids are deterministic (``insight_{digest of the session ids}_{n}``): a reflection
re-run after a crash overwrites instead of duplicating.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import RecordNotFoundError
from ..grounding import Claim, grounder_for
from ..models import (
    Fact,
    RecordKind,
    ReflectionStatus,
    SessionStatus,
    ThreadSummary,
    Turn,
    require_scope,
    summary_id,
    utcnow,
)
from ..pipeline.context import Components
from ..stores.base import RecordQuery
from ..stores.conditional import modify


class ReflectionResult(BaseModel):
    """What one reflection did.

    Attributes:
        session_ids: the sessions reflected on (several for an aggregation).
        reflection_flag: ``insight`` when at least one insight was stored, else ``no-insight``.
        insights: the stored insight records.
        below_threshold: insights dropped for confidence under the threshold.
        skipped: insights dropped as exact duplicates or for an unknown category.
        ungrounded: insights refused by the grounding check (logged at INFO with the reason).
    """

    session_ids: list[str]
    reflection_flag: Literal["insight", "no-insight"]
    insights: list[Fact] = Field(default_factory=list)
    below_threshold: int = 0
    skipped: int = 0
    ungrounded: int = 0


async def _session_turns(c: Components, user_id: str, session_id: str) -> list[Turn]:
    query = RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=session_id)
    return [t for t in await c.store.list(user_id, query) if isinstance(t, Turn)]


async def _reflect(
    c: Components, user_id: str, sessions: Sequence[ThreadSummary]
) -> ReflectionResult:
    """Reflect on ``sessions`` together and store the insights that pass the filters."""
    session_ids = [s.thread_id or "" for s in sessions]
    turns: list[Turn] = []
    for session_id in session_ids:
        turns += await _session_turns(c, user_id, session_id)
    result = ReflectionResult(session_ids=session_ids, reflection_flag="no-insight")
    if not turns:
        return result
    settings = c.settings
    reflection = await c.reasoner.reflect_on_session(turns, settings.insight_categories)
    if reflection.reflection_flag == "no-insight":
        return result
    existing = await c.store.list(user_id, RecordQuery(kinds=frozenset({RecordKind.INSIGHT})))
    known = {f.content_hash for f in existing if isinstance(f, Fact)}
    digest = hashlib.sha256("|".join(session_ids).encode()).hexdigest()[:12]
    by_id = {t.id: t for t in turns}
    now = utcnow()
    confident = []
    for draft in reflection.insights:
        if draft.confidence < settings.insight_confidence_threshold:
            result.below_threshold += 1
        else:
            confident.append(draft)
    verdicts = await grounder_for(c).check(
        [Claim(d.insight_text, d.evidence, "insight") for d in confident], by_id)
    for draft, verdict in zip(confident, verdicts, strict=True):
        if not verdict.accepted:
            result.ungrounded += 1
            continue
        evidence = list(verdict.evidence)
        fact = Fact(
            id=f"insight_{digest}_{len(result.insights)}",
            kind=RecordKind.INSIGHT,
            user_id=user_id,
            thread_id=session_ids[0] if len(session_ids) == 1 else None,
            agent_id=sessions[-1].agent_id,
            content=draft.insight_text,
            category=draft.category,
            subject="user",
            confidence=draft.confidence,
            importance=draft.importance,
            evidence=evidence,
            processed=False,
            created_at=max(by_id[e].created_at for e in evidence),
            updated_at=now,
            metadata={"session_ids": session_ids, "insight_type": "session"},
        )
        if draft.category not in settings.insight_categories or fact.content_hash in known:
            result.skipped += 1
            continue
        known.add(fact.content_hash)
        result.insights.append(fact)
    await c.write(list(result.insights))
    if result.insights:
        result.reflection_flag = "insight"
    return result


async def reflect_session(c: Components, user_id: str, session_id: str) -> ReflectionResult:
    """Reflect on one completed session and record the outcome on its session record.

    A session already reflected on (status not ``pending``) is left alone and reported with
    its stored insights.

    Raises:
        MissingScopeError: blank ids.
        RecordNotFoundError: no such session.
        ReasonerError: the reasoner failed (nothing is written).
    """
    user_id = require_scope(user_id)
    session_id = require_scope(session_id, "session_id")
    found = await c.store.get(user_id, [summary_id(user_id, session_id)])
    if not found or not isinstance(found[0], ThreadSummary):
        raise RecordNotFoundError(f"no session {session_id!r} for user {user_id!r}")
    session = found[0]
    if session.reflection_status != ReflectionStatus.PENDING:
        stored = [f for f in await c.store.get(user_id, session.insight_ids)
                  if isinstance(f, Fact)]
        flag = "insight" if stored else "no-insight"
        return ReflectionResult(session_ids=[session_id], reflection_flag=flag, insights=stored)
    result = await _reflect(c, user_id, [session])
    status = (ReflectionStatus.PROCESSED if result.insights else ReflectionStatus.NO_INSIGHT)
    change = {"reflection_status": status, "insight_ids": [f.id for f in result.insights],
              "updated_at": utcnow()}
    await modify(c.store, user_id, session.id, lambda s: s.model_copy(update=change),
                 kind=ThreadSummary)
    return result


async def aggregate_no_insight(c: Components, user_id: str) -> ReflectionResult | None:
    """Reflect on the gathered no-insight sessions together, once there are enough.

    Returns:
        ``None`` when fewer than ``Settings.min_sessions_for_aggregation`` are waiting.
    """
    user_id = require_scope(user_id)
    summaries = await c.store.list(user_id, RecordQuery(kinds=frozenset({RecordKind.SUMMARY})))
    waiting = [
        s for s in summaries
        if isinstance(s, ThreadSummary) and s.status == SessionStatus.COMPLETED
        and s.reflection_status == ReflectionStatus.NO_INSIGHT
        and s.aggregated_at is None
    ]
    if len(waiting) < c.settings.min_sessions_for_aggregation:
        return None
    waiting.sort(key=lambda s: (s.start_time or s.created_at, s.id))
    result = await _reflect(c, user_id, waiting)
    now = utcnow()
    ids = [f.id for f in result.insights]
    change: dict[str, Any] = {"aggregated_at": now, "updated_at": now}
    if ids:
        change |= {"reflection_status": ReflectionStatus.PROCESSED, "insight_ids": ids}
    for session in waiting:
        await modify(c.store, user_id, session.id,
                     lambda s: s.model_copy(update=change), kind=ThreadSummary)
    return result


async def reflect_pending(c: Components, user_id: str) -> list[ReflectionResult]:
    """Reflect on every completed session still ``pending`` (e.g. after a crash), oldest first,
    then aggregate no-insight sessions when enough have gathered."""
    user_id = require_scope(user_id)
    summaries = await c.store.list(user_id, RecordQuery(kinds=frozenset({RecordKind.SUMMARY})))
    pending = [
        s for s in summaries
        if isinstance(s, ThreadSummary) and s.status == SessionStatus.COMPLETED
        and s.reflection_status == ReflectionStatus.PENDING and s.thread_id
    ]
    results = [await reflect_session(c, user_id, s.thread_id or "") for s in pending]
    aggregated = await aggregate_no_insight(c, user_id)
    return [*results, aggregated] if aggregated is not None else results

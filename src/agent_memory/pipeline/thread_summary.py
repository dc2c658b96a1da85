"""generate_thread_summary: the incremental recap of one thread (seed 000).

Reads the existing summary (id ``summary_{user_id}_{thread_id}``), loads only the turns newer
than its watermark, folds them in with the reasoner, checks the new sentences against the turns
(:func:`agent_memory.grounding.ground_summary`), embeds the result and upserts it.
"""

from __future__ import annotations

from ..grounding import ground_summary, ground_topics, turn_sources
from ..models import RecordKind, ThreadSummary, Turn, merge_ids, require_scope, summary_id, utcnow
from ..stores.base import RecordQuery
from ..stores.conditional import retry_on_conflict
from .context import Components, StepResult


async def generate_thread_summary(
    c: Components, user_id: str, thread_id: str, *, recent_k: int | None = None
) -> StepResult:
    """Create or update the summary of one thread.

    Args:
        recent_k: when set, fold in at most the newest ``recent_k`` unsummarised turns
            (older unsummarised ones are skipped past, as the seed's ``recent_k`` limit does).

    Returns:
        A :class:`StepResult`; ``written`` is empty when no turn is newer than the watermark.

    The write is conditional on the summary's version: when another writer (the memory
    keeper of a live session, a concurrent run) moved it first, the step runs again on fresh
    reads, so every turn is folded into exactly one window.

    Raises:
        MissingScopeError: blank user_id or thread_id.
        ReasonerError: the reasoner failed (the old summary is kept).
        ConflictError: concurrent writers kept moving the summary.
    """
    user_id = require_scope(user_id)
    thread_id = require_scope(thread_id, "thread_id")
    return await retry_on_conflict(lambda: _summarize(c, user_id, thread_id, recent_k))


async def _summarize(c: Components, user_id: str, thread_id: str, recent_k: int | None
                     ) -> StepResult:
    sid = summary_id(user_id, thread_id)
    found = await c.store.get(user_id, [sid])
    previous = found[0] if found else None
    assert previous is None or isinstance(previous, ThreadSummary)
    watermark = previous.watermark_seq if previous else -1
    turns = await c.store.list(
        user_id,
        RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=thread_id, after_seq=watermark),
    )
    result = StepResult(step="thread_summary", user_id=user_id, thread_id=thread_id)
    # in turn order: concurrent writers may interleave created_at and seq
    turns = sorted((t for t in turns if isinstance(t, Turn)), key=lambda t: t.seq)
    if recent_k is not None:
        turns = turns[-recent_k:]
    if not turns:
        return result
    draft = await c.reasoner.summarize_thread(
        previous.content if previous else None, turns, c.settings.summary_max_tokens
    )
    # a summary sentence that addresses the memory, states what no turn said, or carries a
    # word only a planted instruction said is dropped and counted (grounding.ground_summary)
    sources = turn_sources(turns)
    text, dropped = await ground_summary(c.settings, draft.text, turns,
                                         previous.content if previous else None,
                                         sources=sources)
    if dropped:
        result.grounding_rejected = dropped
        result.grounding_reasons["summary sentence"] = dropped
    if not text.strip():
        return result  # nothing but planted instructions: nothing to summarize yet
    now = utcnow()
    evidence = merge_ids(previous.evidence if previous else [], (t.id for t in turns))
    summary = ThreadSummary(
        id=sid,
        user_id=user_id,
        thread_id=thread_id,
        agent_id=turns[-1].agent_id if previous is None else previous.agent_id,
        content=text,
        key_topics=ground_topics(draft.key_topics, sources.people, sources.tainted)[:5],
        start_time=previous.start_time if previous and previous.start_time else turns[0].created_at,
        end_time=turns[-1].created_at,
        status=previous.status if previous else ThreadSummary.model_fields["status"].default,
        reflection_status=(
            previous.reflection_status
            if previous
            else ThreadSummary.model_fields["reflection_status"].default
        ),
        watermark_seq=max(t.seq for t in turns),
        turn_count=(previous.turn_count if previous else 0) + len(turns),
        created_at=previous.created_at if previous else turns[0].created_at,
        updated_at=now,
        evidence=evidence,
        metadata=previous.metadata if previous else {},
        insight_ids=previous.insight_ids if previous else [],
        init_block=previous.init_block if previous else None,
        folded_seq=previous.folded_seq if previous else -1,
        aggregated_at=previous.aggregated_at if previous else None,
        etag=previous.etag if previous else None,
    )
    await c.write([summary])
    result.written.append(sid)
    result.turns_read = len(turns)
    return result


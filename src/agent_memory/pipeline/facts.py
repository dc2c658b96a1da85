"""extract_facts: distil self-contained facts from a thread's turns (seed 000).

Each fact carries ``content_hash`` (SHA-256 of the normalised text, 32 hex chars). Before a
fact is written its hash is checked against the user's active facts, and against facts retired by
reconciliation that came from the same turns; an exact re-extraction is skipped and counted in
``exact_dedup_skipped``, so re-running the step changes nothing and never revives a retired fact.
Every draft first passes the grounding check (:mod:`agent_memory.grounding`) against the thread's
turns; refused drafts are logged and counted in ``grounding_rejected``, never stored.

Valid time (:func:`valid_from`): a fact holds from the date its text states (``occurred_at``,
as the reasoner resolved it against the turn's date; when the reasoner gave none, the start of
the first period the fact's text names, :func:`agent_memory.timeref.stated_start`: "since
2019", "in May 2025") when that date is not after the turn ("I moved to Portland in May",
said in June: from May), else from the evidence turn's time (a plan or a date ahead is known
from when it was said). ``created_at`` stays the evidence turn's time.
"""

from __future__ import annotations

import logging
from datetime import date, datetime

from ..grounding import Claim, grounder_for
from ..models import (
    Fact,
    RecordKind,
    Role,
    Turn,
    as_utc,
    content_hash,
    new_id,
    require_scope,
    utcnow,
)
from ..stores.base import RecordQuery
from ..text.names import names_thing, opening_names
from ..timeref import stated_start
from .context import Components, StepResult

log = logging.getLogger(__name__)

_BATCH_TURNS = 200
CONTEXT_TURNS = 8
"""Turns of the thread before a window (``after_seq``, ``recent_k``) or a batch that the
reasoner reads as the talk before it: the question a short reply answers, a pet named a few
turns back. No fact comes from them alone; one may cite them beside its own turn."""
NAMING_SEARCH = 50
"""Turns of the user's other threads read by the one full-text search for the turns that
named a thing the window calls by name alone (:func:`_naming_turns`). The search ranks the
turns that hold a name, not the ones that name it: a pet talked of in more short turns than
this can hide its naming turn."""
NAMING_TURNS = 4
"""At most this many naming turns go to the reasoner as context, the latest first."""
CONTEXT_ONLY = "cites only turns before the window"
"""The refusal of a fact the grounding check left citing only context turns (its repair moved
the citation to a neighbouring turn before the window, or kept only the turn beside a
planted instruction): no fact comes from the talk before a window alone."""


def _occurred_at(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return as_utc(datetime.fromisoformat(value))
    except ValueError:
        try:
            return as_utc(datetime.combine(date.fromisoformat(value[:10]), datetime.min.time()))
        except ValueError:
            return None


def valid_from(occurred_at: datetime | None, stated_at: datetime) -> datetime:
    """When an extracted fact became true: ``occurred_at`` when given and not after
    ``stated_at`` (the evidence turn's time), else ``stated_at``. Both aware UTC."""
    if occurred_at is not None and occurred_at <= stated_at:
        return occurred_at
    return stated_at


async def _thread_turns(c: Components, user_id: str, thread_id: str, after_seq: int | None,
                        upto_seq: int | None) -> list[Turn]:
    """The thread's turns with ``after_seq < seq <= upto_seq``, in turn order."""
    turns = [
        t
        for t in await c.store.list(
            user_id, RecordQuery(kinds=frozenset({RecordKind.TURN}), thread_id=thread_id,
                                 after_seq=after_seq)
        )
        if isinstance(t, Turn) and (upto_seq is None or t.seq <= upto_seq)
    ]
    turns.sort(key=lambda t: t.seq)  # turn order (created_at may interleave under writers)
    return turns


async def _naming_turns(c: Components, user_id: str, read: list[Turn],
                        turns: list[Turn]) -> list[Turn]:
    """The user's earlier turns, from other threads or further back in this one, that named
    a thing the user turns of ``turns`` call by its name alone ("my cat Miso is 14" for "Miso
    died on Sunday"), oldest first; ``read`` is every turn already read (the window and its
    context).

    One full-text search over the user's turns for the names (:func:`opening_names`; a name
    is rare, so BM25 ranks the turns that hold it first); a hit counts when it names the thing
    (:func:`names_thing`) and was said before the window. Empty when the talk read already
    names every one of them.
    """
    spoken = " ".join(t.content for t in read)
    names = [n for n in opening_names([t.content for t in turns if t.role == Role.USER],
                                      exclude={t.speaker for t in read if t.speaker})
             if not names_thing(spoken, n)]
    if not names:
        return []
    hits = await c.store.text_search(
        user_id, " ".join(names), RecordQuery(kinds=frozenset({RecordKind.TURN})),
        NAMING_SEARCH)
    known, first = {t.id for t in read}, as_utc(turns[0].created_at)
    found = [h.record for h in hits
             if isinstance(h.record, Turn) and h.record.id not in known
             and h.record.role == Role.USER and as_utc(h.record.created_at) < first
             and any(names_thing(h.record.content, n) for n in names)]
    found.sort(key=lambda t: (as_utc(t.created_at), t.seq))
    return found[-NAMING_TURNS:]


async def extract_facts(
    c: Components, user_id: str, thread_id: str, *, recent_k: int | None = None,
    after_seq: int | None = None, upto_seq: int | None = None,
) -> StepResult:
    """Extract facts from the turns of one thread and store the new ones.

    Args:
        recent_k: only look at the newest ``recent_k`` turns of the thread.
        after_seq / upto_seq: only turns with ``after_seq < seq <= upto_seq`` (a watermark
            window, used by the job worker).

    The :data:`CONTEXT_TURNS` turns before the window (or before a batch of
    ``_BATCH_TURNS``) go to the reasoner as context: a reply in the window is read with the
    question before it, and a fact may cite that turn too. So do the user's turns of earlier
    threads that named a thing the window calls by name alone (:func:`_naming_turns`): "Miso
    died" in this thread is read beside "my cat Miso is 14" of an older one.

    Returns:
        A :class:`StepResult` with the new fact ids, ``exact_dedup_skipped`` and
        ``grounding_rejected``.

    Raises:
        MissingScopeError: blank user_id or thread_id.
        ReasonerError: the reasoner failed (nothing is written).
    """
    user_id = require_scope(user_id)
    thread_id = require_scope(thread_id, "thread_id")
    low = None if after_seq is None else after_seq - CONTEXT_TURNS  # the talk before too
    read = await _thread_turns(c, user_id, thread_id, low, upto_seq)
    start = sum(1 for t in read if after_seq is not None and t.seq <= after_seq)
    if low is not None and low >= 0 and start < CONTEXT_TURNS:
        # seqs with gaps (turns deleted, seqs given by the caller): the turns before the
        # window are further back; read the thread from its start once
        read = await _thread_turns(c, user_id, thread_id, None, upto_seq)
        start = sum(1 for t in read if after_seq is not None and t.seq <= after_seq)
    if recent_k is not None:
        start = max(start, len(read) - recent_k)
    turns = read[start:]
    result = StepResult(step="extract_facts", user_id=user_id, thread_id=thread_id)
    result.turns_read = len(turns)
    if not turns:
        return result
    around = read[max(0, start - CONTEXT_TURNS):]  # the window and the talk before it
    naming = await _naming_turns(c, user_id, around, turns)
    by_id = {t.id: t for t in [*naming, *around]}
    drafts = []
    for first in range(start, len(read), _BATCH_TURNS):
        drafts += (await c.reasoner.extract_facts(
            read[first : first + _BATCH_TURNS],
            context=[*naming, *read[max(0, first - CONTEXT_TURNS) : first]])).facts

    # Only the facts sharing a hash with a draft are read (one indexed look-up), never the
    # whole partition.
    hashes = frozenset(content_hash(d.text) for d in drafts)
    existing = [
        f
        for f in await c.store.list(
            user_id, RecordQuery(kinds=frozenset({RecordKind.FACT}), include_superseded=True,
                                 content_hashes=hashes)
        )
        if isinstance(f, Fact)
    ] if hashes else []
    known = {f.content_hash for f in existing if f.active}
    # A fact that reconciliation retired must not come back when the same turns are read
    # again; the same text stated in *other* turns is new evidence and is kept.
    retired: dict[str, set[str]] = {}
    for f in existing:
        if not f.active:
            retired.setdefault(f.content_hash, set()).update(f.evidence)
    verdicts = await grounder_for(c).check(
        [Claim(d.text, d.evidence, subject=d.subject) for d in drafts], by_id)
    result.count_refused(verdicts)
    now = utcnow()
    facts: list[Fact] = []
    window = {t.id for t in turns}
    for draft, verdict in zip(drafts, verdicts, strict=True):
        if not verdict.accepted:
            log.info("fact refused by the grounding check (%s%s): %r citing %s", verdict.reason,
                     f": {verdict.detail}" if verdict.detail else "", draft.text,
                     ", ".join(draft.evidence))
            continue
        evidence = list(verdict.evidence)
        if not window & set(evidence):  # the check's repair left only the talk before
            log.info("fact refused (%s): %r citing %s", CONTEXT_ONLY, draft.text,
                     ", ".join(evidence))
            result.grounding_rejected += 1
            result.grounding_reasons[CONTEXT_ONLY] = \
                result.grounding_reasons.get(CONTEXT_ONLY, 0) + 1
            continue
        digest = content_hash(draft.text)
        if digest in known or set(evidence) <= retired.get(digest, set()):
            result.exact_dedup_skipped += 1
            continue
        known.add(digest)
        # the fact is known from its latest evidence turn (a reply, not the question before
        # it; the later mention, not a naming turn of an older thread)
        source = max((by_id[e] for e in evidence), key=lambda t: (as_utc(t.created_at), t.seq))
        occurred = _occurred_at(draft.occurred_at)
        stated = occurred or stated_start(draft.text, as_utc(source.created_at))
        facts.append(
            Fact(
                id=new_id("fact"),
                user_id=user_id,
                thread_id=thread_id,
                agent_id=source.agent_id,
                content=draft.text,
                subject=draft.subject,
                category=draft.category,
                confidence=draft.confidence,
                importance=draft.importance,
                content_hash=digest,
                occurred_at=occurred,
                evidence=evidence,
                created_at=source.created_at,
                valid_from=valid_from(stated, as_utc(source.created_at)),
                updated_at=now,
            )
        )
    await c.write(facts)
    result.written = [f.id for f in facts]
    return result

"""reconcile_memories: merge duplicates and retire contradicted facts in one pass (seed 000).

Steps:

1. **Pool**: the ``n`` most recent active facts of the user (pinned facts, i.e. restored by
   hand, are left out: a decision undone is not made again).
2. **Roll forward**: a merged fact whose sources are still active (an earlier run stopped
   between its two writes) gets its sources superseded now, so a re-run after a crash
   completes the earlier decision instead of making a new one.
3. **Decide**: the reasoner sees the whole pool (and the facts' embeddings) and returns
   duplicate groups and contradicting pairs (:class:`~agent_memory.reasoners.reconcile_models.
   ReconcileDecision`).
4. **Apply**: each duplicate group becomes one new merged fact (union of evidence, highest
   confidence and importance, newest ``created_at``, the *earliest* ``valid_from``,
   ``merged_from``); the originals are superseded with reason ``duplicate`` and
   ``superseded_by`` = the merged id (they keep no ``valid_until``: ``as_of`` reads show the
   merged fact in their place). For each contradicting pair (a merged original stands for its
   merged fact), the newer fact wins: the one true since later (``valid_from``; as Graphiti
   orders edges by ``valid_at``), then the one stated later (``created_at``), then higher
   ``confidence`` (a full tie decides nothing); the loser is superseded with reason ``contradict`` and
   ``superseded_by`` = the winner, and becomes valid until the winner's ``valid_from`` (its
   ``created_at`` when it has none; never before the loser's own ``valid_from``, so a
   winner that dates the change earlier leaves the loser an empty window), so ``as_of`` reads
   still find it for the time it held (temporal validity, docs/consistency.md).
5. **Write**: the merged facts in one atomic ``put``, then every flag change in one atomic
   ``update`` (nothing re-embedded). Each change carries its evidence
   (``supersede_evidence``) and an audit event (:mod:`.audit`).

Concurrency: the update is conditional on the versions read. When another writer changed a
fact of the pool meanwhile (a recall touch, a restore, another reconciliation), the update
raises :class:`~agent_memory.errors.ConflictError` and the whole pass runs again on fresh
reads (at most :data:`MAX_ATTEMPTS` times); merged facts already written are completed by the
roll-forward of the next pass, so nothing is decided twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
from pydantic import BaseModel, Field

from ..indexing import index_text
from ..models import Fact, RecordKind, SupersedeReason, new_id, require_scope, utcnow
from ..pipeline import Components
from ..reasoners.reconcile_models import ReconcileDecision
from ..stores.base import RecordQuery
from ..stores.conditional import retry_on_conflict
from .audit import add_event, supersede

MAX_ATTEMPTS = 5
"""Passes tried when concurrent writers keep changing the pool (each conflict means another
writer made progress)."""


class ReconcileResult(BaseModel):
    """What one reconciliation pass did. Dumps to ``{"kept", "merged", "contradicted"}``.

    Attributes:
        kept: facts of the pool still active afterwards, plus the new merged facts.
        merged: original facts superseded as duplicates.
        contradicted: facts superseded as the losers of contradictions.
        merged_ids: ids of the new merged facts (not dumped).
        superseded_ids: ids of every fact retired by this pass (not dumped).
        rolled_forward: sources of earlier merges superseded now (not dumped).
    """

    kept: int = 0
    merged: int = 0
    contradicted: int = 0
    merged_ids: list[str] = Field(default_factory=list, exclude=True)
    superseded_ids: list[str] = Field(default_factory=list, exclude=True)
    rolled_forward: list[str] = Field(default_factory=list, exclude=True)

    @property
    def written(self) -> list[str]:
        """Ids of records created or changed."""
        return [*self.merged_ids, *self.superseded_ids, *self.rolled_forward]


async def reconcile_memories(c: Components, user_id: str, n: int = 50) -> ReconcileResult:
    """Reconcile the ``n`` most recent active facts of a user (see the module docstring).

    Args:
        c: store, embedder and reasoner.
        user_id: the partition.
        n: pool size (most recent by ``created_at``), > 0.

    Returns:
        A :class:`ReconcileResult`.

    Raises:
        MissingScopeError: blank user_id.
        InvalidInputError: ``n`` < 1.
        ReasonerError: the reasoner failed (nothing is written).
        ConflictError: concurrent writers changed the pool on every attempt.
    """
    from ..errors import InvalidInputError

    user_id = require_scope(user_id)
    if n < 1:
        raise InvalidInputError(f"n must be >= 1, got {n}")
    return await retry_on_conflict(lambda: _reconcile_once(c, user_id, n),
                                   attempts=MAX_ATTEMPTS)


async def _reconcile_once(c: Components, user_id: str, n: int) -> ReconcileResult:
    result = ReconcileResult()
    pool = [
        f for f in await c.store.list(user_id, RecordQuery(
            kinds=frozenset({RecordKind.FACT}), newest_first=True, limit=n))
        if isinstance(f, Fact) and not f.pinned
    ]
    pool = await _roll_forward(c, user_id, pool, result)
    if len(pool) < 2:
        result.kept = len(pool)
        return result
    vectors = await c.embedder.embed([index_text(f) for f in pool])
    decision = await c.reasoner.reconcile(pool, vectors)
    changed, created = _apply(pool, vectors, decision, c.reasoner.name, result)
    if created:
        await c.write(list(created))
    if changed:
        await c.store.update(list(changed))
    return result


async def _roll_forward(c: Components, user_id: str, pool: list[Fact],
                        result: ReconcileResult) -> list[Fact]:
    """Supersede still-active sources of merged facts in the pool; return the pool without
    them."""
    pending: dict[str, Fact] = {}
    for fact in pool:
        for source in fact.merged_from:
            pending.setdefault(source, fact)
    if not pending:
        return pool
    stale = [f for f in await c.store.get(user_id, list(pending))
             if isinstance(f, Fact) and f.active and not f.pinned]
    if stale:
        now = utcnow()
        updates = [
            supersede(f, pending[f.id].id, SupersedeReason.DUPLICATE, now,
                      {"reasoner": "roll-forward", "rationale": "source of an earlier merge "
                       "left active by an interrupted run"})
            for f in stale
        ]
        await c.store.update(updates)
        result.rolled_forward = [f.id for f in stale]
    gone = {f.id for f in stale}
    return [f for f in pool if f.id not in gone]


def _groups(decision: ReconcileDecision, known: set[str]) -> list[tuple[list[str], str, str]]:
    """Duplicate groups with ids outside the pool dropped and overlapping groups joined."""
    groups: list[tuple[list[str], str, str]] = []
    owner: dict[str, int] = {}
    for group in decision.duplicates:
        ids = [i for i in dict.fromkeys(group.fact_ids) if i in known]
        joined = sorted({owner[i] for i in ids if i in owner})
        if joined:
            target = joined[0]
            members, text, why = groups[target]
            members += [i for i in ids if i not in members]
            for other in joined[1:]:
                members += [i for i in groups[other][0] if i not in members]
                groups[other] = ([], "", "")
            groups[target] = (members, text, f"{why}; {group.rationale}".strip("; "))
            for i in members:
                owner[i] = target
        elif len(ids) >= 2:
            owner.update({i: len(groups) for i in ids})
            groups.append((ids, group.merged_text, group.rationale))
    return [g for g in groups if len(g[0]) >= 2]


def _merged_fact(members: Sequence[Fact], text: str, evidence: dict) -> Fact:
    best = max(members, key=lambda f: (f.confidence, f.created_at, len(f.content)))
    turns: list[str] = []
    for fact in sorted(members, key=lambda f: f.created_at):
        turns += [t for t in fact.evidence if t not in turns]
    agents = {f.agent_id for f in members}
    importances = [f.importance for f in members if f.importance is not None]
    now = utcnow()
    merged = Fact(
        id=new_id("fact"), user_id=best.user_id, thread_id=best.thread_id,
        agent_id=agents.pop() if len(agents) == 1 else None,
        content=text.strip() or best.content, subject=best.subject, category=best.category,
        confidence=max(f.confidence for f in members),
        importance=max(importances) if importances else None,
        occurred_at=best.occurred_at, evidence=turns,
        created_at=max(f.created_at for f in members), updated_at=now,
        valid_from=min(f.valid_from or f.created_at for f in members),
        valid_until=(None if any(f.valid_until is None for f in members)
                     else max(f.valid_until for f in members if f.valid_until)),
        merged_from=[f.id for f in members],
    )
    return add_event(merged, "merged", now, ids=[f.id for f in members], evidence=evidence)


def _rank(fact: Fact) -> tuple[datetime, datetime, float]:
    """Contradiction winner order: true since later (``valid_from``), then stated later
    (``created_at``), then more confident."""
    return (fact.valid_from or fact.created_at, fact.created_at, fact.confidence)


def ended(loser: Fact, winner: Fact) -> datetime:
    """When a contradicted fact stopped holding: the winner's ``valid_from`` (else its
    ``created_at``), not before the loser's own ``valid_from``."""
    start = loser.valid_from or loser.created_at
    return max(winner.valid_from or winner.created_at, start)


def _apply(pool: list[Fact], vectors: np.ndarray, decision: ReconcileDecision, reasoner: str,
           result: ReconcileResult) -> tuple[list[Fact], list[Fact]]:
    """Turn a decision into final records: ``(changed existing facts, new merged facts)``."""
    index = {f.id: k for k, f in enumerate(pool)}
    facts: dict[str, Fact] = {f.id: f for f in pool}
    now = utcnow()
    alias: dict[str, str] = {}
    created: list[str] = []
    changed: set[str] = set()
    for ids, text, why in _groups(decision, set(index)):
        rows = [index[i] for i in ids]
        sims = vectors[rows] @ vectors[rows].T
        evidence = {"reasoner": reasoner, "rationale": why,
                    "min_similarity": round(float(sims.min()), 4)}
        merged = _merged_fact([facts[i] for i in ids], text, evidence)
        facts[merged.id] = merged
        created.append(merged.id)
        for i in ids:
            facts[i] = supersede(facts[i], merged.id, SupersedeReason.DUPLICATE, now, evidence)
            alias[i] = merged.id
            changed.add(i)
        result.merged += len(ids)
    for pair in decision.contradictions:
        a, b = pair.first_id, pair.second_id
        if a not in index or b not in index:
            continue
        a, b = alias.get(a, a), alias.get(b, b)
        fa, fb = facts[a], facts[b]
        if a == b or _rank(fa) == _rank(fb):
            continue
        winner, loser = (fa, fb) if _rank(fa) > _rank(fb) else (fb, fa)
        if not loser.active:
            continue
        rule = "newer" if _rank(winner)[:2] != _rank(loser)[:2] else "higher confidence"
        similarity = (round(float(vectors[index[pair.first_id]] @ vectors[index[pair.second_id]]),
                            4))
        evidence = {"reasoner": reasoner, "rationale": pair.rationale, "winner_rule": rule,
                    "similarity": similarity}
        facts[loser.id] = supersede(loser, winner.id, SupersedeReason.CONTRADICT, now, evidence,
                                    valid_until=ended(loser, winner))
        facts[winner.id] = add_event(facts[winner.id], "replaced", now, ids=[loser.id],
                                     reason=SupersedeReason.CONTRADICT.value, evidence=evidence)
        for fid in (loser.id, winner.id):
            if fid not in created:
                changed.add(fid)
        result.contradicted += 1
    result.merged_ids = created
    result.kept = sum(facts[f.id].active for f in pool) + sum(facts[i].active for i in created)
    result.superseded_ids = sorted(i for i in changed if not facts[i].active)
    return [facts[i] for i in sorted(changed)], [facts[i] for i in created]

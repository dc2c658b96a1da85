"""The audit trail of reconciliation: who replaced whom, why, and undoing a decision.

A superseded fact keeps ``superseded_by``, ``supersede_reason`` and ``superseded_at`` and, in
``supersede_evidence``, what decided it (the reasoner, its rationale, the cosine similarity, the
winner rule). Every change also appends an :class:`~agent_memory.models.AuditEvent` to the
``audit`` list of the facts involved, oldest first::

    AuditEvent(at=..., action="merged" | "superseded" | "replaced" | "restored",
               by=id, ids=[ids], reason="duplicate" | "contradict", evidence={...})

so a fact's history is one read (:func:`history`), and :func:`restore` undoes a decision with
the undo itself recorded. A restored fact is *pinned* (``Fact.pinned``): reconciliation leaves
it out of its pool afterwards, so the undone decision is not made again. These are typed
fields of :class:`~agent_memory.models.Fact`, not user metadata: ``add_memories`` cannot set
them. Writes are conditional on the versions read (:class:`~agent_memory.errors.ConflictError`
when a concurrent writer got there first).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ..errors import InvalidInputError, RecordNotFoundError
from ..models import AuditEvent, Fact, RecordKind, SupersedeReason, require_scope, utcnow
from ..stores.base import MemoryStore, RecordQuery


def add_event(fact: Fact, action: str, at: datetime, **fields: Any) -> Fact:
    """A copy of ``fact`` with one audit event appended (``fields``: by, ids, reason,
    evidence)."""
    event = AuditEvent(at=at, action=action,  # type: ignore[arg-type]
                       **{k: v for k, v in fields.items() if v is not None})
    return fact.model_copy(update={"audit": [*fact.audit, event], "updated_at": at})


def supersede(fact: Fact, by: str, reason: SupersedeReason, at: datetime,
              evidence: dict[str, Any], valid_until: datetime | None = None) -> Fact:
    """A copy of ``fact`` retired in favour of ``by``, with its evidence and an audit event.

    Args:
        valid_until: when the fact stopped being true (a contradiction: the winner's
            ``valid_from``); kept in the event's evidence too. ``None`` leaves the fact's own
            (a duplicate merged away is represented by its merged fact).
    """
    update: dict[str, Any] = {
        "superseded_by": by, "supersede_reason": reason, "superseded_at": at,
        "supersede_evidence": evidence,
    }
    if valid_until is not None:
        update["valid_until"] = valid_until
        evidence = {**evidence, "valid_until": valid_until.isoformat()}
        update["supersede_evidence"] = evidence
    retired = fact.model_copy(update=update)
    return add_event(retired, "superseded", at, by=by, reason=reason.value, evidence=evidence)


class FactHistory(BaseModel):
    """One fact with what it replaced and what replaced it.

    Attributes:
        fact: the fact itself (active or not).
        replaced: facts whose ``superseded_by`` is this fact (merged sources, contradiction
            losers), oldest first.
        replaced_by: the chain of facts that superseded it, nearest first (empty when active).
        events: its audit events, oldest first.
    """

    fact: Fact
    replaced: list[Fact] = Field(default_factory=list)
    replaced_by: list[Fact] = Field(default_factory=list)
    events: list[AuditEvent] = Field(default_factory=list)


async def _fact(store: MemoryStore, user_id: str, fact_id: str) -> Fact:
    found = await store.get(user_id, [fact_id])
    if not found or not isinstance(found[0], Fact):
        raise RecordNotFoundError(f"no fact {fact_id!r} for user {user_id!r}")
    return found[0]


async def history(store: MemoryStore, user_id: str, fact_id: str) -> FactHistory:
    """A fact's audit history (see :class:`FactHistory`).

    Raises:
        MissingScopeError: blank user_id.
        RecordNotFoundError: no such fact in the user's partition.
    """
    user_id = require_scope(user_id)
    fact = await _fact(store, user_id, fact_id)
    everything = await store.list(user_id, RecordQuery(
        kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT}), include_superseded=True))
    by_id = {f.id: f for f in everything if isinstance(f, Fact)}
    replaced = [f for f in by_id.values() if f.superseded_by == fact.id]
    chain: list[Fact] = []
    current = fact
    while current.superseded_by and current.superseded_by in by_id:
        current = by_id[current.superseded_by]
        if current in chain or current.id == fact.id:
            break
        chain.append(current)
    return FactHistory(fact=fact, replaced=replaced, replaced_by=chain,
                       events=list(fact.audit))


async def restore(store: MemoryStore, user_id: str, fact_id: str) -> Fact:
    """Undo the decision that retired a fact: make it active again and pin it.

    The fact gets a ``restored`` event naming the decision undone; the fact that had replaced
    it gets one too. Undoing a contradiction also clears the ``valid_until`` it set (the
    event keeps the old value). Flags only: nothing is re-embedded.

    Returns:
        The restored fact.

    Raises:
        MissingScopeError: blank user_id.
        RecordNotFoundError: no such fact.
        InvalidInputError: the fact is active (there is nothing to undo); nothing changes.
    """
    user_id = require_scope(user_id)
    fact = await _fact(store, user_id, fact_id)
    if fact.active:
        raise InvalidInputError(f"fact {fact_id!r} is active; only a superseded fact can be "
                                "restored")
    now = utcnow()
    undone = {"by": fact.superseded_by,
              "reason": fact.supersede_reason.value if fact.supersede_reason else None,
              "superseded_at": fact.superseded_at.isoformat() if fact.superseded_at else None}
    update: dict[str, Any] = {
        "superseded_by": None, "supersede_reason": None, "superseded_at": None,
        "pinned": True,
    }
    if fact.supersede_reason == SupersedeReason.CONTRADICT and fact.valid_until is not None:
        undone["valid_until"] = fact.valid_until.isoformat()
        update["valid_until"] = None
    restored = fact.model_copy(update=update)
    restored = add_event(restored, "restored", now, evidence=undone)
    changes = [restored]
    if fact.superseded_by:
        found = await store.get(user_id, [fact.superseded_by])
        if found and isinstance(found[0], Fact):
            changes.append(add_event(found[0], "restored", now, ids=[fact.id],
                                     evidence={"undone": undone}))
    await store.update(changes)
    return restored

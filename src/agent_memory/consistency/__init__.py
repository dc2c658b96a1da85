"""Consistent memory: reconciliation with an audit trail, and forgetting.

Modules: :mod:`.reconcile` (the reconcile_memories step), :mod:`.audit` (history, restore),
:mod:`.forget` (delete a thread / a user, a time-to-live for turns), :mod:`.api` (the client
mixin). The offline decision of whether two facts are duplicates, contradictions or unrelated
lives with the offline reasoner (:mod:`agent_memory.reasoners.extractive.reconcile`), since a
reasoner never imports a service.
"""

from .audit import FactHistory, history, restore
from .forget import ForgetReport, expire_turns, forget_thread, forget_user
from .reconcile import ReconcileResult, reconcile_memories

__all__ = [
    "FactHistory",
    "ForgetReport",
    "ReconcileResult",
    "expire_turns",
    "forget_thread",
    "forget_user",
    "history",
    "reconcile_memories",
    "restore",
]

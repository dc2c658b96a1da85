"""Recall, collections, fact history, reconciliation, jobs and forgetting of
:class:`~agent_memory.remote.RemoteMemory` (``/v1/users/{user_id}/...``, ``/v1/jobs``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..consistency.audit import FactHistory
from ..consistency.forget import ForgetReport
from ..consistency.reconcile import ReconcileResult
from ..errors import InvalidInputError
from ..jobs import Job, JobState
from ..models import Fact, RecordKind
from ..recall.api import RecallResult
from ..recall.collections import BulkAddResult, MemoryInput
from ..recall.scoring import RelevanceSource
from ..recall.strategies import Strategy
from ._http import Routes

JOBS = TypeAdapter(list[Job])


def _value(option: Any) -> Any:
    return getattr(option, "value", option)


class ConsistencyRoutes(Routes):
    """Recall and the record-keeping methods of :class:`~agent_memory.AsyncMemory`, over the
    service."""

    # -- recall and collections ----------------------------------------------------------

    async def recall(
        self,
        user_id: str,
        context: str,
        *,
        agent_id: str | None = None,
        collections: Sequence[str] | None = None,
        kinds: Sequence[RecordKind | str] | None = None,
        top_k_vectors: int = 10,
        relevance_alpha: float = 1.0,
        importance_alpha: float = 1.0,
        recency_alpha: float = 1.0,
        min_score: float = 0.0,
        max_memories: int = 10,
        strategy: Strategy | str = Strategy.HARD_LIMIT,
        relevance: RelevanceSource | str = RelevanceSource.COSINE,
        default_importance: int = 5,
        update_access: bool = True,
        reduce_batch_size: int = 10,
        summary_max_tokens: int = 300,
    ) -> RecallResult:
        """Recall memories for ``context``, scored and explained (``POST .../recall``)."""
        body = {
            "context": context, "agent_id": agent_id,
            "collections": list(collections) if collections is not None else None,
            "kinds": [_value(kind) for kind in kinds] if kinds else None,
            "top_k_vectors": top_k_vectors, "relevance_alpha": relevance_alpha,
            "importance_alpha": importance_alpha, "recency_alpha": recency_alpha,
            "min_score": min_score, "max_memories": max_memories,
            "strategy": _value(strategy), "relevance": _value(relevance),
            "default_importance": default_importance, "update_access": update_access,
            "reduce_batch_size": reduce_batch_size, "summary_max_tokens": summary_max_tokens,
        }
        found = await self.http.call("POST", self.user_path(user_id, "recall"), json=body,
                                     idempotent=not update_access)
        return RecallResult.model_validate(found)

    async def add_memories(
        self, user_id: str, items: Iterable[MemoryInput | Mapping[str, Any]]
    ) -> BulkAddResult:
        """Add facts or insights in bulk; a bad item is reported in ``failed``."""
        bodies = [item.model_dump(exclude_unset=True) if isinstance(item, BaseModel)
                  else dict(item) for item in items]
        found = await self.http.call("POST", self.user_path(user_id, "memories"),
                                     json={"items": bodies}, idempotent=False)
        return BulkAddResult.model_validate(found)

    async def agent_collections(self, user_id: str, agent_id: str) -> list[str]:
        """The collections the agent recalls from."""
        return await self.http.call(
            "GET", self.user_path(user_id, "agents", agent_id, "collections"), idempotent=True)

    async def bind_collections(self, user_id: str, agent_id: str, collections: Sequence[str]) -> int:
        """Bind the agent to collections (idempotent); returns the bindings added."""
        found = await self.http.call(
            "PUT", self.user_path(user_id, "agents", agent_id, "collections"),
            json={"collections": list(collections)}, idempotent=True)
        return found["changed"]

    async def unbind_collections(
        self, user_id: str, agent_id: str, collections: Sequence[str]
    ) -> int:
        """Remove bindings; returns the bindings that existed."""
        found = await self.http.call(
            "DELETE", self.user_path(user_id, "agents", agent_id, "collections"),
            json={"collections": list(collections)}, idempotent=True)
        return found["changed"]

    # -- reconciliation and audit --------------------------------------------------------

    async def reconcile_memories(self, user_id: str, n: int = 50) -> ReconcileResult:
        """Merge duplicates and retire contradicted facts among the ``n`` most recent."""
        found = await self.http.call("POST", self.user_path(user_id, "reconcile"),
                                     json={"n": n}, idempotent=False)
        return ReconcileResult.model_validate(found)

    async def history(self, user_id: str, fact_id: str) -> FactHistory:
        """What a fact replaced, what replaced it, and its audit events.

        Raises:
            RecordNotFoundError: no such fact for the user.
        """
        found = await self.http.call(
            "GET", self.user_path(user_id, "facts", fact_id, "history"), idempotent=True)
        return FactHistory.model_validate(found)

    async def restore(self, user_id: str, fact_id: str) -> Fact:
        """Undo the decision that retired a fact (pinned against later reconciliation).

        Raises:
            RecordNotFoundError: no such fact. InvalidInputError: the fact is not retired.
        """
        found = await self.http.call(
            "POST", self.user_path(user_id, "facts", fact_id, "restore"), idempotent=False)
        return Fact.model_validate(found)

    async def jobs(self, user_id: str | None = None,
                   states: Sequence[JobState | str] | None = None) -> list[Job]:
        """Stored jobs (of one user, or of everyone with an admin key), in queue order."""
        path = self.user_path(user_id, "jobs") if user_id is not None else "/v1/jobs"
        params = {"state": [_value(state) for state in states]} if states else None
        return await self.http.call("GET", path, params=params, idempotent=True, into=JOBS)

    # -- forgetting ----------------------------------------------------------------------

    async def forget_thread(self, user_id: str, thread_id: str) -> ForgetReport:
        """Hard-delete a thread's records, jobs, counters and watermarks."""
        found = await self.http.call("DELETE", self.user_path(user_id, "threads", thread_id),
                                     idempotent=True)
        return ForgetReport.model_validate(found)

    async def forget_records(self, user_id: str, ids: Sequence[str]) -> ForgetReport:
        """Hard-delete the user's records with these ids (any kind); ids the user has no
        record with are listed in ``report.missing``."""
        if isinstance(ids, str) or not ids:
            raise InvalidInputError("give a non-empty list of record ids to forget")
        found = await self.http.call("POST", self.user_path(user_id, "forget-records"),
                                     json={"ids": list(ids)}, idempotent=True)
        return ForgetReport.model_validate(found)

    async def forget_user(self, user_id: str) -> ForgetReport:
        """Hard-delete everything of the user."""
        found = await self.http.call("DELETE", self.user_path(user_id), idempotent=True)
        return ForgetReport.model_validate(found)

    async def expire_turns(self, user_id: str, *, older_than: timedelta | float | None = None,
                           before: datetime | None = None) -> ForgetReport:
        """Hard-delete the user's raw turns older than a time-to-live (or a cut-off)."""
        seconds = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
        found = await self.http.call(
            "POST", self.user_path(user_id, "expire-turns"),
            json={"older_than_seconds": seconds, "before": before}, idempotent=True)
        return ForgetReport.model_validate(found)

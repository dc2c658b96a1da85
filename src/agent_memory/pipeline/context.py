"""What every pipeline step works with, and what it reports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ..config import Settings
from ..embedders.base import Embedder
from ..grounding.check import Verdict
from ..indexing import build_indexed
from ..models import MemoryRecord
from ..reasoners.base import Reasoner
from ..stores.base import MemoryStore


@dataclass(frozen=True)
class Components:
    """The store, embedder, reasoner and settings a step runs with."""

    store: MemoryStore
    embedder: Embedder
    reasoner: Reasoner
    settings: Settings

    async def write(self, records: list[MemoryRecord]) -> list[MemoryRecord]:
        """Embed ``records`` and write them in one atomic batch (conditional on each record's
        ``etag``, see :meth:`MemoryStore.put`).

        Returns:
            The records as stored (new ``etag``, assigned turn ``seq``).

        Raises:
            ConflictError: a record changed since it was read, or one to create exists.
        """
        if not records:
            return []
        indexed = await build_indexed(
            records, self.embedder, store=self.store,
            context_tokens=self.settings.turn_context_tokens,
        )
        return await self.store.put(indexed)


class StepResult(BaseModel):
    """What a pipeline step did.

    Attributes:
        step: the step's name.
        user_id / thread_id: its scope.
        written: ids of records created or updated.
        turns_read: new turns (or items) the step consumed.
        exact_dedup_skipped: facts skipped because an active fact had the same content_hash.
        grounding_rejected: proposals refused by the grounding check (not stored).
        grounding_reasons: those refusals by reason (``{"instruction as evidence": 2}``).
        grounding_repaired: proposals accepted once their citation was moved to a
            neighbouring turn of the same speaker (``Verdict.repaired``).
        changed: False when there was nothing new (the store is untouched).
    """

    step: str
    user_id: str
    thread_id: str | None = None
    written: list[str] = Field(default_factory=list)
    turns_read: int = 0
    exact_dedup_skipped: int = 0
    grounding_rejected: int = 0
    grounding_reasons: dict[str, int] = Field(default_factory=dict)
    grounding_repaired: int = 0

    def count_refused(self, verdicts: Iterable[Verdict]) -> None:
        """Add the refused ``verdicts`` to ``grounding_rejected`` / ``grounding_reasons``, the
        repaired ones to ``grounding_repaired``."""
        for verdict in verdicts:
            self.grounding_repaired += verdict.repaired
            if verdict.reason is not None:
                self.grounding_rejected += 1
                self.grounding_reasons[verdict.reason] = \
                    self.grounding_reasons.get(verdict.reason, 0) + 1

    @property
    def changed(self) -> bool:
        """Whether the step wrote anything."""
        return bool(self.written)

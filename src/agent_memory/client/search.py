"""Search and the pipeline steps of :class:`~agent_memory.AsyncMemory` (:class:`SearchAPI`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Unpack

from .. import validation as check
from ..filters import FilterArgs, MemoryFilter
from ..models import require_scope
from ..pipeline import StepResult, extract_facts, generate_thread_summary, generate_user_summary
from ..retrieval.hits import Hit, SearchMode
from ..retrieval.search import SearchFilters, SearchRequest, search
from .core import MemoryCore


class SearchAPI(MemoryCore):
    """Part of :class:`~agent_memory.AsyncMemory`: search and the pipeline steps."""

    if TYPE_CHECKING:  # the sessions mixin's (agent_memory.sessions.api.SessionsAPI)
        async def flush_session_embeddings(self, user_id: str,
                                           session_id: str | None = None) -> int: ...

    async def search(
        self,
        user_id: str,
        query: str,
        *,
        mode: SearchMode | str = SearchMode.HYBRID,
        k: int = 10,
        filter: MemoryFilter | None = None,
        **filters: Unpack[FilterArgs],
    ) -> list[Hit]:
        """Vector, full-text or hybrid (RRF) search over the user's records; see
        :func:`agent_memory.retrieval.search.search`.

        Args:
            user_id: whose records.
            query: what to look for.
            mode: ``hybrid`` (default), ``vector`` or ``text``.
            k: hits to return (1-1,000).
            filter / filters: which records to search, as in :meth:`get_memories` (a
                :class:`~agent_memory.filters.MemoryFilter`, its fields as keywords over it);
                ``as_of`` searches the facts and insights valid at that time instead of the
                current ones; it does not bound other kinds (turns, summaries, profiles after
                that time are still found: add ``until`` to leave them out).

        Raises:
            MissingScopeError / InvalidScopeError: bad scope ids.
            EmptyContentError / InvalidTextError: a blank query, or one with a lone surrogate.
            UnknownOptionError: an unknown mode or kind.
            InvalidNumberError: ``k`` is not from 1 to ``MAX_K`` (1,000).
            InvalidTimeError: a ``since``/``until``/``as_of`` out of range in UTC.
            TypeError: a keyword that is not a filter.
        """
        user_id = require_scope(user_id)
        selected = MemoryFilter.build(filter, filters)
        request = SearchRequest(query=check.text(query, "search query", required=True),
                                mode=check.option(SearchMode, mode, "search mode"),
                                k=check.count(k, "k"),
                                filters=SearchFilters(**selected.values()))
        await self.connect()
        if request.mode != SearchMode.TEXT:  # live sessions' turns get their vectors
            await self.flush_session_embeddings(user_id, selected.thread_id)
        return await search(self.store, self.embedder, user_id, request,
                            rrf_k=self.settings.rrf_k)

    async def generate_thread_summary(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run the incremental thread-summary step; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await generate_thread_summary(self.components, user_id, thread_id, **kw)

    async def extract_facts(self, user_id: str, thread_id: str, **kw: Any) -> StepResult:
        """Run fact extraction with exact dedup; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await extract_facts(self.components, user_id, thread_id, **kw)

    async def generate_user_summary(self, user_id: str) -> StepResult:
        """Run the incremental cross-thread profile step; see :mod:`agent_memory.pipeline`."""
        await self.connect()
        return await generate_user_summary(self.components, user_id)

    async def process_thread(self, user_id: str, thread_id: str) -> list[StepResult]:
        """Thread summary then fact extraction for one thread."""
        return [
            await self.generate_thread_summary(user_id, thread_id),
            await self.extract_facts(user_id, thread_id),
        ]


__all__ = ["SearchAPI"]

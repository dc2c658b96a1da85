""":class:`AsyncMemory`: the client's parts (:mod:`.core`, :mod:`.threads`, :mod:`.records`,
:mod:`.search`) and the mixins of sessions, consistency, jobs and recall, in one class."""

from __future__ import annotations

from ..consistency.api import ConsistencyAPI
from ..jobs.api import JobsAPI
from ..recall.api import RecallAPI
from ..sessions.api import SessionsAPI
from .records import RecordsAPI
from .search import SearchAPI
from .threads import ThreadsAPI


class AsyncMemory(ThreadsAPI, RecordsAPI, SearchAPI, SessionsAPI, ConsistencyAPI, JobsAPI,
                  RecallAPI):
    """Memory for agents, async API. Build with :meth:`open` (or pass components).

    Args:
        settings: configuration (default: :meth:`Settings.load`).
        store / embedder / reasoner: ready components overriding the settings' choice.

    Every method is documented where it is defined: turns and threads in
    :class:`~.threads.ThreadsAPI`, reads by filter (:class:`~agent_memory.filters.MemoryFilter`)
    in :class:`~.records.RecordsAPI`, search and pipeline steps in
    :class:`~.search.SearchAPI`, lifecycle in :class:`~.core.MemoryCore`.
    """


__all__ = ["AsyncMemory"]

"""The sync facade of the remote client: :class:`Remote` runs :class:`RemoteMemory` on a
private event-loop thread, as :class:`agent_memory.Memory` runs :class:`AsyncMemory`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._sync import SyncFacade, _LoopThread, forward_coroutines
from ._client import RemoteMemory


class Remote(SyncFacade):
    """Memory for agents over HTTP, sync API (the methods of :class:`RemoteMemory`, which
    are those of :class:`agent_memory.Memory`).

    Example::

        with Remote("http://127.0.0.1:8080", api_key=key) as memory:
            memory.add_turn("alice", "t1", "user", "I moved to Lisbon last month.")
            print(memory.search("alice", "where does she live?")[0].record.content)

    Args: those of :class:`RemoteMemory`.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None,
                 headers: Mapping[str, str] | None = None, timeout: float = 60.0,
                 retries: int = 2, backoff: float = 0.1, transport: Any = None) -> None:
        self._loop = _LoopThread()
        try:
            self._async = RemoteMemory(base_url, api_key=api_key, headers=headers,
                                       timeout=timeout, retries=retries, backoff=backoff,
                                       transport=transport)
        except BaseException:
            self._loop.stop()
            raise

    @property
    def aio(self) -> RemoteMemory:
        """The underlying :class:`RemoteMemory` (use only from this object's loop)."""
        return self._async


forward_coroutines(Remote, RemoteMemory, frozenset({"close"}))

"""The sync facade of the remote client: :class:`Remote` runs :class:`RemoteMemory` on a
private event-loop thread, as :class:`agent_memory.Memory` runs :class:`AsyncMemory`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any, Self

from .._sync import _LoopThread
from ..errors import ClientClosedError
from ._client import RemoteMemory


class Remote:
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

    def close(self) -> None:
        """Close the connection pool and stop the loop thread. Safe to call twice; any other
        call afterwards raises :class:`~agent_memory.errors.ClientClosedError`."""
        if self._loop.thread.is_alive() and not self._loop.loop.is_closed():
            self._loop.run(self._async.close())
            self._loop.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _forward(name: str) -> Any:
    target = getattr(RemoteMemory, name)

    @functools.wraps(target)
    def method(self: Remote, *args: Any, **kwargs: Any) -> Any:
        if self._loop.loop.is_closed():
            raise ClientClosedError(f"Remote.{name}() called after close(); open a new Remote")
        return self._loop.run(getattr(self._async, name)(*args, **kwargs))

    return method


for _name, _ in inspect.getmembers(RemoteMemory, inspect.iscoroutinefunction):
    if not _name.startswith("_") and _name != "close":
        setattr(Remote, _name, _forward(_name))

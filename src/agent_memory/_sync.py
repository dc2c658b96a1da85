"""The sync facade: :class:`Memory` runs :class:`AsyncMemory` on a private event-loop thread.

Works from plain scripts, threads and notebooks (where an event loop may already be running).
Every public coroutine method of :class:`AsyncMemory` is available with the same signature.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Coroutine
from typing import Any, Self, TypeVar

from .client import AsyncMemory
from .config import Settings
from .errors import ClientClosedError

T = TypeVar("T")

class _LoopThread:
    """A private event loop running forever on a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="agent-memory-loop")
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class SyncFacade:
    """Shared part of the sync facades (:class:`Memory`, :class:`agent_memory.remote.Remote`):
    an async client (``_async``) driven on a private loop thread (``_loop``); ``close`` and
    the context manager. Subclasses get their public coroutine methods from
    :func:`forward_coroutines`."""

    _loop: _LoopThread
    _async: Any

    def close(self) -> None:
        """Close the client and stop the loop thread. Safe to call twice; any other call
        afterwards raises :class:`~agent_memory.errors.ClientClosedError`."""
        if self._loop.thread.is_alive() and not self._loop.loop.is_closed():
            self._loop.run(self._async.close())
            self._loop.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def forward_coroutines(facade: type[SyncFacade], client: type, skip: frozenset[str]) -> None:
    """Give ``facade`` a blocking method for every public coroutine method of ``client``
    (its mixins included) not in ``skip``, with the same signature and docstring; each
    raises :class:`~agent_memory.errors.ClientClosedError` after ``close()``."""
    for name, _ in inspect.getmembers(client, inspect.iscoroutinefunction):
        if not name.startswith("_") and name not in skip:
            setattr(facade, name, _forward(facade.__name__, client, name))


def _forward(label: str, client: type, name: str) -> Any:
    target = getattr(client, name)

    @functools.wraps(target)
    def method(self: SyncFacade, *args: Any, **kwargs: Any) -> Any:
        if self._loop.loop.is_closed():
            raise ClientClosedError(f"{label}.{name}() called after close(); open a new {label}")
        return self._loop.run(getattr(self._async, name)(*args, **kwargs))

    return method


class Memory(SyncFacade):
    """Memory for agents, sync API (same methods as :class:`AsyncMemory`).

    Example::

        with Memory(store="memory.db") as memory:
            memory.add_turn("u1", "t1", "user", "My daughter starts school in September.")
            memory.extract_facts("u1", "t1")
            for hit in memory.search("u1", "children"):
                print(hit.score, hit.record.content)

    Args:
        settings: configuration; keyword ``overrides`` are :class:`Settings` fields or ready
            ``store`` / ``embedder`` / ``reasoner`` objects.
    """

    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        parts = {k: overrides.pop(k) for k in ("embedder", "reasoner", "store")
                 if k in overrides and not isinstance(overrides[k], str | None)}
        self._loop = _LoopThread()
        try:
            settings = settings.merged(**overrides) if settings else Settings.load(**overrides)
            self._async = AsyncMemory(settings, **parts)
            self._loop.run(self._async.connect())
        except BaseException:
            self._loop.stop()
            raise

    @property
    def aio(self) -> AsyncMemory:
        """The underlying :class:`AsyncMemory` (use only from this object's loop)."""
        return self._async

    @property
    def settings(self) -> Settings:
        """The settings in force."""
        return self._async.settings


forward_coroutines(Memory, AsyncMemory, frozenset({"connect", "close"}))

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


class Memory:
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

    def close(self) -> None:
        """Close the store and stop the loop thread. Safe to call twice; any other call
        afterwards raises :class:`~agent_memory.errors.ClientClosedError`."""
        if self._loop.thread.is_alive() and not self._loop.loop.is_closed():
            self._loop.run(self._async.close())
            self._loop.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _forward(name: str) -> Any:
    target = getattr(AsyncMemory, name)

    @functools.wraps(target)
    def method(self: Memory, *args: Any, **kwargs: Any) -> Any:
        if self._loop.loop.is_closed():
            raise ClientClosedError(f"Memory.{name}() called after close(); open a new Memory")
        return self._loop.run(getattr(self._async, name)(*args, **kwargs))

    return method


def _public_coroutines() -> list[str]:
    """Every public coroutine method of AsyncMemory (its mixins included)."""
    return [
        name
        for name, value in inspect.getmembers(AsyncMemory, inspect.iscoroutinefunction)
        if not name.startswith("_") and name not in {"connect", "close"}
    ]


for _name in _public_coroutines():
    setattr(Memory, _name, _forward(_name))

"""Run the async client from the framework adapters, sync or async, without blocking a loop.

The adapters (:mod:`.langgraph`, :mod:`.openai_agents`) accept either client shape:

- a sync facade (:class:`agent_memory.Memory`, :class:`agent_memory.remote.Remote`): its async
  client lives on a private loop thread; sync calls wait on that loop, async calls await a
  future bound to it (``asyncio.wrap_future``), so the caller's loop keeps running;
- an async client (:class:`agent_memory.AsyncMemory`, ``RemoteMemory``): async calls run on the
  caller's loop; a sync call is sent to the loop the client was last used on (a framework
  calling the sync API from a worker thread while that loop runs), and refused with
  :class:`~agent_memory.errors.InvalidInputError` when there is none or it is the caller's own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from .._sync import SyncFacade
from ..errors import InvalidInputError

T = TypeVar("T")
Call = Callable[[Any], Coroutine[Any, Any, T]]


class ClientBridge:
    """One client, callable from sync and async code (see the module docstring).

    Args:
        memory: a sync facade (``Memory``, ``Remote``) or an async client (``AsyncMemory``,
            ``RemoteMemory``).
    """

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self._facade = memory if isinstance(memory, SyncFacade) else None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def client(self) -> Any:
        """The async client the calls run on."""
        return self._facade._async if self._facade is not None else self.memory

    async def arun(self, call: Call[T]) -> T:
        """``await call(client)`` where the client lives, never blocking the running loop."""
        if self._facade is not None:
            if not self._facade._loop.started:  # closed: never start a new loop for it
                return self._facade._run(call(self.client))  # raises ClientClosedError
            return await self._facade._loop.wait(call(self.client))
        self._loop = asyncio.get_running_loop()
        return await call(self.client)

    def run(self, call: Call[T]) -> T:
        """``call(client)`` run to completion from sync code.

        Raises:
            InvalidInputError: called from the thread running the client's loop (use the async
                API there), or an async client with no running loop of its own to run on.
        """
        if self._facade is not None:
            if threading.current_thread() is self._facade._loop.thread:
                raise InvalidInputError("a sync call from the client's own loop thread would "
                                        "wait on itself; use the async methods there")
            return self._facade._run(call(self.client))  # ClientClosedError once closed
        loop = self._loop
        try:
            current = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if loop is None or not loop.is_running() or loop is current:
            raise InvalidInputError(
                "a sync call on an async client needs its event loop running in another "
                "thread; use the async methods, or pass the sync facade (agent_memory.Memory)")
        return asyncio.run_coroutine_threadsafe(call(self.client), loop).result()

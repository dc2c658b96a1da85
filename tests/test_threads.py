"""Worker threads run at a lower CPU priority than the thread that serves the event loop."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from agent_memory._threads import lower_priority, niceness, run_in_worker

pytestmark = pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no thread priorities")


def own_priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


async def test_model_work_runs_below_the_loop_thread() -> None:
    loop_priority = own_priority()
    worker_priority = await run_in_worker(own_priority)
    assert worker_priority == min(19, loop_priority + niceness()) > loop_priority
    assert own_priority() == loop_priority  # the loop's thread is untouched


def test_a_worker_started_by_a_worker_is_not_lowered_twice() -> None:
    seen: list[int] = []

    def inner() -> None:
        lower_priority()
        seen.append(own_priority())

    def outer() -> None:
        lower_priority()
        seen.append(own_priority())
        child = threading.Thread(target=inner)
        child.start()
        child.join()

    thread = threading.Thread(target=outer)
    thread.start()
    thread.join()
    assert seen[0] == seen[1] == min(19, os.getpriority(os.PRIO_PROCESS, os.getpid())
                                     + niceness())


def test_the_environment_sets_the_offset(monkeypatch) -> None:
    monkeypatch.setenv("AGENT_MEMORY_WORKER_NICENESS", "0")
    assert niceness() == 0
    monkeypatch.setenv("AGENT_MEMORY_WORKER_NICENESS", "not a number")
    assert niceness() == 10


def test_store_pool_threads_run_below_the_loop(tmp_path) -> None:
    from agent_memory.stores.base import EmbeddingSpec
    from agent_memory.stores.sqlite import SQLiteStore

    async def main() -> int:
        store = SQLiteStore(tmp_path / "m.db")
        await store.open(EmbeddingSpec(model="test:four", dim=4))
        try:
            return await store.pool.run(own_priority)  # a store call's thread
        finally:
            await store.close()

    assert asyncio.run(main()) > own_priority()


def test_loop_thread_runs_coroutines_from_sync_and_async_callers():
    import asyncio
    import threading

    from agent_memory._threads import LoopThread

    portal = LoopThread("agent-memory-test-loop")
    assert not portal.started

    async def where() -> str:
        return threading.current_thread().name

    assert portal.call(where()) == "agent-memory-test-loop" and portal.started

    async def from_another_loop() -> str:
        return await portal.wait(where())

    assert asyncio.run(from_another_loop()) == "agent-memory-test-loop"
    portal.stop()
    portal.stop()  # twice is fine
    assert not portal.started
    assert portal.call(where()) == "agent-memory-test-loop"  # a new loop on next use
    portal.stop()

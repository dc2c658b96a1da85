"""Conformance under concurrency: many tasks and several clients writing one store at once.

Each test starts its writers together (``asyncio.gather``) on one client and on a second
client opened through the same ``store_factory`` (another connection to the same file or
container), then checks that nothing was lost and nothing was torn. Run times are bounded by
the sizes here (tens of records), never by a clock.

To add a test: write an ``async def test_...(self, store, connect)`` method in
:class:`ConcurrencyTests`; ``await connect()`` opens one more client.
"""

from __future__ import annotations

import asyncio

from ..stores.base import Indexed, MemoryStore
from ._harness import Connect, StoreHarness
from .corpus import ALL, EVERYTHING, turn, unit

WRITERS = 8
"""Concurrent writer tasks per client."""


class ConcurrencyTests(StoreHarness):
    """Writers on one store object and on separate clients of the same storage."""

    async def test_a_second_client_reads_the_first_clients_writes(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        other = await connect()
        await store.put([Indexed(turn("from-first"), vectors={"content": unit(1)})])
        await other.put([Indexed(turn("from-second"), vectors={"content": unit(0, 1)})])
        for client in (store, other):
            assert sorted(r.id for r in await client.list("alice", ALL)) == [
                "from-first", "from-second"]
            hits = await client.vector_search("alice", unit(0, 1), ALL, k=1)
            assert [h.record.id for h in hits] == ["from-second"]

    async def test_concurrent_puts_from_tasks_and_clients_all_land(
        self, store: MemoryStore, connect: Connect
    ) -> None:
        other = await connect()

        async def write(client: MemoryStore, name: str) -> None:
            batch = [Indexed(turn(f"{name}-{i}", content=f"memo {name} {i}"),
                             vectors={"content": unit(1, i)}) for i in range(5)]
            await client.put(batch)

        await asyncio.gather(*(write(client, f"{label}{w}")
                               for label, client in (("a", store), ("b", other))
                               for w in range(WRITERS)))
        expected = sorted(f"{label}{w}-{i}" for label in "ab" for w in range(WRITERS)
                          for i in range(5))
        for client in (store, other):
            assert sorted(r.id for r in await client.list("alice", EVERYTHING)) == expected
            assert await client.count("alice", EVERYTHING) == len(expected)
            hits = await client.vector_search("alice", unit(1), ALL, k=len(expected))
            assert len(hits) == len(expected)

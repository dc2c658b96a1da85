"""The conformance suite of the store contract, for any backend (ours or a third party's).

:class:`StoreConformance` checks the record store (:class:`~agent_memory.stores.MemoryStore`):
round trips, filters on every read path, search ranking, isolation between users, bad input,
purge, and writers on several tasks and clients at once. :class:`JobQueueConformance` checks
the job queue kept beside the records. Both are plain pytest test classes: subclass them in
your own test module and provide a ``store_factory`` fixture. This is how the SQLite store is
tested too (``tests/stores/test_conformance.py``).

Example (``test_my_store.py``; run with ``pytest test_my_store.py -rs``)::

    import pytest

    from agent_memory.stores.sqlite import SQLiteStore
    from agent_memory.testing import JobQueueConformance, StoreConformance


    @pytest.fixture
    def store_factory(tmp_path):
        # each call: a new, unopened client on this test's storage (empty at first)
        return lambda: SQLiteStore(tmp_path / "memory.db", vector_index="exact")


    class TestMyStore(StoreConformance):
        pass


    class TestMyQueue(JobQueueConformance):
        pass

The fixtures a subclass may provide or override:

- ``store_factory`` (required): a zero-argument callable returning a new, *unopened*
  :class:`~agent_memory.stores.MemoryStore`. Within one test every call must return another
  client on the same storage (a file, a database, a container), empty at the test's first
  call; the concurrency tests open two. The suite opens and closes every client.
- ``spec``: the :class:`~agent_memory.stores.EmbeddingSpec` stores are opened with
  (four-dimensional hand-built vectors by default).
- ``queue_factory`` (:class:`JobQueueConformance`): maps an opened store to its
  :class:`~agent_memory.jobs.JobQueue` (default :func:`agent_memory.jobs.queue_for`).

Capabilities: a test needing optional behaviour is decorated with
``@requires(Capability.X)``; for a store whose ``capabilities`` do not include ``X`` it is
skipped with the reason ``"<StoreClass> does not declare Capability.X"``. Declare only what
the store does: a declared capability whose tests fail is a bug in the store.

Adding a test: write an ``async def test_...(self, store)`` method (``connect`` opens more
clients) in the class of its topic: :class:`~.records.RecordTests`,
:class:`~.search.SearchTests`, :class:`~.concurrency.ConcurrencyTests`,
:class:`~.export.ExportTests`, :class:`~.temporal.TemporalTests` or
:class:`JobQueueConformance`; every subclass of the suite runs it.

Dependencies: this package imports pytest and pytest-asyncio (``pip install
'agent-memory[testing]'``); nothing else in ``agent_memory`` imports it, so the library runs
without them. The test classes carry the ``asyncio`` mark, so pytest-asyncio's strict mode
works as well as ``asyncio_mode = "auto"``.
"""

from ..stores.base import Capability
from ._harness import Connect, StoreFactory, StoreHarness, requires
from .concurrency import ConcurrencyTests
from .conformance import StoreConformance
from .export import ExportTests
from .jobs import JobQueueConformance, QueueFactory
from .records import RecordTests
from .search import SearchTests
from .temporal import TemporalTests

__all__ = [
    "Capability",
    "ConcurrencyTests",
    "Connect",
    "ExportTests",
    "JobQueueConformance",
    "QueueFactory",
    "RecordTests",
    "SearchTests",
    "StoreConformance",
    "StoreFactory",
    "StoreHarness",
    "TemporalTests",
    "requires",
]

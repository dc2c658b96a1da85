"""The record-store conformance suite: every test class of the store contract in one.

:class:`StoreConformance` gathers :class:`~.records.RecordTests`,
:class:`~.search.SearchTests`, :class:`~.concurrency.ConcurrencyTests`,
:class:`~.versions.VersionTests` (conditional writes, turn order, access counts),
:class:`~.export.ExportTests` (reading back users, index text and vectors) and
:class:`~.temporal.TemporalTests` (valid time: ``valid_from`` / ``valid_until`` and ``as_of``
reads). A backend runs it by subclassing it in a test module that provides a ``store_factory`` fixture (see
:mod:`agent_memory.testing`); a new test goes into the class of its topic, or into a new
class added to the bases below.
"""

from __future__ import annotations

from .concurrency import ConcurrencyTests
from .export import ExportTests
from .records import RecordTests
from .search import SearchTests
from .temporal import TemporalTests
from .versions import VersionTests


class StoreConformance(RecordTests, SearchTests, ConcurrencyTests, VersionTests, ExportTests,
                       TemporalTests):
    """The whole record-store contract. Subclass it as ``Test<YourStore>`` and provide a
    ``store_factory`` fixture returning a :data:`~agent_memory.testing.StoreFactory`."""

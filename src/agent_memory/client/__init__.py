"""The client: one object for every operation, async core (:class:`AsyncMemory`).

The sync facade is :class:`agent_memory.Memory` (:mod:`agent_memory._sync`). Example::

    async with AsyncMemory.open(store="memory.db") as memory:
        await memory.add_turn("u1", "t1", "user", "I moved to Lisbon last month.")
        await memory.extract_facts("u1", "t1")
        hits = await memory.search("u1", "where does the user live?")

:class:`AsyncMemory` is assembled from one class per job: :mod:`.core` (settings, components,
open and close), :mod:`.threads` (writing and reading turns), :mod:`.records` (records by
filter, summaries, profiles), :mod:`.search` (search and the pipeline steps), and the mixins
of sessions, consistency, jobs and recall in their own packages.
"""

from ..filters import MemoryFilter
from ..turns import TurnInput
from .memory import AsyncMemory

__all__ = ["AsyncMemory", "MemoryFilter", "TurnInput"]

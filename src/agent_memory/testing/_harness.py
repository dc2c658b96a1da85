"""The fixtures every conformance class shares: store factory, capability filter, clients.

A test that needs optional behaviour is decorated with :func:`requires`; the ``connect``
fixture skips it, with the missing :class:`~agent_memory.stores.base.Capability` members in
the reason, for a store that does not declare them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

try:
    import pytest
    import pytest_asyncio
except ImportError as exc:  # pytest is a test-time dependency, not a runtime one
    raise ImportError(
        "agent_memory.testing needs pytest and pytest-asyncio: "
        "pip install 'agent-memory[testing]'"
    ) from exc

from ..stores.base import Capability, EmbeddingSpec, MemoryStore

StoreFactory = Callable[[], MemoryStore]
"""Builds a new, *unopened* store object. Within one test every call returns another client
on the same storage (file, database, container), empty at the test's first call; the suite
opens each one with the ``spec`` fixture and closes it after the test."""

Connect = Callable[[], Awaitable[MemoryStore]]
"""Opens another client through the ``store_factory`` (closed after the test)."""

_REQUIRES = "__conformance_requires__"
_Test = TypeVar("_Test", bound=Callable[..., object])


def requires(*capabilities: Capability) -> Callable[[_Test], _Test]:
    """Mark a conformance test (or a whole test class) as needing ``capabilities``: it is
    skipped for stores that do not declare them.

    Example::

        @requires(Capability.VECTOR_SEARCH)
        async def test_vector_search_ranks_by_cosine(self, store: MemoryStore) -> None: ...

    Raises:
        TypeError: an argument is not a :class:`Capability` (a misspelt string would
            otherwise skip the test for every store).
    """
    for capability in capabilities:
        if not isinstance(capability, Capability):
            raise TypeError(f"requires() takes Capability members, not {capability!r}")

    def mark(test: _Test) -> _Test:
        setattr(test, _REQUIRES, frozenset(capabilities) | getattr(test, _REQUIRES, frozenset()))
        return test

    return mark


def required_capabilities(test: object) -> frozenset[Capability]:
    """The capabilities :func:`requires` declared on ``test`` (empty when none)."""
    return getattr(test, _REQUIRES, frozenset())


def missing_capabilities(store: MemoryStore, needed: frozenset[Capability]) -> list[Capability]:
    """The members of ``needed`` that ``store`` does not declare, in enum order."""
    return [c for c in Capability if c in needed and c not in store.capabilities]


def skip_reason(store: MemoryStore, missing: list[Capability]) -> str:
    """The skip reason for a store lacking ``missing``, e.g.
    ``"MyStore does not declare Capability.VECTOR_SEARCH"``."""
    names = ", ".join(f"Capability.{c.name}" for c in missing)
    return f"{type(store).__name__} does not declare {names}"


@pytest.mark.asyncio
class StoreHarness:
    """Fixtures shared by the conformance classes (no tests of its own).

    Expects a ``store_factory`` fixture (:data:`StoreFactory`), defined in the subclass or in
    the caller's module or ``conftest.py``. ``spec`` may be overridden in the subclass.
    """

    @pytest.fixture
    def spec(self) -> EmbeddingSpec:
        """Four-dimensional hand-built vectors, so the cosine order of every test is known."""
        return EmbeddingSpec(model="test:hand-built", dim=4)

    @pytest_asyncio.fixture
    async def connect(
        self, request: pytest.FixtureRequest, store_factory: StoreFactory, spec: EmbeddingSpec
    ) -> AsyncIterator[Connect]:
        """Opens clients on the test's storage; skips the test when the store lacks a
        capability the test :func:`requires`. Every client is closed after the test."""
        needed = required_capabilities(request.function) | required_capabilities(request.cls)
        opened: list[MemoryStore] = []

        async def open_client() -> MemoryStore:
            client = store_factory()
            if not isinstance(client, MemoryStore):
                raise TypeError(f"store_factory returned {type(client).__name__}, "
                                "not a MemoryStore")
            missing = missing_capabilities(client, needed)
            if missing:
                pytest.skip(skip_reason(client, missing))
            await client.open(spec)
            opened.append(client)
            return client

        try:
            yield open_client
        finally:
            for client in reversed(opened):
                await client.close()

    @pytest_asyncio.fixture
    async def store(self, connect: Connect) -> MemoryStore:
        """An opened, empty store: the first client on the test's storage."""
        return await connect()

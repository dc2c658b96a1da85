"""The shipped conformance suite (:mod:`agent_memory.testing`) on :class:`CosmosStore` against
the local Cosmos DB test server (transactional batches from ``tests/cosmos_server/ext``).
``CosmosStore`` does not declare ``Capability.COLLECTIONS`` (agent-to-collection bindings are
not stored in Cosmos DB yet) nor ``Capability.JOB_QUEUE`` (the queue has its own module); no
test of this suite needs either, so none is skipped."""

from __future__ import annotations

import pytest

from agent_memory.testing import StoreConformance, StoreFactory


@pytest.fixture
def store_factory(cosmos_factory) -> StoreFactory:
    return cosmos_factory


class TestCosmosStore(StoreConformance):
    pass

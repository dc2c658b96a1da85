"""Fixtures of the Cosmos DB store tests: clients on the local test server, each test in its
own container prefix."""

from __future__ import annotations

import itertools
import os
import warnings

import pytest

from agent_memory.stores.cosmos import CosmosSettings, CosmosStore

_PREFIXES = itertools.count()


@pytest.fixture(autouse=True)
def _quiet_self_signed_tls():
    """The test server's certificate is self-signed; the SDK skips its check for loopback
    addresses and urllib3 warns on every request."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unverified HTTPS request")
        yield


@pytest.fixture
def cosmos_settings(cosmos_server) -> CosmosSettings:
    """Settings of a store on the local server with a container prefix no other test uses."""
    return CosmosSettings(endpoint=cosmos_server.endpoint, key=cosmos_server.key,
                          database="agent_memory_tests",
                          container_prefix=f"t{os.getpid()}_{next(_PREFIXES)}_")


@pytest.fixture
def cosmos_factory(cosmos_settings):
    """New, unopened clients on the test's containers."""
    return lambda: CosmosStore(cosmos_settings)

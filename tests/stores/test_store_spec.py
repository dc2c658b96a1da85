"""Store strings that name no usable store are ``ConfigError``s, never a guess."""

from __future__ import annotations

import pytest

from agent_memory.errors import ConfigError
from agent_memory.stores import open_store
from agent_memory.stores.cosmos.settings import CosmosSettings


@pytest.mark.parametrize("spec", ["cosmos:x", "cosmos:x.documents.azure.com",
                                  "cosmos+https:host", "azure-cosmos:x?key=abc"])
def test_a_cosmos_spec_without_slashes_is_a_config_error(spec) -> None:
    pytest.importorskip("azure.cosmos.aio", reason="the cosmos extra is not installed")
    with pytest.raises(ConfigError, match="cosmos://host"):
        open_store(spec)
    with pytest.raises(ConfigError):
        CosmosSettings.from_url(spec, environ={})


def test_cosmos_urls_still_parse() -> None:
    for url in ("cosmos://x.documents.azure.com?key=abc", "cosmos:/x?key=abc"):
        assert CosmosSettings.from_url(url, environ={}).endpoint.startswith("https://x")

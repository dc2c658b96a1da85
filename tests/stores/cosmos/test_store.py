"""CosmosStore behaviour beyond the conformance suite, on the local test server: the stored
embedding spec, request charges, turn expiry fields, `agent-memory setup cosmos`."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app
from agent_memory.errors import EmbeddingMismatchError, NotAStoreError
from agent_memory.models import Turn
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.cosmos import CosmosStore

SPEC = EmbeddingSpec(model="test:hand-built", dim=4)


async def test_a_store_keeps_its_embedding_spec(cosmos_settings):
    store = CosmosStore(cosmos_settings)
    await store.open(SPEC)
    await store.close()
    other = CosmosStore(cosmos_settings)
    with pytest.raises(EmbeddingMismatchError):
        await other.open(EmbeddingSpec(model="test:other", dim=4))
    await other.close()


async def test_missing_containers_without_create_is_not_a_store(cosmos_settings):
    settings = cosmos_settings.model_copy(update={"create_if_missing": False,
                                                  "container_prefix": "never_made_"})
    with pytest.raises(NotAStoreError):
        await CosmosStore(settings).open(SPEC)


async def test_request_charges_are_counted_per_operation_and_turns_carry_ttl(cosmos_settings):
    store = CosmosStore(cosmos_settings.model_copy(update={"turn_ttl_seconds": 3600}))
    await store.open(SPEC)
    try:
        (turn,) = await store.put([Indexed(Turn(id="t", user_id="u", thread_id="th",
                                                role="user", content="hi"))])
        assert turn.seq == 0
        await store.list("u", RecordQuery())
        charges = store.request_charges
        assert charges["put"].calls >= 1 and charges["list"].calls >= 1
        assert all(c.request_units >= 0 for c in charges.values())
        container = store.records_container
        (doc,) = [d async for d in container.query_items(
            "SELECT * FROM c WHERE c.user_id = 'u' AND c.id = 't'", partition_key="u")]
        assert doc["ttl"] == 3600
    finally:
        await store.close()


def test_setup_cosmos_creates_the_layout_once(cosmos_server, cosmos_settings):
    url = (f"cosmos://{cosmos_server.endpoint.split('//')[1].rstrip('/')}/"
           f"{cosmos_settings.database}?prefix={cosmos_settings.container_prefix}"
           f"&key={quote(cosmos_server.key)}")
    runner = CliRunner()
    first = runner.invoke(app, ["setup", "cosmos", "--store", url])
    assert first.exit_code == 0, first.output
    prefix = cosmos_settings.container_prefix
    for name in ("records", "jobs", "leases"):
        assert f"created container {prefix}{name}" in first.output
    assert cosmos_server.key not in first.output
    again = runner.invoke(app, ["setup", "cosmos", "--store", url])
    assert again.exit_code == 0 and "every container already exists" in again.output
    bad = runner.invoke(app, ["setup", "cosmos", "--store", "/tmp/memory.db"])
    assert bad.exit_code == 2 and "not a Cosmos DB store URL" in bad.output

"""The conformance suite against a real Azure Cosmos DB account, when one is configured:
``COSMOS_ENDPOINT`` (``https://<account>.documents.azure.com:443/``) and ``COSMOS_KEY``, or
``COSMOS_ENDPOINT`` with Microsoft Entra ID variables (``AZURE_CLIENT_ID``,
``AZURE_TENANT_ID``, ``AZURE_CLIENT_SECRET``). Each test writes under its own container
prefix in the database ``agent_memory_live_tests`` and deletes its containers afterwards."""

from __future__ import annotations

import os
import uuid

import pytest

from agent_memory.stores.cosmos import CosmosSettings, CosmosStore
from agent_memory.testing import StoreConformance, StoreFactory

ENDPOINT = os.environ.get("COSMOS_ENDPOINT")
KEY = os.environ.get("COSMOS_KEY")
ENTRA = all(os.environ.get(v) for v in ("AZURE_CLIENT_ID", "AZURE_TENANT_ID",
                                        "AZURE_CLIENT_SECRET"))

pytestmark = pytest.mark.skipif(
    not ENDPOINT or not (KEY or ENTRA),
    reason="live Cosmos DB tests need COSMOS_ENDPOINT and COSMOS_KEY (or AZURE_CLIENT_ID, "
           "AZURE_TENANT_ID, AZURE_CLIENT_SECRET for Entra ID)")


@pytest.fixture
async def store_factory() -> StoreFactory:
    settings = CosmosSettings(endpoint=ENDPOINT or "https://unset/", key=KEY,
                              database="agent_memory_live_tests",
                              container_prefix=f"live_{uuid.uuid4().hex[:8]}_")
    yield lambda: CosmosStore(settings)
    from azure.cosmos.aio import CosmosClient

    credential = KEY
    if credential is None:
        from azure.identity.aio import DefaultAzureCredential

        credential = DefaultAzureCredential()
    async with CosmosClient(settings.endpoint, credential=credential) as client:
        database = client.get_database_client(settings.database)
        async for container in database.list_containers():
            if container["id"].startswith(settings.container_prefix):
                await database.delete_container(container["id"])


class TestLiveCosmosStore(StoreConformance):
    pass

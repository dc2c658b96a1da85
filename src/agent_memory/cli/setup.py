"""``agent-memory setup cosmos``: create the Azure Cosmos DB database and containers with their
policies (vector, full-text, composite and unique indexes; TTL; throughput) and print what was
created. Existing containers are left as they are."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from .render import console


def register(app: typer.Typer) -> None:
    """Add the ``setup`` group to ``app``."""
    from .commands import handles_errors

    setup_app = typer.Typer(help="Create a store's server-side layout.", no_args_is_help=True)
    app.add_typer(setup_app, name="setup")

    @setup_app.command("cosmos")
    @handles_errors
    def cosmos(
        store: Annotated[str | None, typer.Option(
            "--store", "-s", help="cosmos://host[:port][/database]?key=...&prefix=... "
            "(default: AGENT_MEMORY_STORE); the key may come from COSMOS_KEY.")] = None,
    ) -> None:
        """Create the database and the records, jobs and leases containers."""
        from ..config import Settings
        from ..embedders import get_embedder
        from ..errors import ConfigError
        from ..stores.cosmos.settings import CosmosSettings, is_cosmos_url

        settings = Settings.load()
        url = store or settings.store
        if not is_cosmos_url(url):
            raise ConfigError(f"not a Cosmos DB store URL: {url.partition('?')[0]!r} "
                              "(expected cosmos://host[:port][/database])")
        cosmos_settings = CosmosSettings.from_url(url)
        embedder = get_embedder(settings.embedder, batch_size=settings.embed_batch_size)
        created = asyncio.run(_setup(cosmos_settings, embedder.spec))
        console.print(f"Cosmos DB store {cosmos_settings.describe()}")
        for line in created or ["nothing: every container already exists"]:
            console.print(f"  created {line}" if created else f"  {line}")


async def _setup(settings, spec) -> list[str]:
    from azure.cosmos.aio import CosmosClient

    from ..stores.cosmos.layout import ensure_layout

    credential = settings.key.get_secret_value() if settings.key else None
    owned = None
    if credential is None:
        from azure.identity.aio import DefaultAzureCredential

        credential = owned = DefaultAzureCredential()
    try:
        async with CosmosClient(settings.endpoint, credential=credential) as client:
            return await ensure_layout(client, settings, spec)
    finally:
        if owned is not None:
            await owned.close()

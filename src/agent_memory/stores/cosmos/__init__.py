"""Azure Cosmos DB for NoSQL store (``pip install agent-memory[cosmos]``): :class:`CosmosStore`,
its :class:`CosmosSettings` and container layout (:mod:`.layout`)."""

from .settings import CosmosSettings
from .store import CosmosStore

__all__ = ["CosmosSettings", "CosmosStore"]

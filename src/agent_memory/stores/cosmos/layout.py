"""The containers of a Cosmos DB store and their policies, as pure functions of the settings.

- ``records``: every memory record (turns, facts, insights, interactions, summaries,
  profiles), partition key ``/user_id``. The store contract promises an atomic batch per
  user across kinds, and a Cosmos DB transaction (transactional batch) spans one logical
  partition of one container, so all of a user's records share one container and one
  logical partition; every query names the user, so every read is single-partition too
  (cross-thread reads included: the thread is a filter, not a partition). TTL is enabled with
  no default expiry (``defaultTtl = -1``): a turn expires only when it carries ``ttl``.
  Beside the records the container holds one sequence document per thread (kind
  ``sequence``, the thread's next turn ``seq``) and the store's ``meta`` document (the
  embedding spec) in the reserved partition ``__meta__``.
  A unique key on ``/position`` (a turn's ``[thread_id, seq]``; any other document's own id)
  makes a turn position impossible to take twice within a user's partition.
- ``jobs``: counters, step marks and jobs, partition key ``/user_id`` (one user's job-queue
  advance is one transactional batch).
- ``leases``: change-feed continuations and worker leases, partition key ``/id``.

Policies of ``records`` (shapes as in the Azure Cosmos DB for NoSQL docs, "Vector search",
"Full text search", "Indexing policies"): a vector embedding policy with one float32 cosine
entry per vector path, ``vectorIndexes`` of the configured type, the vector paths excluded
from the range index, a full-text policy and ``fullTextIndexes`` on ``/text``, and the
composite indexes of the list order (``created_at``, ``order_seq``, ``id``, both directions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..base import CONTENT, EmbeddingSpec
from .settings import CosmosSettings

RECORDS = "records"
JOBS = "jobs"
LEASES = "leases"

VECTOR_FIELDS = (CONTENT, "summary")
"""The vector fields a record may carry (``content`` for every record, ``summary`` for
interactions); each has its own vector path and index."""

TEXT_PATH = "/text"
LANGUAGE = "en-US"


def vector_path(field_name: str) -> str:
    """The document path of a vector field: ``/embedding`` for ``content``, else
    ``/embedding_<field>``."""
    return "/embedding" if field_name == CONTENT else f"/embedding_{field_name}"


def vector_embedding_policy(spec: EmbeddingSpec) -> dict[str, Any]:
    """One ``vectorEmbeddings`` entry per vector path: float32, cosine, the embedder's
    dimensions."""
    return {"vectorEmbeddings": [
        {"path": vector_path(name), "dataType": "float32", "distanceFunction": "cosine",
         "dimensions": spec.dim}
        for name in VECTOR_FIELDS]}


def full_text_policy() -> dict[str, Any]:
    """English full-text analysis of ``/text`` (the record's index text)."""
    return {"defaultLanguage": LANGUAGE, "fullTextPaths": [{"path": TEXT_PATH,
                                                            "language": LANGUAGE}]}


def _order(direction: str) -> list[dict[str, str]]:
    return [{"path": path, "order": direction}
            for path in ("/created_at", "/order_seq", "/id")]


def records_indexing_policy(settings: CosmosSettings) -> dict[str, Any]:
    """Consistent indexing of every path but the vectors (range indexes of 384 numbers per
    record would cost RU on every write and serve no query), vector indexes of the configured
    type, the full-text index, and the composite indexes of the list order."""
    return {
        "indexingMode": "consistent",
        "automatic": True,
        "includedPaths": [{"path": "/*"}],
        "excludedPaths": [{"path": '/"_etag"/?'},
                          *({"path": f"{vector_path(name)}/*"} for name in VECTOR_FIELDS)],
        "vectorIndexes": [{"path": vector_path(name), "type": settings.vector_index}
                          for name in VECTOR_FIELDS],
        "fullTextIndexes": [{"path": TEXT_PATH}],
        "compositeIndexes": [_order("ascending"), _order("descending")],
    }


def unique_key_policy() -> dict[str, Any]:
    """Unique ``/position`` within a logical partition (a turn's place in its thread)."""
    return {"uniqueKeys": [{"paths": ["/position"]}]}


@dataclass(frozen=True)
class ContainerSpec:
    """One container to create: its name and the keyword arguments of
    ``DatabaseProxy.create_container_if_not_exists``."""

    name: str
    partition_key: str
    options: dict[str, Any] = field(default_factory=dict)


def containers(settings: CosmosSettings, spec: EmbeddingSpec) -> list[ContainerSpec]:
    """The layout: ``records``, ``jobs`` and ``leases`` with their policies."""
    return [
        ContainerSpec(settings.container(RECORDS), "/user_id", {
            "indexing_policy": records_indexing_policy(settings),
            "vector_embedding_policy": vector_embedding_policy(spec),
            "full_text_policy": full_text_policy(),
            "unique_key_policy": unique_key_policy(),
            "default_ttl": -1,
        }),
        ContainerSpec(settings.container(JOBS), "/user_id"),
        ContainerSpec(settings.container(LEASES), "/id"),
    ]


async def ensure_layout(client: Any, settings: CosmosSettings, spec: EmbeddingSpec
                        ) -> list[str]:
    """Create the database and containers that do not exist yet (existing ones are left as
    they are: Cosmos DB cannot change a partition key or vector policy in place).

    Args:
        client: an ``azure.cosmos.aio.CosmosClient``.
        settings: the store settings (database, prefix, index type, throughput).
        spec: the embedder's model and dimension (vector policy).

    Returns:
        What was created, e.g. ``["database agent_memory", "container records"]``.

    Raises:
        StoreError (or a subclass): the account refused (translated by :mod:`.errors`).
    """
    from azure.cosmos import PartitionKey, ThroughputProperties

    from .errors import translated

    created: list[str] = []
    throughput = (ThroughputProperties(auto_scale_max_throughput=settings.max_throughput)
                  if settings.max_throughput else None)
    with translated(f"create database {settings.database!r}"):
        names = [d["id"] async for d in client.list_databases()]
        database = await client.create_database_if_not_exists(
            settings.database, offer_throughput=throughput)
    if settings.database not in names:
        created.append(f"database {settings.database}")
    with translated("list containers"):
        existing = {c["id"] async for c in database.list_containers()}
    for container in containers(settings, spec):
        if container.name in existing:
            continue
        with translated(f"create container {container.name!r}"):
            await database.create_container_if_not_exists(
                container.name, partition_key=PartitionKey(path=container.partition_key),
                **container.options)
        created.append(f"container {container.name}")
    return created

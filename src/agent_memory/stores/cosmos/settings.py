"""Where a Cosmos DB store lives and how its containers are built: :class:`CosmosSettings`.

A store is named by a URL, ``cosmos://<host[:port]>[/<database>]?key=...&prefix=...``
(``cosmos+https://`` is the same; ``cosmos+http://`` talks plain HTTP, for local test
servers). The account key comes from the URL (percent-encode it there: ``/`` as ``%2F``;
``+`` is kept as is), else from ``AGENT_MEMORY_COSMOS_KEY`` or
``COSMOS_KEY``; with none, the store authenticates with Microsoft Entra ID
(``azure.identity.aio.DefaultAzureCredential``: environment variables of a service principal,
a managed identity, or the Azure CLI login). The key is never logged nor shown in ``repr``.

Query parameters: ``key``, ``prefix`` (container name prefix), ``vector_index``
(``quantizedFlat``, ``diskANN``, ``flat``), ``max_throughput`` (autoscale maximum RU/s;
absent: serverless), ``turn_ttl`` (seconds a turn lives), ``create`` (``false``: never create
the database or containers).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from ...errors import ConfigError

SCHEMES = ("cosmos", "cosmos+https", "cosmos+http", "azure-cosmos")
"""URL schemes naming a Cosmos DB store."""

KEY_VARIABLES = ("AGENT_MEMORY_COSMOS_KEY", "COSMOS_KEY")
"""Environment variables read, in this order, for the account key when the URL has none."""

VectorIndexType = Literal["quantizedFlat", "diskANN", "flat"]

_QUERY_FIELDS = {"key", "prefix", "vector_index", "max_throughput", "turn_ttl", "create"}


class CosmosSettings(BaseModel):
    """Account, database and container layout of a Cosmos DB store.

    Attributes:
        endpoint: the account endpoint, e.g. ``https://myaccount.documents.azure.com:443/``.
        key: the account key, or ``None`` for Microsoft Entra ID (``DefaultAzureCredential``).
        database: the database name.
        container_prefix: prepended to every container name (``records``, ``jobs``,
            ``leases``), so several stores can share one database.
        vector_index: the vector index type of the vector paths (``quantizedFlat``: compressed
            vectors, exact re-ranking, up to 4,096 dimensions; ``diskANN``: approximate graph
            for large partitions; ``flat``: brute force, up to 505 dimensions).
        max_throughput: autoscale maximum RU/s of the database (shared by the containers),
            ``None`` for a serverless account (no throughput is set).
        turn_ttl_seconds: seconds after its last write a turn expires (per-item ``ttl``);
            ``None``: turns never expire.
        create_if_missing: create the database and containers on first open.
    """

    model_config = ConfigDict(frozen=True)

    endpoint: str
    key: SecretStr | None = None
    database: str = "agent_memory"
    container_prefix: str = ""
    vector_index: VectorIndexType = "quantizedFlat"
    max_throughput: int | None = Field(default=None, ge=1000)
    turn_ttl_seconds: int | None = Field(default=None, gt=0)
    create_if_missing: bool = True

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in {"https", "http"} or not parts.hostname:
            raise ValueError(f"not an account endpoint: {value!r} (expected https://host[:port]/)")
        return value if value.endswith("/") else value + "/"

    @field_validator("database", "container_prefix")
    @classmethod
    def _name(cls, value: str, info) -> str:
        if any(c in value for c in "/\\?#") or value != value.strip():
            raise ValueError(f"{info.field_name} {value!r} may not hold / \\ ? # or surrounding "
                             "spaces")
        if info.field_name == "database" and not value:
            raise ValueError("database must not be empty")
        return value

    def container(self, name: str) -> str:
        """The full name of a container of the layout (``records``, ``jobs``, ``leases``)."""
        return f"{self.container_prefix}{name}"

    @property
    def uses_key(self) -> bool:
        """Whether the store signs requests with the account key (else Entra ID)."""
        return self.key is not None

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str] | None = None) -> CosmosSettings:
        """Parse ``cosmos://host[:port][/database]?key=...&prefix=...``.

        ``cosmos:/host`` (one slash, as a file path normalises the URL) is accepted too.

        Args:
            url: the store URL.
            environ: where ``AGENT_MEMORY_COSMOS_KEY`` / ``COSMOS_KEY`` are read (default:
                the process environment).

        Raises:
            ConfigError: not a Cosmos URL (``cosmos:x`` without ``//`` included), no host,
                an unknown query parameter or a bad value
                (the message never contains the key).
        """
        scheme, sep, rest = url.partition(":")
        if not sep or scheme.lower() not in SCHEMES:
            raise ConfigError(f"not a Cosmos DB store URL (expected cosmos://host): "
                              f"{scheme}:...")
        if not rest.startswith("/"):  # "cosmos:x" is neither a URL nor a path: no guessing
            raise ConfigError(f"not a Cosmos DB store URL (expected cosmos://host): "
                              f"{scheme}:{rest[:40]}")
        http = "http" if scheme.lower() == "cosmos+http" else "https"
        rest = "//" + rest.lstrip("/")
        parts = urlsplit(rest)
        if not parts.hostname:
            raise ConfigError("the Cosmos DB store URL names no host (cosmos://host[:port])")
        try:
            port = parts.port
        except ValueError as exc:
            raise ConfigError(f"the Cosmos DB store URL has a bad port: {exc}") from None
        # Not parse_qs: it reads "+" as a space, and account keys are base64 ("+", "/").
        query: dict[str, list[str]] = {}
        for pair in filter(None, parts.query.split("&")):
            name, _, value = pair.partition("=")
            query.setdefault(unquote(name), []).append(unquote(value))
        unknown = sorted(set(query) - _QUERY_FIELDS)
        if unknown:
            raise ConfigError(f"unknown Cosmos DB store option(s) {', '.join(unknown)}; "
                              f"known: {', '.join(sorted(_QUERY_FIELDS))}")
        one = {name: values[-1] for name, values in query.items()}
        env = os.environ if environ is None else environ
        key = one.get("key") or next((env[v] for v in KEY_VARIABLES if env.get(v)), None)
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        fields: dict[str, object] = {
            "endpoint": f"{http}://{host}{f':{port}' if port else ''}/",
            "key": key,
        }
        database = unquote(parts.path.strip("/"))
        if database:
            fields["database"] = database
        if "prefix" in one:
            fields["container_prefix"] = one["prefix"]
        if "vector_index" in one:
            fields["vector_index"] = one["vector_index"]
        if one.get("max_throughput"):
            fields["max_throughput"] = one["max_throughput"]
        if one.get("turn_ttl"):
            fields["turn_ttl_seconds"] = one["turn_ttl"]
        if "create" in one:
            if one["create"].lower() not in {"true", "false", "1", "0"}:
                raise ConfigError(f"create must be true or false, not {one['create']!r}")
            fields["create_if_missing"] = one["create"].lower() in {"true", "1"}
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors(include_input=False))
            raise ConfigError(f"bad Cosmos DB store URL: {problems}") from None

    def describe(self) -> str:
        """The settings for logs and messages, without the key."""
        auth = "account key" if self.uses_key else "Microsoft Entra ID"
        return (f"{self.endpoint} database {self.database!r} prefix "
                f"{self.container_prefix!r} ({auth})")


def is_cosmos_url(spec: str) -> bool:
    """Whether a store spec names a Cosmos DB store (by its scheme)."""
    scheme, sep, _ = spec.partition(":")
    return bool(sep) and scheme.lower() in SCHEMES

"""The Cosmos DB account behind a store: client, containers, embedding spec, request charges.

:class:`CosmosAccount` connects (the store URL's key, a given ``TokenCredential`` or
``DefaultAzureCredential``), creates the layout when allowed (:mod:`.layout`), records or
checks the embedding spec in the ``meta`` document, hands out the ``records``, ``jobs`` and
``leases`` containers, runs partition-scoped queries with errors translated (:mod:`.errors`)
and tallies every response's request charge per operation (:mod:`.charges`). The store's
writes (:mod:`.writer`), reads and searches (:mod:`.store`) all go through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...errors import EmbeddingMismatchError, NotAStoreError, RecordNotFoundError, StoreError
from ..base import EmbeddingSpec, RecordQuery
from .charges import ChargeTally
from .errors import status_of, translated
from .layout import RECORDS, ensure_layout
from .query import where_clause
from .settings import CosmosSettings

META_PARTITION = "__meta__"
"""Partition key value of the store's ``meta`` document (the embedding spec)."""
META_ID = "embedding"
SCHEMA_VERSION = 1
_META_SQL = "SELECT * FROM c WHERE c.user_id = @user_id AND c.id = @id"
_META_PARAMS = [{"name": "@user_id", "value": META_PARTITION}, {"name": "@id", "value": META_ID}]


def response_hook(charge: Callable[[Mapping[str, Any] | None], Any]) -> Callable[..., None]:
    """An SDK ``response_hook`` passing each response's headers to ``charge``."""
    def on_response(headers: Mapping[str, Any] | None = None, *_: Any) -> None:
        charge(headers)
    return on_response


class CosmosAccount:
    """The connection of one store.

    Args:
        settings: the account, database, prefix and layout options.
        credential: an azure ``TokenCredential`` to use instead of the key or
            ``DefaultAzureCredential``.

    Attributes:
        charges: request units per operation (:class:`.charges.ChargeTally`).
        spec: the embedding spec recorded in the store, ``None`` while closed.
    """

    def __init__(self, settings: CosmosSettings, credential: Any = None) -> None:
        self.settings = settings
        self.credential = credential
        self.charges = ChargeTally()
        self.spec: EmbeddingSpec | None = None
        self._owned_credential: Any = None
        self._client: Any = None
        self._container: Any = None
        self._side: dict[str, Any] = {}
        self._lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    def _credential(self) -> tuple[Any, Any]:
        """The credential to connect with, and the one made here (to close), if any."""
        credential = self.credential
        if credential is None and self.settings.key is not None:
            credential = self.settings.key.get_secret_value()
        if credential is not None:
            return credential, None
        from azure.identity.aio import DefaultAzureCredential

        made = DefaultAzureCredential()
        return made, made

    async def open(self, embedding: EmbeddingSpec) -> None:
        """Connect, create the layout when missing (``create_if_missing``) and record or check
        the embedding spec (see :meth:`.store.CosmosStore.open`)."""
        async with self._lock:
            if self._container is not None:
                self.check_spec(self.spec, embedding)
                return
            from azure.cosmos.aio import CosmosClient

            credential, self._owned_credential = self._credential()
            client = CosmosClient(self.settings.endpoint, credential=credential)
            try:
                if self.settings.create_if_missing:
                    await ensure_layout(client, self.settings, embedding)
                self._client, self._container = client, self._records_of(client)
                self.spec = await self._record_embedding(embedding)
            except BaseException:
                self._client = self._container = None
                await client.close()
                await self._close_credential()
                raise

    def _records_of(self, client: Any) -> Any:
        return client.get_database_client(self.settings.database) \
            .get_container_client(self.settings.container(RECORDS))

    async def _record_embedding(self, embedding: EmbeddingSpec) -> EmbeddingSpec:
        for _ in range(2):
            try:
                found = await self.query("open", _META_SQL, list(_META_PARAMS), META_PARTITION)
            except RecordNotFoundError as exc:
                raise NotAStoreError(
                    f"no records container {self.settings.container(RECORDS)!r} in database "
                    f"{self.settings.database!r} ({self.settings.endpoint}); run "
                    "`agent-memory setup cosmos` or allow create_if_missing") from exc
            if found:
                stored = EmbeddingSpec(model=found[0]["model"], dim=int(found[0]["dim"]))
                self.check_spec(stored, embedding)
                return stored
            meta = {"id": META_ID, "user_id": META_PARTITION, "kind": "__meta__",
                    "model": embedding.model, "dim": embedding.dim,
                    "schema_version": SCHEMA_VERSION, "position": f"id:{META_ID}"}
            try:
                with translated("open"):
                    await self._container.create_item(meta, response_hook=self.hook("open"))
                return embedding
            except StoreError as exc:
                if status_of(exc.__cause__) != 409:  # type: ignore[arg-type]
                    raise
        raise StoreError("open: the meta document could not be read or written")

    def check_spec(self, stored: EmbeddingSpec | None, wanted: EmbeddingSpec) -> None:
        """Refuse a store built with another embedding model or dimension.

        Raises:
            EmbeddingMismatchError: ``stored`` is set and differs from ``wanted``.
        """
        if stored is not None and stored != wanted:
            raise EmbeddingMismatchError(
                f"{self.settings.describe()} was built with {stored.model} ({stored.dim} dims), "
                f"not {wanted.model} ({wanted.dim} dims); use the same embedder or another "
                "database/prefix")

    async def close(self) -> None:
        """Close the client (and the credential made here). Safe to call twice."""
        client, self._client, self._container = self._client, None, None
        self._side = {}
        if client is not None:
            await client.close()
        await self._close_credential()

    async def _close_credential(self) -> None:
        credential, self._owned_credential = self._owned_credential, None
        if credential is not None:
            await credential.close()

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The spec in the ``meta`` document, read without creating anything (see
        :meth:`.store.CosmosStore.recorded_embedding`)."""
        if self._container is not None:
            return self.spec
        from azure.cosmos.aio import CosmosClient

        credential, owned = self._credential()
        try:
            async with CosmosClient(self.settings.endpoint, credential=credential) as client:
                try:
                    with translated("recorded_embedding"):
                        found = [doc async for doc in self._records_of(client).query_items(
                            _META_SQL, parameters=list(_META_PARAMS),
                            partition_key=META_PARTITION,
                            response_hook=self.hook("recorded_embedding"))]
                except RecordNotFoundError:
                    return None
        finally:
            if owned is not None:
                await owned.close()
        return EmbeddingSpec(model=found[0]["model"], dim=int(found[0]["dim"])) if found else None

    # -- containers and requests -----------------------------------------------------------

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding spec recorded in the store.

        Raises:
            StoreError: the store is not open.
        """
        self.require()
        assert self.spec is not None
        return self.spec

    def require(self) -> Any:
        """The ``records`` container.

        Raises:
            StoreError: the store is not open.
        """
        if self._container is None:
            raise StoreError(f"store {self.settings.describe()} is not open; call "
                             "`await store.open(spec)`")
        return self._container

    def side_container(self, name: str) -> Any:
        """Another container of the store's database (``jobs``, ``leases``).

        Raises:
            StoreError: the store is not open.
        """
        self.require()
        if name not in self._side:
            self._side[name] = self._client.get_database_client(self.settings.database) \
                .get_container_client(self.settings.container(name))
        return self._side[name]

    def hook(self, operation: str) -> Callable[..., None]:
        """A ``response_hook`` adding each response's charge to ``operation``."""
        return response_hook(lambda headers: self.charges.add(operation, headers))

    def charge_to(self, operation: str) -> Callable[[Mapping[str, Any]], None]:
        """A callable adding one response's charge (its headers) to ``operation``."""
        def charge(headers: Mapping[str, Any]) -> None:
            self.charges.add(operation, headers)
        return charge

    async def query(self, operation: str, sql: str, params: list[dict[str, Any]],
                    partition: str) -> list[Any]:
        """Every result of ``sql`` in one partition, errors translated for ``operation``.

        Raises:
            StoreError: the store is not open or the account failed.
        """
        container = self.require()
        with translated(operation):
            items = container.query_items(sql, parameters=params, partition_key=partition,
                                          response_hook=self.hook(operation))
            return [doc async for doc in items]

    async def docs(self, user_id: str, ids: Sequence[str],
                   operation: str = "get") -> list[dict[str, Any]]:
        """The user's documents with these ids (superseded included; one query)."""
        where, params = where_clause(user_id, RecordQuery(ids=frozenset(ids),
                                                          include_superseded=True))
        return await self.query(operation, f"SELECT * FROM c WHERE {where}", params, user_id)

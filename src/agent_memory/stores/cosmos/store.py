"""The Azure Cosmos DB for NoSQL store: :class:`CosmosStore`.

Layout and policies in :mod:`.layout`, documents in :mod:`.documents`, filters in
:mod:`.query`, batches and turn order in :mod:`.writes`, search in :mod:`.search`, error
translation in :mod:`.errors`, request charges in :mod:`.charges`.

Every call is asynchronous I/O on the SDK's aiohttp client (nothing blocks the event loop);
every query passes the user's partition key and names ``c.user_id`` in its ``WHERE``. Writes
are conditional on ``_etag`` (``If-Match``) and atomic per transactional batch (one user's
partition, at most 100 operations). Aggregations Cosmos DB SQL lacks or the test server does
not run (``DISTINCT`` of speakers) are done here over a projection of the few fields needed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    NotAStoreError,
    RecordNotFoundError,
    StoreError,
)
from ...models import MemoryRecord, RecordKind, Turn, as_utc, require_scope
from ..base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored
from ..conditional import backoff
from ..paging import DEFAULT_PAGE_SIZE, MAX_SEQ, Page, load_cursor
from ..search import SearchHit, StoreSearch
from . import search as cosmos_search
from .charges import Charge, ChargeTally
from .documents import check_vector, timestamp, to_document, to_record
from .errors import status_of, translate, translated
from .export import distinct_users, in_order
from .layout import JOBS, LEASES, RECORDS, ensure_layout
from .query import after_clause, count_sql, list_sql, where_clause
from .settings import CosmosSettings
from .writes import MAX_BATCH, chunks, conflict_for, plan, sequence_id

META_PARTITION = "__meta__"
"""Partition key value of the store's ``meta`` document (the embedding spec)."""
META_ID = "embedding"
SCHEMA_VERSION = 1
MAX_ATTEMPTS = 20
"""Batches retried after losing a thread's next ``seq`` to a concurrent writer."""


def _hook(charge: Callable[[Mapping[str, Any] | None], float]) -> Callable[..., None]:
    def on_response(headers: Mapping[str, Any] | None = None, *_: Any) -> None:
        charge(headers)
    return on_response


class CosmosStore(MemoryStore):
    """A :class:`MemoryStore` in an Azure Cosmos DB for NoSQL account.

    Args:
        settings: the account, database, prefix and layout options, or a store URL
            (``cosmos://host[:port][/database]?key=...``, see :mod:`.settings`).
        credential: an azure ``TokenCredential`` to use instead of the key or
            ``DefaultAzureCredential``.

    Raises:
        ConfigError: the URL is malformed.

    Collections (``Capability.COLLECTIONS``) are not declared: agent-to-collection bindings
    are not stored in Cosmos DB yet. The job queue (:mod:`.jobs`) lives in the ``jobs``
    container and the change-feed continuation (:mod:`.changefeed`) in ``leases``.
    """

    capabilities = frozenset({Capability.VECTOR_SEARCH, Capability.FULL_TEXT_SEARCH,
                              Capability.PERSISTENT, Capability.JOB_QUEUE, Capability.EXPORT})

    def __init__(self, settings: CosmosSettings | str, *, credential: Any = None) -> None:
        self.settings = (CosmosSettings.from_url(settings) if isinstance(settings, str)
                         else settings)
        self._credential = credential
        self._owned_credential: Any = None
        self._client: Any = None
        self._container: Any = None
        self._side: dict[str, Any] = {}
        self._spec: EmbeddingSpec | None = None
        self._charges = ChargeTally()
        self._lock = asyncio.Lock()
        self._appenders: weakref.WeakValueDictionary[str, asyncio.Lock] = \
            weakref.WeakValueDictionary()

    def __repr__(self) -> str:
        return f"CosmosStore({self.settings.describe()})"

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self, embedding: EmbeddingSpec) -> None:
        """Connect, create the database and containers when missing (``create_if_missing``),
        and record or check the embedding spec in the ``meta`` document.

        Raises:
            EmbeddingMismatchError: the store was built with another model or dimension.
            SchemaVersionError: never yet (schema version 1).
            NotAStoreError: the records container is missing and may not be created.
            CosmosAuthError: the account refused the credentials.
            StoreError: the account failed.
        """
        async with self._lock:
            if self._container is not None:
                self._check(self._spec, embedding)
                return
            from azure.cosmos.aio import CosmosClient

            credential = self._credential
            if credential is None and self.settings.key is not None:
                credential = self.settings.key.get_secret_value()
            if credential is None:
                from azure.identity.aio import DefaultAzureCredential

                credential = self._owned_credential = DefaultAzureCredential()
            client = CosmosClient(self.settings.endpoint, credential=credential)
            try:
                if self.settings.create_if_missing:
                    await ensure_layout(client, self.settings, embedding)
                container = client.get_database_client(self.settings.database) \
                    .get_container_client(self.settings.container(RECORDS))
                self._client, self._container = client, container
                self._spec = await self._record_embedding(embedding)
            except BaseException:
                self._client = self._container = None
                await client.close()
                await self._close_credential()
                raise

    async def _record_embedding(self, embedding: EmbeddingSpec) -> EmbeddingSpec:
        sql = "SELECT * FROM c WHERE c.user_id = @user_id AND c.id = @id"
        params = [{"name": "@user_id", "value": META_PARTITION}, {"name": "@id", "value": META_ID}]
        for _ in range(2):
            try:
                found = await self._query("open", sql, params, META_PARTITION)
            except RecordNotFoundError as exc:
                raise NotAStoreError(
                    f"no records container {self.settings.container(RECORDS)!r} in database "
                    f"{self.settings.database!r} ({self.settings.endpoint}); run "
                    "`agent-memory setup cosmos` or allow create_if_missing") from exc
            if found:
                stored = EmbeddingSpec(model=found[0]["model"], dim=int(found[0]["dim"]))
                self._check(stored, embedding)
                return stored
            meta = {"id": META_ID, "user_id": META_PARTITION, "kind": "__meta__",
                    "model": embedding.model, "dim": embedding.dim,
                    "schema_version": SCHEMA_VERSION, "position": f"id:{META_ID}"}
            try:
                with translated("open"):
                    await self._container.create_item(meta, response_hook=self._hook("open"))
                return embedding
            except StoreError as exc:
                if status_of(exc.__cause__) != 409:  # type: ignore[arg-type]
                    raise
        raise StoreError("open: the meta document could not be read or written")

    def _check(self, stored: EmbeddingSpec | None, wanted: EmbeddingSpec) -> None:
        if stored is not None and stored != wanted:
            raise EmbeddingMismatchError(
                f"{self.settings.describe()} was built with {stored.model} ({stored.dim} dims), "
                f"not {wanted.model} ({wanted.dim} dims); use the same embedder or another "
                "database/prefix")

    async def close(self) -> None:
        """Close the client (and the Entra ID credential the store made). Safe to call
        twice."""
        client, self._client, self._container = self._client, None, None
        self._side = {}
        if client is not None:
            await client.close()
        await self._close_credential()

    async def _close_credential(self) -> None:
        credential, self._owned_credential = self._owned_credential, None
        if credential is not None:
            await credential.close()

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding spec recorded in the store.

        Raises:
            StoreError: the store is not open.
        """
        self._require()
        assert self._spec is not None
        return self._spec

    @property
    def request_charges(self) -> dict[str, Charge]:
        """Request units consumed so far, per operation (``put``, ``list``, ...)."""
        return self._charges.snapshot()

    @property
    def records_container(self) -> Any:
        """The ``records`` container (``azure.cosmos.aio`` ContainerProxy) of the open store."""
        return self._require()

    @property
    def jobs_container(self) -> Any:
        """The ``jobs`` container: counters, step watermarks and jobs (:mod:`.jobs`)."""
        return self._side_container(JOBS)

    @property
    def leases_container(self) -> Any:
        """The ``leases`` container: the change feed's continuation (:mod:`.changefeed`)."""
        return self._side_container(LEASES)

    def charge(self, headers: Mapping[str, Any]) -> None:
        """Add one response's request charge (``x-ms-request-charge``) to the ``jobs`` tally."""
        self._charges.add("jobs", headers)

    def job_queue(self) -> Any:
        """The durable job queue beside the records (:class:`.jobs.CosmosJobQueue`).

        Raises:
            StoreError: the store is not open.
        """
        from .jobs import job_queue_for

        return job_queue_for(self)

    def _side_container(self, name: str) -> Any:
        self._require()
        if name not in self._side:
            self._side[name] = self._client.get_database_client(self.settings.database) \
                .get_container_client(self.settings.container(name))
        return self._side[name]

    def _require(self) -> Any:
        if self._container is None:
            raise StoreError(f"store {self.settings.describe()} is not open; call "
                             "`await store.open(spec)`")
        return self._container

    def _hook(self, operation: str) -> Callable[..., None]:
        return _hook(lambda headers: self._charges.add(operation, headers))

    async def _query(self, operation: str, sql: str, params: list[dict[str, Any]],
                     partition: str) -> list[Any]:
        container = self._require()
        with translated(operation):
            items = container.query_items(sql, parameters=params, partition_key=partition,
                                          response_hook=self._hook(operation))
            return [doc async for doc in items]

    # -- writes ----------------------------------------------------------------------------

    async def put(self, items: Sequence[Indexed], *, overwrite: bool = False
                  ) -> list[MemoryRecord]:
        """Write records with their index text and vectors, in transactional batches per user
        (see :mod:`.writes`); a turn with ``seq < 0`` gets its thread's next ``seq``.

        Returns:
            The records as stored (new ``etag``, assigned ``seq``), in the order of ``items``.

        Raises:
            ConflictError: a version differs, a record to create exists, or a turn's explicit
                ``seq`` is taken; nothing of that batch is written.
            DimensionMismatchError: a vector's length is not the store's dimension.
            InvalidInputError: an item is not :class:`Indexed`, has a blank id, a NaN vector or
                text that cannot be encoded; nothing is written.
            ThrottledError / StoreError: the account failed.
        """
        dim = self.embedding.dim
        ttl = self.settings.turn_ttl_seconds
        by_user: dict[str, list[tuple[int, Indexed, dict[str, Any]]]] = {}
        for index, item in enumerate(items):
            if not isinstance(item, Indexed) or not isinstance(item.record, MemoryRecord):
                raise InvalidInputError(f"put expects Indexed items, got {type(item).__name__}")
            if not item.record.id or not item.record.id.strip():
                raise InvalidInputError("record id must not be blank")
            by_user.setdefault(item.record.user_id, []).append(
                (index, item, to_document(item, dim, ttl)))
        out: list[MemoryRecord | None] = [None] * len(items)
        for user_id, entries in by_user.items():
            pairs = [(item, doc) for _, item, doc in entries]
            written: list[MemoryRecord] = []
            for chunk in chunks(pairs):
                written += await self._put_chunk(user_id, chunk, overwrite)
            for (index, _, _), record in zip(entries, written, strict=True):
                out[index] = record
        return [r for r in out if r is not None]

    async def _put_chunk(self, user_id: str, chunk: list[tuple[Indexed, dict[str, Any]]],
                         overwrite: bool) -> list[MemoryRecord]:

        threads = sorted({sequence_id(i.record.thread_id) for i, _ in chunk
                          if isinstance(i.record, Turn)})
        if not threads:
            return await self._write_chunk(user_id, chunk, overwrite, threads)
        # Writers of one client append to a user's threads in turn: they would only race
        # for the same next seq; the sequence documents' versions order clients.
        lock = self._appenders.get(user_id)
        if lock is None:
            lock = self._appenders[user_id] = asyncio.Lock()
        async with lock:
            return await self._write_chunk(user_id, chunk, overwrite, threads)

    async def _write_chunk(self, user_id: str, chunk: list[tuple[Indexed, dict[str, Any]]],
                           overwrite: bool, threads: list[str]) -> list[MemoryRecord]:
        from azure.cosmos.exceptions import CosmosBatchOperationError

        ids = [i.record.id for i, _ in chunk]
        for attempt in range(MAX_ATTEMPTS):
            sequences = {}
            if threads:
                found = await self._query(
                    "put", "SELECT * FROM c WHERE c.user_id = @user_id AND "
                    "ARRAY_CONTAINS(@ids, c.id)",
                    [{"name": "@user_id", "value": user_id}, {"name": "@ids", "value": threads}],
                    user_id)
                sequences = {doc["id"]: doc for doc in found}
            planned = plan(user_id, chunk, sequences, overwrite=overwrite)
            try:
                results = await self._require().execute_item_batch(
                    planned.operations, partition_key=user_id, response_hook=self._hook("put"))
            except CosmosBatchOperationError as exc:
                index = exc.error_index or 0
                conflict = conflict_for(planned, index, exc.status_code)
                if exc.status_code in (409, 412, 404) and conflict is not None:
                    raise conflict from exc
                if exc.status_code in (409, 412):  # a sequence document moved: retry
                    await backoff(attempt)
                    continue
                raise translate(exc, "put", ids) from exc
            except Exception as exc:
                mapped = translate(exc, "put", ids)
                if mapped is exc:
                    raise
                raise mapped from exc
            return [record.model_copy(update={"etag": result.get("eTag")
                                              or (result.get("resourceBody") or {}).get("_etag")})
                    for record, result in zip(planned.records, results[planned.sequences:],
                                              strict=True)]
        raise StoreError(f"put: turns of user {user_id!r} kept losing their thread's next seq "
                         f"to concurrent writers; gave up after {MAX_ATTEMPTS} attempts")

    async def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents of existing records, keeping their index text and vectors,
        each conditional on the record's ``etag``; atomic per batch of one user's records.

        Raises:
            ConflictError: a stored version differs; nothing of that batch is written.
            RecordNotFoundError: a record no longer exists (deleted since it was read);
                nothing of that batch is written.
            InvalidInputError: a record has no ``etag``.
        """
        for record in records:
            if not isinstance(record, MemoryRecord):
                raise InvalidInputError(f"update expects records, got {type(record).__name__}")
            if record.etag is None:
                raise InvalidInputError(f"record {record.id!r} has no etag: update writes back "
                                        "records read from the store")
        by_user: dict[str, list[MemoryRecord]] = {}
        for record in records:
            by_user.setdefault(record.user_id, []).append(record)
        out: dict[tuple[str, str], MemoryRecord] = {}
        for user_id, mine in by_user.items():
            for start in range(0, len(mine), MAX_BATCH):
                for record in await self._update_chunk(user_id, mine[start:start + MAX_BATCH]):
                    out[(record.user_id, record.id)] = record
        return [out[key] for r in records if (key := (r.user_id, r.id)) in out]

    async def _update_chunk(self, user_id: str, records: list[MemoryRecord]
                            ) -> list[MemoryRecord]:
        from azure.cosmos.exceptions import CosmosBatchOperationError

        from ...errors import ConflictError

        for attempt in range(MAX_ATTEMPTS):
            stored = {doc["id"]: doc for doc in await self._docs(user_id, [r.id for r in records])}
            gone = [r.id for r in records if r.id not in stored]
            if gone:
                raise RecordNotFoundError(f"record {gone[0]!r} of user {user_id!r} no longer "
                                          "exists (deleted since it was read); nothing was "
                                          "updated")
            present = records
            operations = []
            for record in present:
                old = stored[record.id]
                if old.get("_etag") != record.etag:
                    raise ConflictError(f"record {record.id!r} changed since it was read; read "
                                        "it again and re-apply the change", [record.id])
                doc = to_document(Indexed(record, text=old.get("text", "")), 1,
                                  old.get("ttl"))
                for key, value in old.items():  # keep vectors and search fields
                    if key.startswith("embedding") or key in ("embedded", "ttl"):
                        doc[key] = value
                operations.append(("replace", (record.id, doc), {"if_match_etag": record.etag}))
            try:
                results = await self._require().execute_item_batch(
                    operations, partition_key=user_id, response_hook=self._hook("update"))
            except CosmosBatchOperationError as exc:
                index = exc.error_index or 0
                if exc.status_code == 404:  # deleted meanwhile: skipped on the next read
                    await backoff(attempt)
                    continue
                if exc.status_code == 412:
                    rid = present[index].id
                    raise ConflictError(f"record {rid!r} changed since it was read; read it "
                                        "again and re-apply the change", [rid]) from exc
                raise translate(exc, "update", [r.id for r in present]) from exc
            except Exception as exc:
                mapped = translate(exc, "update", [r.id for r in present])
                if mapped is exc:
                    raise
                raise mapped from exc
            return [r.model_copy(update={"etag": res.get("eTag")
                                         or (res.get("resourceBody") or {}).get("_etag")})
                    for r, res in zip(present, results, strict=False)]
        raise StoreError(f"update: records of user {user_id!r} kept disappearing; gave up")

    async def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact or insight in ``ids`` with a patch (``incr`` of
        ``access_count``, ``set`` of ``last_accessed_at``) conditional on the kind, so
        concurrent recalls never lose one.

        Returns:
            How many records were touched (other kinds and unknown ids are skipped).
        """
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        where, params = where_clause(user_id, RecordQuery(
            ids=frozenset(wanted), kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT}),
            include_superseded=True))
        found = await self._query("touch", f"SELECT c.id FROM c WHERE {where}", params, user_id)
        when = as_utc(at).isoformat().replace("+00:00", "Z")
        operations = [{"op": "incr", "path": "/access_count", "value": 1},
                      {"op": "set", "path": "/last_accessed_at", "value": when}]
        done = 0
        for doc in found:
            try:
                with translated("touch", [doc["id"]]):
                    await self._require().patch_item(
                        doc["id"], partition_key=user_id, patch_operations=operations,
                        filter_predicate="FROM c WHERE c.kind IN ('fact', 'insight')",
                        response_hook=self._hook("touch"))
            except RecordNotFoundError:
                continue  # deleted meanwhile
            done += 1
        return done

    async def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids (in batches of 100, each atomic).

        Returns:
            How many records were deleted (unknown ids and other users' count 0).
        """
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        where, params = where_clause(user_id, RecordQuery(ids=frozenset(wanted),
                                                          include_superseded=True))
        found = await self._query("delete", f"SELECT c.id FROM c WHERE {where}", params, user_id)
        return await self._delete_ids(user_id, [doc["id"] for doc in found])

    async def _delete_ids(self, user_id: str, ids: list[str]) -> int:
        from azure.cosmos.exceptions import CosmosBatchOperationError

        done = 0
        pending = list(ids)
        while pending:
            chunk, pending = pending[:MAX_BATCH], pending[MAX_BATCH:]
            try:
                await self._require().execute_item_batch(
                    [("delete", (rid,)) for rid in chunk], partition_key=user_id,
                    response_hook=self._hook("delete"))
                done += len(chunk)
            except CosmosBatchOperationError as exc:
                if exc.status_code != 404:
                    raise translate(exc, "delete", chunk) from exc
                gone = chunk[exc.error_index or 0]  # deleted meanwhile: the rest again
                pending = [rid for rid in chunk if rid != gone] + pending
            except Exception as exc:
                mapped = translate(exc, "delete", chunk)
                if mapped is exc:
                    raise
                raise mapped from exc
        return done

    async def purge(self, user_id: str, *, thread_id: str | None = None,
                    kinds: frozenset[RecordKind] | None = None,
                    before: datetime | None = None) -> dict[str, int]:
        """Hard-delete the user's records matching the filters (superseded included): one
        query of ids and kinds, then batches of 100 deletes (each atomic). A thread's turn
        sequence is dropped with its turns when the whole thread (or user) is purged, so its
        next turn gets ``seq`` 0 again.

        Returns:
            Records removed per kind.
        """
        user_id = require_scope(user_id)
        where, params = where_clause(user_id, RecordQuery(
            kinds=kinds, thread_id=thread_id, until=before, include_superseded=True))
        found = await self._query("purge", f"SELECT c.id, c.kind FROM c WHERE {where}",
                                  params, user_id)
        await self._delete_ids(user_id, [doc["id"] for doc in found])
        counts: dict[str, int] = {}
        for doc in found:
            counts[doc["kind"]] = counts.get(doc["kind"], 0) + 1
        if before is None and (kinds is None or RecordKind.TURN in kinds):
            sql = "SELECT c.id FROM c WHERE c.user_id = @user_id AND c.kind = 'sequence'"
            seq_params: list[dict[str, Any]] = [{"name": "@user_id", "value": user_id}]
            if thread_id is not None:
                sql += " AND c.id = @sid"
                seq_params.append({"name": "@sid", "value": sequence_id(thread_id)})
            sequences = await self._query("purge", sql, seq_params, user_id)
            await self._delete_ids(user_id, [doc["id"] for doc in sequences])
        return counts

    # -- reads -----------------------------------------------------------------------------

    async def _docs(self, user_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        where, params = where_clause(user_id, RecordQuery(ids=frozenset(ids),
                                                          include_superseded=True))
        return await self._query("get", f"SELECT * FROM c WHERE {where}", params, user_id)

    # -- export (copies between stores) --------------------------------------------------

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The embedding spec in the ``meta`` document, read without creating anything;
        ``None`` when the database, the records container or the document is missing.

        Raises:
            CosmosAuthError: the account refused the credentials. StoreError: it failed.
        """
        if self._container is not None:
            return self._spec
        from azure.cosmos.aio import CosmosClient

        credential, owned = self._credential, None
        if credential is None and self.settings.key is not None:
            credential = self.settings.key.get_secret_value()
        if credential is None:
            from azure.identity.aio import DefaultAzureCredential

            credential = owned = DefaultAzureCredential()
        sql = "SELECT * FROM c WHERE c.user_id = @user_id AND c.id = @id"
        params = [{"name": "@user_id", "value": META_PARTITION}, {"name": "@id", "value": META_ID}]
        try:
            async with CosmosClient(self.settings.endpoint, credential=credential) as client:
                container = client.get_database_client(self.settings.database) \
                    .get_container_client(self.settings.container(RECORDS))
                try:
                    with translated("recorded_embedding"):
                        found = [doc async for doc in container.query_items(
                            sql, parameters=params, partition_key=META_PARTITION,
                            response_hook=self._hook("recorded_embedding"))]
                except RecordNotFoundError:
                    return None
        finally:
            if owned is not None:
                await owned.close()
        return EmbeddingSpec(model=found[0]["model"], dim=int(found[0]["dim"])) if found else None

    async def users(self) -> list[str]:
        """Every user id with a record, sorted (a cross-partition read, :mod:`.export`)."""
        with translated("users"):
            return await distinct_users(self._require(), self._hook("users"))

    async def indexed(self, user_id: str, ids: Sequence[str]) -> list[Indexed]:
        """The user's records with these ids, with index text and vectors as written."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        return in_order(await self._docs(user_id, wanted), wanted)

    async def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids, in the order of ``ids`` (one query; missing
        and repeated ids skipped)."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        found = {doc["id"]: to_record(doc) for doc in await self._docs(user_id, wanted)}
        return [found[i] for i in wanted if i in found]

    async def list(self, user_id: str, query: RecordQuery) -> list[MemoryRecord]:
        """The user's records matching ``query`` by ``created_at``, ``seq``, id (``TOP`` for
        ``limit``)."""
        where, params = where_clause(require_scope(user_id), query)
        if query.limit is not None:
            params.append({"name": "@top", "value": query.limit})
        sql = list_sql(where, query.newest_first, query.limit)
        return [to_record(doc) for doc in await self._query("list", sql, params, user_id)]

    async def page(self, user_id: str, query: RecordQuery, cursor: str | None = None) -> Page:
        """Keyset paging in list order: ``TOP size+1`` after the cursor's position.

        Raises:
            InvalidInputError: a malformed cursor.
        """
        size = query.limit or DEFAULT_PAGE_SIZE
        where, params = where_clause(require_scope(user_id), query)
        if cursor:
            where += " AND " + after_clause(_decode(cursor), query.newest_first, params)
        params.append({"name": "@top", "value": size + 1})
        docs = await self._query("page", list_sql(where, query.newest_first, size + 1),
                                 params, user_id)
        records = [to_record(doc) for doc in docs[:size]]
        if len(docs) <= size:
            return Page(records, None)
        last = docs[size - 1]
        return Page(records, _encode((last["created_at"], int(last["order_seq"]), last["id"])))

    async def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``COUNT`` in the partition)."""
        where, params = where_clause(require_scope(user_id), query)
        found = await self._query("count", count_sql(where), params, user_id)
        return int(found[0]) if found else 0

    async def next_seq(self, user_id: str, thread_id: str) -> int:
        """The thread's next ``seq``, from its sequence document (0 when it has none)."""
        user_id = require_scope(user_id)
        found = await self._query(
            "next_seq", "SELECT c.next FROM c WHERE c.user_id = @user_id AND c.id = @sid",
            [{"name": "@user_id", "value": user_id},
             {"name": "@sid", "value": sequence_id(thread_id)}], user_id)
        return int(found[0]["next"]) if found else 0

    async def speakers(self, user_id: str) -> list[str]:
        """The distinct speaker names of the user's turns, sorted: a projection of the
        ``speaker`` field of every turn, made distinct here (the test server lacks
        ``DISTINCT``; the projection costs about 1 RU per 100 turns read)."""
        user_id = require_scope(user_id)
        found = await self._query(
            "speakers", "SELECT c.speaker FROM c WHERE c.user_id = @user_id AND "
            "c.kind = 'turn' AND IS_STRING(c.speaker)",
            [{"name": "@user_id", "value": user_id}], user_id)
        return sorted({s for doc in found if isinstance(s := doc.get("speaker"), str)
                       and s.strip()})

    # -- search ----------------------------------------------------------------------------

    def _charge(self, operation: str) -> Callable[[Mapping[str, Any]], None]:
        def charge(headers: Mapping[str, Any]) -> None:
            self._charges.add(operation, headers)
        return charge

    async def vector_search(self, user_id: str, vector: np.ndarray, query: RecordQuery, k: int,
                            fields: Sequence[str] = (CONTENT,)) -> list[Scored]:
        """Cosine KNN over the user's matching records (:mod:`.search`).

        Raises:
            DimensionMismatchError: ``vector`` is not of shape ``(dim,)``.
        """
        user_id = require_scope(user_id)
        q = np.asarray(check_vector(vector, self.embedding.dim, "query"), dtype=np.float32)
        if isinstance(fields, str):
            fields = (fields,)
        if k < 1:
            return []
        where, params = where_clause(user_id, query)
        with translated("vector_search"):
            return await cosmos_search.run_vector_search(
                self._require(), user_id, q, k, fields, where, params,
                self._charge("vector_search"), decode=to_record)

    async def text_search(self, user_id: str, text: str, query: RecordQuery, k: int
                          ) -> list[Scored]:
        """Full-text search over the user's matching records (:mod:`.search`)."""
        user_id = require_scope(user_id)
        if k < 1:
            return []
        where, params = where_clause(user_id, query)
        with translated("text_search"):
            return await cosmos_search.run_text_search(
                self._require(), user_id, text, k, where, params, self._charge("text_search"),
                decode=to_record)

    async def search(self, user_id: str, request: StoreSearch) -> list[SearchHit]:
        """Vector, full-text or hybrid search fused in one request (:mod:`.search`).

        Raises:
            DimensionMismatchError: the vector has the wrong length.
        """
        user_id = require_scope(user_id)
        if request.k < 1:
            return []
        where, params = where_clause(user_id, request.query)
        vector = request.vector
        if vector is not None and not hasattr(vector, "__await__"):
            check_vector(vector, self.embedding.dim, "query")
        with translated("search"):
            return await cosmos_search.run_search(self._require(), user_id, request, where,
                                                  params, self._charge("search"),
                                                  decode=to_record)


def _encode(position: tuple[str, int, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(position)).encode()).decode().rstrip("=")


def _decode(cursor: str) -> tuple[str, int, str]:
    """The position a page cursor names: ``(created_at as stored, order_seq, id)``.

    Raises:
        InvalidInputError: not a cursor of this store.
    """
    created, seq, rid = load_cursor(cursor)
    try:
        if (not isinstance(created, str) or not isinstance(rid, str) or isinstance(seq, bool)
                or not isinstance(seq, int) or not -1 <= seq <= MAX_SEQ):
            raise TypeError("cursor fields")
        timestamp(datetime.fromisoformat(created))
        rid.encode("utf-8")
        return created, seq, rid
    except (ValueError, TypeError, OverflowError, UnicodeEncodeError) as exc:
        raise InvalidInputError(f"not a page cursor: {cursor[:40]!r}") from exc


"""The Azure Cosmos DB for NoSQL store: :class:`CosmosStore`.

:class:`CosmosStore` is the :class:`~agent_memory.stores.base.MemoryStore` facade; its reads
are here, the rest has a module each: the client, containers, embedding spec and request
charges in :mod:`.account`; writes (put, update, touch, delete, purge) in :mod:`.writer`, with
batches and turn order planned in :mod:`.writes`; layout and policies in :mod:`.layout`,
documents in :mod:`.documents`, filters, page positions and query text in :mod:`.query`,
search in :mod:`.search`, error translation in :mod:`.errors`, request charges in
:mod:`.charges`.

Every call is asynchronous I/O on the SDK's aiohttp client (nothing blocks the event loop);
every query passes the user's partition key and names ``c.user_id`` in its ``WHERE``. Writes
are conditional on ``_etag`` (``If-Match``) and atomic per transactional batch (one user's
partition, at most 100 operations). Aggregations Cosmos DB SQL lacks or the test server does
not run (``DISTINCT`` of speakers) are done here over a projection of the few fields needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from ...models import MemoryRecord, RecordKind, require_scope
from ..base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery, Scored
from ..paging import DEFAULT_PAGE_SIZE, Page
from ..search import SearchHit, StoreSearch
from . import search as cosmos_search
from .account import META_ID, META_PARTITION, SCHEMA_VERSION, CosmosAccount
from .charges import Charge
from .documents import check_vector, to_record
from .errors import translated
from .export import distinct_users, in_order
from .layout import JOBS, LEASES
from .query import after_clause, count_sql, decode_position, encode_position, list_sql, where_clause
from .settings import CosmosSettings
from .writer import MAX_ATTEMPTS, CosmosWriter
from .writes import sequence_id

__all__ = ["MAX_ATTEMPTS", "META_ID", "META_PARTITION", "SCHEMA_VERSION", "CosmosStore"]


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
        self.account = CosmosAccount(self.settings, credential)
        self._writes = CosmosWriter(self.account)

    def __repr__(self) -> str:
        return f"CosmosStore({self.settings.describe()})"

    # -- lifecycle (:mod:`.account`) -------------------------------------------------------

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
        await self.account.open(embedding)

    async def close(self) -> None:
        """Close the client (and the Entra ID credential the store made). Safe to call
        twice."""
        await self.account.close()

    @property
    def embedding(self) -> EmbeddingSpec:
        """The embedding spec recorded in the store.

        Raises:
            StoreError: the store is not open.
        """
        return self.account.embedding

    @property
    def request_charges(self) -> dict[str, Charge]:
        """Request units consumed so far, per operation (``put``, ``list``, ...)."""
        return self.account.charges.snapshot()

    @property
    def records_container(self) -> Any:
        """The ``records`` container (``azure.cosmos.aio`` ContainerProxy) of the open store."""
        return self.account.require()

    @property
    def jobs_container(self) -> Any:
        """The ``jobs`` container: counters, step watermarks and jobs (:mod:`.jobs`)."""
        return self.account.side_container(JOBS)

    @property
    def leases_container(self) -> Any:
        """The ``leases`` container: the change feed's continuation (:mod:`.changefeed`)."""
        return self.account.side_container(LEASES)

    def charge(self, headers: Mapping[str, Any]) -> None:
        """Add one response's request charge (``x-ms-request-charge``) to the ``jobs`` tally."""
        self.account.charges.add("jobs", headers)

    def job_queue(self) -> Any:
        """The durable job queue beside the records (:class:`.jobs.CosmosJobQueue`).

        Raises:
            StoreError: the store is not open.
        """
        from .jobs import job_queue_for

        return job_queue_for(self)

    # -- writes (:mod:`.writer`) -----------------------------------------------------------

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
        return await self._writes.put(items, overwrite=overwrite)

    async def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents of existing records, keeping their index text and vectors,
        each conditional on the record's ``etag``; atomic per batch of one user's records.

        Raises:
            ConflictError: a stored version differs; nothing of that batch is written.
            RecordNotFoundError: a record no longer exists (deleted since it was read);
                nothing of that batch is written.
            InvalidInputError: a record has no ``etag``.
        """
        return await self._writes.update(records)

    async def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact or insight in ``ids`` with a patch (``incr`` of
        ``access_count``, ``set`` of ``last_accessed_at``) conditional on the kind, so
        concurrent recalls never lose one.

        Returns:
            How many records were touched (other kinds and unknown ids are skipped).
        """
        return await self._writes.touch(user_id, ids, at)

    async def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids (in batches of 100, each atomic).

        Returns:
            How many records were deleted (unknown ids and other users' count 0).
        """
        return await self._writes.delete(user_id, ids)

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
        return await self._writes.purge(user_id, thread_id=thread_id, kinds=kinds,
                                        before=before)

    # -- export (copies between stores) --------------------------------------------------

    async def recorded_embedding(self) -> EmbeddingSpec | None:
        """The embedding spec in the ``meta`` document, read without creating anything;
        ``None`` when the database, the records container or the document is missing.

        Raises:
            CosmosAuthError: the account refused the credentials. StoreError: it failed.
        """
        return await self.account.recorded_embedding()

    async def users(self) -> list[str]:
        """Every user id with a record, sorted (a cross-partition read, :mod:`.export`)."""
        with translated("users"):
            return await distinct_users(self.account.require(), self.account.hook("users"))

    async def indexed(self, user_id: str, ids: Sequence[str]) -> list[Indexed]:
        """The user's records with these ids, with index text and vectors as written."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        return in_order(await self.account.docs(user_id, wanted), wanted)

    async def get(self, user_id: str, ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids, in the order of ``ids`` (one query; missing
        and repeated ids skipped)."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        found = {doc["id"]: to_record(doc) for doc in await self.account.docs(user_id, wanted)}
        return [found[i] for i in wanted if i in found]

    async def list(self, user_id: str, query: RecordQuery) -> list[MemoryRecord]:
        """The user's records matching ``query`` by ``created_at``, ``seq``, id (``TOP`` for
        ``limit``)."""
        where, params = where_clause(require_scope(user_id), query)
        if query.limit is not None:
            params.append({"name": "@top", "value": query.limit})
        sql = list_sql(where, query.newest_first, query.limit)
        return [to_record(doc) for doc in await self.account.query("list", sql, params, user_id)]

    async def page(self, user_id: str, query: RecordQuery, cursor: str | None = None) -> Page:
        """Keyset paging in list order: ``TOP size+1`` after the cursor's position.

        Raises:
            InvalidInputError: a malformed cursor.
        """
        size = query.limit or DEFAULT_PAGE_SIZE
        where, params = where_clause(require_scope(user_id), query)
        if cursor:
            where += " AND " + after_clause(decode_position(cursor), query.newest_first, params)
        params.append({"name": "@top", "value": size + 1})
        docs = await self.account.query("page", list_sql(where, query.newest_first, size + 1),
                                 params, user_id)
        records = [to_record(doc) for doc in docs[:size]]
        if len(docs) <= size:
            return Page(records, None)
        last = docs[size - 1]
        return Page(records, encode_position((last["created_at"], int(last["order_seq"]), last["id"])))

    async def count(self, user_id: str, query: RecordQuery) -> int:
        """Number of the user's records matching ``query`` (``COUNT`` in the partition)."""
        where, params = where_clause(require_scope(user_id), query)
        found = await self.account.query("count", count_sql(where), params, user_id)
        return int(found[0]) if found else 0

    async def next_seq(self, user_id: str, thread_id: str) -> int:
        """The thread's next ``seq``, from its sequence document (0 when it has none)."""
        user_id = require_scope(user_id)
        found = await self.account.query(
            "next_seq", "SELECT c.next FROM c WHERE c.user_id = @user_id AND c.id = @sid",
            [{"name": "@user_id", "value": user_id},
             {"name": "@sid", "value": sequence_id(thread_id)}], user_id)
        return int(found[0]["next"]) if found else 0

    async def speakers(self, user_id: str) -> list[str]:
        """The distinct speaker names of the user's turns, sorted: a projection of the
        ``speaker`` field of every turn, made distinct here (the test server lacks
        ``DISTINCT``; the projection costs about 1 RU per 100 turns read)."""
        user_id = require_scope(user_id)
        found = await self.account.query(
            "speakers", "SELECT c.speaker FROM c WHERE c.user_id = @user_id AND "
            "c.kind = 'turn' AND IS_STRING(c.speaker)",
            [{"name": "@user_id", "value": user_id}], user_id)
        return sorted({s for doc in found if isinstance(s := doc.get("speaker"), str)
                       and s.strip()})

    # -- search ----------------------------------------------------------------------------

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
                self.account.require(), user_id, q, k, fields, where, params,
                self.account.charge_to("vector_search"), decode=to_record)

    async def text_search(self, user_id: str, text: str, query: RecordQuery, k: int
                          ) -> list[Scored]:
        """Full-text search over the user's matching records (:mod:`.search`)."""
        user_id = require_scope(user_id)
        if k < 1:
            return []
        where, params = where_clause(user_id, query)
        with translated("text_search"):
            return await cosmos_search.run_text_search(
                self.account.require(), user_id, text, k, where, params, self.account.charge_to("text_search"),
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
            return await cosmos_search.run_search(self.account.require(), user_id, request, where,
                                                  params, self.account.charge_to("search"),
                                                  decode=to_record)


"""Record writes of the Cosmos DB store: put, update, touch, delete and purge.

:class:`CosmosWriter` runs the batches :mod:`.writes` plans: per user, transactional batches
(``execute_item_batch``) of at most :data:`.writes.MAX_BATCH` operations, each applied whole
or not at all and conditional on ``_etag``. A batch that lost its thread's next ``seq`` to a
concurrent writer (its sequence document moved: 409/412) is re-read and retried with backoff
(:func:`..conditional.backoff`), at most :data:`MAX_ATTEMPTS` times; a record that changed or
vanished since it was read raises instead. Within one store object, writers of one user's
threads take turns (one ``asyncio.Lock`` per user), so they do not race for the same ``seq``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...errors import ConflictError, InvalidInputError, RecordNotFoundError, StoreError
from ...models import MemoryRecord, RecordKind, Turn, as_utc, require_scope
from ..base import Indexed, RecordQuery
from ..conditional import backoff
from .account import CosmosAccount
from .documents import to_document
from .errors import translate, translated
from .query import where_clause
from .writes import MAX_BATCH, chunks, conflict_for, plan, sequence_id

MAX_ATTEMPTS = 20
"""Batches retried after losing a thread's next ``seq`` to a concurrent writer."""

Entry = tuple[Indexed, dict[str, Any]]
"""An item to put and its document."""


def _etag_of(result: dict[str, Any]) -> Any:
    return result.get("eTag") or (result.get("resourceBody") or {}).get("_etag")


class CosmosWriter:
    """The write side of one store.

    Args:
        account: the store's connection.
    """

    def __init__(self, account: CosmosAccount) -> None:
        self.account = account
        self._appenders: weakref.WeakValueDictionary[str, asyncio.Lock] = \
            weakref.WeakValueDictionary()

    async def put(self, items: Sequence[Indexed], *, overwrite: bool = False
                  ) -> list[MemoryRecord]:
        """Write records with their index text and vectors (see
        :meth:`.store.CosmosStore.put`)."""
        dim = self.account.embedding.dim
        ttl = self.account.settings.turn_ttl_seconds
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

    async def _put_chunk(self, user_id: str, chunk: list[Entry], overwrite: bool
                         ) -> list[MemoryRecord]:
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

    async def _write_chunk(self, user_id: str, chunk: list[Entry], overwrite: bool,
                           threads: list[str]) -> list[MemoryRecord]:
        from azure.cosmos.exceptions import CosmosBatchOperationError

        account = self.account
        ids = [i.record.id for i, _ in chunk]
        for attempt in range(MAX_ATTEMPTS):
            sequences = {}
            if threads:
                found = await account.query(
                    "put", "SELECT * FROM c WHERE c.user_id = @user_id AND "
                    "ARRAY_CONTAINS(@ids, c.id)",
                    [{"name": "@user_id", "value": user_id}, {"name": "@ids", "value": threads}],
                    user_id)
                sequences = {doc["id"]: doc for doc in found}
            planned = plan(user_id, chunk, sequences, overwrite=overwrite)
            try:
                results = await account.require().execute_item_batch(
                    planned.operations, partition_key=user_id, response_hook=account.hook("put"))
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
            return [record.model_copy(update={"etag": _etag_of(result)})
                    for record, result in zip(planned.records, results[planned.sequences:],
                                              strict=True)]
        raise StoreError(f"put: turns of user {user_id!r} kept losing their thread's next seq "
                         f"to concurrent writers; gave up after {MAX_ATTEMPTS} attempts")

    async def update(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Replace the documents of existing records, keeping their index text and vectors
        (see :meth:`.store.CosmosStore.update`)."""
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

        account = self.account
        for attempt in range(MAX_ATTEMPTS):
            stored = {doc["id"]: doc for doc in await account.docs(user_id,
                                                                   [r.id for r in records])}
            gone = [r.id for r in records if r.id not in stored]
            if gone:
                raise RecordNotFoundError(f"record {gone[0]!r} of user {user_id!r} no longer "
                                          "exists (deleted since it was read); nothing was "
                                          "updated")
            operations = []
            for record in records:
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
                results = await account.require().execute_item_batch(
                    operations, partition_key=user_id, response_hook=account.hook("update"))
            except CosmosBatchOperationError as exc:
                index = exc.error_index or 0
                if exc.status_code == 404:  # deleted meanwhile: skipped on the next read
                    await backoff(attempt)
                    continue
                if exc.status_code == 412:
                    rid = records[index].id
                    raise ConflictError(f"record {rid!r} changed since it was read; read it "
                                        "again and re-apply the change", [rid]) from exc
                raise translate(exc, "update", [r.id for r in records]) from exc
            except Exception as exc:
                mapped = translate(exc, "update", [r.id for r in records])
                if mapped is exc:
                    raise
                raise mapped from exc
            return [r.model_copy(update={"etag": _etag_of(res)})
                    for r, res in zip(records, results, strict=False)]
        raise StoreError(f"update: records of user {user_id!r} kept disappearing; gave up")

    async def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Count one access on each fact or insight in ``ids`` with a conditional patch
        (see :meth:`.store.CosmosStore.touch`); returns how many were touched."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        where, params = where_clause(user_id, RecordQuery(
            ids=frozenset(wanted), kinds=frozenset({RecordKind.FACT, RecordKind.INSIGHT}),
            include_superseded=True))
        account = self.account
        found = await account.query("touch", f"SELECT c.id FROM c WHERE {where}", params,
                                    user_id)
        when = as_utc(at).isoformat().replace("+00:00", "Z")
        operations = [{"op": "incr", "path": "/access_count", "value": 1},
                      {"op": "set", "path": "/last_accessed_at", "value": when}]
        done = 0
        for doc in found:
            try:
                with translated("touch", [doc["id"]]):
                    await account.require().patch_item(
                        doc["id"], partition_key=user_id, patch_operations=operations,
                        filter_predicate="FROM c WHERE c.kind IN ('fact', 'insight')",
                        response_hook=account.hook("touch"))
            except RecordNotFoundError:
                continue  # deleted meanwhile
            done += 1
        return done

    async def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Hard-delete the user's records with these ids; returns how many were deleted."""
        user_id = require_scope(user_id)
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        where, params = where_clause(user_id, RecordQuery(ids=frozenset(wanted),
                                                          include_superseded=True))
        found = await self.account.query("delete", f"SELECT c.id FROM c WHERE {where}",
                                         params, user_id)
        return await self.delete_ids(user_id, [doc["id"] for doc in found])

    async def delete_ids(self, user_id: str, ids: list[str]) -> int:
        """Delete documents of one partition by id in batches of 100 (each atomic); an id
        deleted meanwhile is skipped. Returns how many were deleted."""
        from azure.cosmos.exceptions import CosmosBatchOperationError

        done = 0
        pending = list(ids)
        while pending:
            chunk, pending = pending[:MAX_BATCH], pending[MAX_BATCH:]
            try:
                await self.account.require().execute_item_batch(
                    [("delete", (rid,)) for rid in chunk], partition_key=user_id,
                    response_hook=self.account.hook("delete"))
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
        """Hard-delete the user's records matching the filters, and a purged thread's
        sequence document (see :meth:`.store.CosmosStore.purge`); returns counts per kind."""
        user_id = require_scope(user_id)
        where, params = where_clause(user_id, RecordQuery(
            kinds=kinds, thread_id=thread_id, until=before, include_superseded=True))
        account = self.account
        found = await account.query("purge", f"SELECT c.id, c.kind FROM c WHERE {where}",
                                    params, user_id)
        await self.delete_ids(user_id, [doc["id"] for doc in found])
        counts: dict[str, int] = {}
        for doc in found:
            counts[doc["kind"]] = counts.get(doc["kind"], 0) + 1
        if before is None and (kinds is None or RecordKind.TURN in kinds):
            sql = "SELECT c.id FROM c WHERE c.user_id = @user_id AND c.kind = 'sequence'"
            seq_params: list[dict[str, Any]] = [{"name": "@user_id", "value": user_id}]
            if thread_id is not None:
                sql += " AND c.id = @sid"
                seq_params.append({"name": "@sid", "value": sequence_id(thread_id)})
            sequences = await account.query("purge", sql, seq_params, user_id)
            await self.delete_ids(user_id, [doc["id"] for doc in sequences])
        return counts

"""Conditional, atomic writes of one user's records: transactional batches with turn order.

A put becomes, per user, transactional batches (``ContainerProxy.execute_item_batch``) of at
most :data:`MAX_BATCH` operations, each applied whole or not at all:

- a record with an ``etag``: ``replace`` with ``If-Match`` on that ``etag`` (412: stale);
- a record without one: ``create`` (409: it exists), or ``upsert`` when overwriting;
- one operation per thread touched on its *sequence document* (``seq:<thread>``, field
  ``next``): created, or replaced with ``If-Match`` on the version read. A turn with
  ``seq < 0`` gets ``next`` (then ``next + 1``...); an explicit ``seq`` moves ``next`` past
  it. Two writers that read the same ``next`` cannot both commit: the loser's batch fails on
  the sequence document (412/409), nothing of it is written, and it re-reads and retries.
  The container's unique key on ``position`` refuses a turn position taken twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import ConflictError
from ...models import MemoryRecord, Turn
from ..base import Indexed
from .documents import SEQUENCE_KIND, position

MAX_BATCH = 100
"""Operations per Cosmos DB transactional batch (the service's limit)."""


def sequence_id(thread_id: str | None) -> str:
    """The id of a thread's sequence document."""
    return "seq:" + json.dumps(thread_id)


@dataclass
class Planned:
    """The operations of one batch: the sequence documents first (a writer that lost the
    thread's next ``seq`` fails there, before its turns meet the unique position), then the
    records.

    Attributes:
        operations: ``(op, args, kwargs)`` tuples for ``execute_item_batch``.
        records: the records written by the last ``len(records)`` operations, as they will
            be stored (assigned ``seq``; ``etag`` still the one read).
        sequences: how many operations (at the start) write sequence documents.
    """

    operations: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    records: list[MemoryRecord] = field(default_factory=list)
    sequences: int = 0


def chunks(items: Sequence[tuple[Indexed, dict[str, Any]]]
           ) -> list[list[tuple[Indexed, dict[str, Any]]]]:
    """Split one user's items so that each chunk's records plus its threads' sequence
    documents fit one batch (each chunk is atomic on its own)."""
    out: list[list[tuple[Indexed, dict[str, Any]]]] = []
    current: list[tuple[Indexed, dict[str, Any]]] = []
    threads: set[str | None] = set()
    for pair in items:
        record = pair[0].record
        extra = {record.thread_id} - threads if isinstance(record, Turn) else set()
        if current and len(current) + len(threads) + 1 + len(extra) > MAX_BATCH:
            out.append(current)
            current, threads = [], set()
            extra = {record.thread_id} if isinstance(record, Turn) else set()
        current.append(pair)
        threads |= extra
    if current:
        out.append(current)
    return out


def plan(user_id: str, chunk: Sequence[tuple[Indexed, dict[str, Any]]],
         sequences: dict[str, dict[str, Any]], *, overwrite: bool) -> Planned:
    """The batch writing ``chunk`` given the thread sequence documents read
    (``sequences``: id -> document, missing when the thread has none yet).

    Raises:
        InvalidInputError: never here (documents were validated when built).
    """
    planned = Planned()
    record_ops: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    nexts: dict[str | None, int] = {}
    for item, doc in chunk:
        record = item.record
        if isinstance(record, Turn):
            thread = record.thread_id
            if thread not in nexts:
                stored = sequences.get(sequence_id(thread))
                nexts[thread] = int(stored["next"]) if stored else 0
            if record.seq < 0:
                record = record.model_copy(update={"seq": nexts[thread]})
                doc = {**doc, "seq": record.seq, "order_seq": record.seq,
                       "position": position(record)}
            nexts[thread] = max(nexts[thread], record.seq + 1)
        if record.etag is not None:
            record_ops.append(("replace", (record.id, doc), {"if_match_etag": record.etag}))
        elif overwrite:
            record_ops.append(("upsert", (doc,), {}))
        else:
            record_ops.append(("create", (doc,), {}))
        planned.records.append(record)
    for thread, next_seq in nexts.items():
        sid = sequence_id(thread)
        stored = sequences.get(sid)
        if stored is not None and int(stored["next"]) >= next_seq:
            continue
        doc = {"id": sid, "user_id": user_id, "kind": SEQUENCE_KIND, "thread_id": thread,
               "next": next_seq, "position": f"id:{sid}", "order_seq": -1}
        if stored is None:
            planned.operations.append(("create", (doc,), {}))
        else:
            planned.operations.append(("replace", (sid, doc), {"if_match_etag": stored["_etag"]}))
    planned.sequences = len(planned.operations)
    planned.operations += record_ops
    return planned


def conflict_for(planned: Planned, index: int, status: int | None) -> ConflictError | None:
    """The :class:`ConflictError` of a failed record operation, or ``None`` when the failed
    operation is a sequence document (another writer took the thread's next seq: retry)."""
    if index < planned.sequences:
        return None
    record = planned.records[index - planned.sequences]
    if status == 412 or (status == 404 and record.etag is not None):
        what = "changed" if status == 412 else "was deleted"
        return ConflictError(f"record {record.id!r} {what} since it was read; read it again "
                             "and re-apply the change", [record.id])
    if isinstance(record, Turn) and status == 409:
        return ConflictError(
            f"record {record.id!r} of user {record.user_id!r} already exists, or a turn with "
            f"seq {record.seq} already exists in its thread (omit seq to have the store "
            "assign the next one)", [record.id])
    return ConflictError(
        f"record {record.id!r} of user {record.user_id!r} already exists; read it and "
        "write the read copy back to replace it", [record.id])

"""Reading a Cosmos DB store back for copies (:attr:`Capability.EXPORT`): its recorded
embedding spec before open, its users, and records with their index text and vectors.

``users`` is the one read across partitions. It projects ``c.user_id`` page by page and
de-duplicates here instead of ``SELECT DISTINCT``: the projection is the portable form (the
local test server lacks ``DISTINCT``), it costs about the same request units per document
read, and only ``agent-memory copy --all-users`` runs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...models import RecordKind
from ..base import Indexed
from .documents import to_record, vectors_of

RESERVED_PARTITIONS = frozenset({"__meta__"})
"""Partition key values that hold store metadata, not a user's records."""


def indexed_of(doc: Mapping[str, Any]) -> Indexed:
    """A document as written: its record, index text and float32 vectors (JSON numbers of a
    float32 parse back to the same float32, so the vectors are bit-identical)."""
    vectors = {name: np.asarray(values, dtype=np.float32)
               for name, values in vectors_of(doc).items()}
    return Indexed(record=to_record(doc), text=doc.get("text", ""), vectors=vectors)


def in_order(docs: Sequence[Mapping[str, Any]], ids: Sequence[str]) -> list[Indexed]:
    """``docs`` as :class:`Indexed`, in the order of ``ids`` (missing and repeats skipped)."""
    found = {doc["id"]: doc for doc in docs}
    return [indexed_of(found[i]) for i in dict.fromkeys(ids) if i in found]


async def distinct_users(container: Any, hook: Any) -> list[str]:
    """Sorted user ids with at least one document (reserved partitions left out)."""
    seen: set[str] = set()
    kinds = [{"name": f"@k{i}", "value": kind.value} for i, kind in enumerate(RecordKind)]
    sql = ("SELECT VALUE c.user_id FROM c WHERE c.kind IN ("
           + ", ".join(p["name"] for p in kinds) + ")")  # records, not sequence documents
    items = container.query_items(sql, parameters=kinds, response_hook=hook)
    async for user in items:
        if isinstance(user, str) and user not in RESERVED_PARTITIONS:
            seen.add(user)
    return sorted(seen)

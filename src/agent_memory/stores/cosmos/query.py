"""Filters (:class:`RecordQuery`) as Cosmos DB SQL conditions with parameters.

:func:`where_clause` returns the condition text without the word ``WHERE`` and its
parameters (``@user_id``, then ``@p0``, ``@p1``, ...), every value passed as a parameter. It
always names the user (``c.user_id = @user_id``; queries also pass the partition key) and the
record kinds (so sequence and meta documents never match). Same semantics as the SQLite
store's ``where_clause`` (:mod:`agent_memory.stores.sqlite.query`): agent filter keeps shared
records, ``since`` inclusive / ``until`` exclusive on ``created_at``, superseded facts hidden
unless asked for, ``as_of`` keeps the facts with ``valid_from <= as_of < valid_until``.

Only syntax that both Azure Cosmos DB and the local test server answer: ``ARRAY_CONTAINS``,
``IS_DEFINED``, ``IS_NULL``, comparisons, ``TOP``, ``ORDER BY`` on the composite index; no
``OFFSET``/``LIMIT``, ``DISTINCT`` or ``GROUP BY``.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from ...errors import InvalidInputError
from ..base import RecordQuery
from ..paging import MAX_SEQ, load_cursor
from .documents import RECORD_KINDS, timestamp

ORDER_FIELDS = ("c.created_at", "c.order_seq", "c.id")
"""The list order (:func:`agent_memory.stores.paging.sort_key`), backed by composite
indexes."""


class Params:
    """Numbered query parameters: ``add(value)`` returns the next name ``@p<n>``."""

    def __init__(self, user_id: str) -> None:
        self.items: list[dict[str, Any]] = [{"name": "@user_id", "value": user_id}]
        self._n = 0

    def add(self, value: Any) -> str:
        """Append ``value`` as the next parameter and return its name (``@p0``, ``@p1``...)."""
        name = f"@p{self._n}"
        self._n += 1
        self.items.append({"name": name, "value": value})
        return name


def where_clause(user_id: str, query: RecordQuery) -> tuple[str, list[dict[str, Any]]]:
    """The condition over documents ``c`` for the user's records matching ``query``.

    ``limit`` and ``newest_first`` are not filters (see :func:`list_sql`).

    Returns:
        ``(condition, parameters)``; parameters as the SDK takes them
        (``[{"name": "@user_id", "value": ...}, ...]``).
    """
    p = Params(user_id)
    clauses = ["c.user_id = @user_id"]

    def among(path: str, values: Any) -> None:
        clauses.append(f"ARRAY_CONTAINS({p.add(sorted(str(v) for v in values))}, {path})")

    among("c.kind", query.kinds if query.kinds is not None else RECORD_KINDS)
    if query.ids is not None:
        among("c.id", query.ids)
    if query.thread_id is not None:
        clauses.append(f"c.thread_id = {p.add(query.thread_id)}")
    if query.agent_id is not None:
        clauses.append(f"(c.agent_id = {p.add(query.agent_id)} OR IS_NULL(c.agent_id) "
                       "OR NOT IS_DEFINED(c.agent_id))")
    if query.since is not None:
        clauses.append(f"c.created_at >= {p.add(timestamp(query.since))}")
    if query.until is not None:
        clauses.append(f"c.created_at < {p.add(timestamp(query.until))}")
    if query.updated_after is not None:
        clauses.append(f"c.updated_at > {p.add(timestamp(query.updated_after))}")
    if query.embedded is not None:
        clauses.append(f"c.embedded = {p.add(query.embedded)}")
    if query.after_seq is not None:
        clauses.append(f"c.seq > {p.add(query.after_seq)}")
    if query.content_hash is not None:
        clauses.append(f"c.content_hash = {p.add(query.content_hash)}")
    if query.content_hashes is not None:
        among("c.content_hash", query.content_hashes)
    if query.categories is not None:
        among("c.category", query.categories)
    if query.as_of is not None:  # flat comparisons on the valid-time fields (documents.py)
        moment = p.add(timestamp(query.as_of))
        clauses += [f"c.valid_start <= {moment}", f"c.valid_end > {moment}"]
        if not query.include_superseded:  # contradicted facts count in their window
            clauses.append("c.valid_hidden = false")
    elif not query.include_superseded:
        clauses.append("(NOT IS_DEFINED(c.superseded_by) OR IS_NULL(c.superseded_by))")
    if query.processed is not None:
        clauses.append(f"c.processed = {p.add(query.processed)}")
    if query.collections is not None:
        among("c.collection", query.collections)
    return " AND ".join(clauses), p.items


def order_by(newest_first: bool) -> str:
    """``ORDER BY`` of the list order, ascending or descending on every field."""
    direction = "DESC" if newest_first else "ASC"
    return "ORDER BY " + ", ".join(f"{f} {direction}" for f in ORDER_FIELDS)


def after_clause(after: tuple[str, int, str], newest_first: bool,
                 params: list[dict[str, Any]]) -> str:
    """The keyset condition "strictly after position ``after``" in list order.

    Args:
        after: ``(created_at as stored, order_seq, id)`` of the last record of a page.
        newest_first: the order is descending.
        params: the query's parameters; three are appended (``@after0..2``).
    """
    created, seq, rid = after
    params.extend([{"name": "@after0", "value": created}, {"name": "@after1", "value": seq},
                   {"name": "@after2", "value": rid}])
    op = "<" if newest_first else ">"
    return (f"(c.created_at {op} @after0 OR (c.created_at = @after0 AND "
            f"(c.order_seq {op} @after1 OR (c.order_seq = @after1 AND c.id {op} @after2))))")


def encode_position(position: tuple[str, int, str]) -> str:
    """The page cursor of a list position ``(created_at as stored, order_seq, id)``."""
    return base64.urlsafe_b64encode(json.dumps(list(position)).encode()).decode().rstrip("=")


def decode_position(cursor: str) -> tuple[str, int, str]:
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


def list_sql(where: str, newest_first: bool, top: int | None) -> str:
    """``SELECT [TOP @top] * FROM c WHERE ... ORDER BY ...`` (``@top`` is the caller's
    parameter)."""
    head = "SELECT TOP @top * FROM c" if top is not None else "SELECT * FROM c"
    return f"{head} WHERE {where} {order_by(newest_first)}"


def count_sql(where: str) -> str:
    """``SELECT VALUE COUNT(1)`` over the matching documents (one aggregate within the
    partition)."""
    return f"SELECT VALUE COUNT(1) FROM c WHERE {where}"

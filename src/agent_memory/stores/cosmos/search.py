"""Search on Azure Cosmos DB for NoSQL: the query text and parameters, and the runners.

Every query runs in the user's logical partition (``partition_key=user_id``) with the store's
filter condition (``where``: text over ``c``, using ``@user_id`` and ``@p0..@pN``). Records are
documents of the ``records`` container: ``text`` is the full-text searched field, ``embedding``
the content vector and ``embedding_<field>`` any other vector field (cosine, float32).

Query shapes (checked against the Cosmos DB query reference, see the tests):

- vector: ``SELECT TOP k c AS doc, VectorDistance(c.embedding, @vector) AS score FROM c
  WHERE (<where>) AND IS_DEFINED(c.embedding) ORDER BY VectorDistance(c.embedding, @vector)``
  -- ``VectorDistance`` may be projected, so each hit carries its cosine similarity; the
  ``IS_DEFINED`` term keeps records without that vector out of the list.
- full text: ``SELECT TOP k c AS doc FROM c WHERE (<where>) AND FullTextContainsAny(c.text,
  @kw0, ...) ORDER BY RANK FullTextScore(c.text, @kw0, ...)`` -- the keywords are the query's
  words as every store analyses them (:func:`agent_memory.text.terms.query_terms`);
  ``FullTextContainsAny`` keeps records holding none of them out (``ORDER BY RANK`` orders, it
  does not filter).
- hybrid (:func:`hybrid_query`): ``SELECT TOP k c AS doc, VectorDistance(c.embedding, @vector)
  AS vector_score FROM c WHERE (<where>) ORDER BY RANK RRF(VectorDistance(c.embedding,
  @vector), FullTextScore(c.text, @kw0, ...))``.

Scores. ``FullTextScore`` can only appear in ``ORDER BY RANK`` or inside ``RRF``, never in a
projection (https://learn.microsoft.com/azure/cosmos-db/nosql/query/fulltextscore), so Cosmos
DB never returns a BM25 value: a full-text hit's score is its reciprocal rank ``1 / rank``
(higher is better, comparable within one list only, as the store contract allows). For the
same reason, and because the SDK runs a hybrid query as per-component queries whose component
scores it drops before returning items (``azure.cosmos._execution_context.
hybrid_search_aggregator``; the fusion constant is fixed at 60 there), a single ``ORDER BY RANK
RRF(...)`` query cannot tell which signals found a hit, at which rank, nor fuse with the
request's ``rrf_k``. :func:`run_search` therefore answers a hybrid request with the vector and
the full-text queries issued concurrently (two round trips in parallel; on Cosmos DB the single
hybrid query costs a query-plan request, a statistics query and one query per component) and
fuses them with :func:`agent_memory.stores.search.fuse`: every hit carries each signal's exact
rank and score, and the fused score is reciprocal rank fusion with ``request.rrf_k``.
:func:`hybrid_query` builds the one-query form for callers that need the server's order only.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import InvalidInputError
from ...models import MemoryRecord
from ...text.terms import query_terms
from ..base import CONTENT, Scored
from ..search import TEXT, VECTOR, SearchHit, StoreSearch, fuse

TEXT_PATH = "c.text"
"""The full-text searched document field (full-text policy and index path ``/text``)."""

_FIELD = re.compile(r"^[A-Za-z0-9_]+$")

Charge = Callable[[Mapping[str, Any]], None]
"""Called with each response's headers (``x-ms-request-charge`` holds its request units)."""

Decode = Callable[[dict[str, Any]], MemoryRecord]
"""Turns a stored document back into its record (the store's own decoder)."""


def vector_path(field: str) -> str:
    """The document path of a vector field: ``c.embedding`` for ``content``, else
    ``c.embedding_<field>``.

    Raises:
        InvalidInputError: ``field`` is not a plain name (letters, digits, ``_``).
    """
    if not _FIELD.match(field):
        raise InvalidInputError(f"vector field {field!r} must be letters, digits or '_'")
    return "c.embedding" if field == CONTENT else f"c.embedding_{field}"


def _top(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be a positive integer, got {k!r}")
    return k


def _vector_param(vector: np.ndarray) -> list[float]:
    array = np.asarray(vector, dtype=np.float32)
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise InvalidInputError("the query vector must be a finite 1-D array")
    return [float(x) for x in array]


def _keyword_params(terms: Sequence[str]) -> tuple[str, list[dict[str, Any]]]:
    names = [f"@kw{i}" for i in range(len(terms))]
    return ", ".join(names), [{"name": n, "value": t} for n, t in zip(names, terms, strict=True)]


def vector_query(field: str, k: int, where: str, params: Sequence[dict[str, Any]],
                 vector: np.ndarray) -> tuple[str, list[dict[str, Any]]]:
    """The top-``k`` cosine search over one vector field.

    Args:
        field: the vector field (``content`` or another, see :func:`vector_path`).
        k: hits wanted (>= 1).
        where: the filter condition (no ``WHERE`` keyword).
        params: the condition's parameters, ``[{"name": "@p0", "value": ...}, ...]``.
        vector: the query vector, shape ``(dim,)``.

    Returns:
        The query text and its parameters (``params`` then ``@vector``). Each row is
        ``{"doc": <document>, "score": <cosine similarity>}``, most similar first.

    Raises:
        InvalidInputError: a bad field, ``k`` or vector.
    """
    path = vector_path(field)
    sql = (f"SELECT TOP {_top(k)} c AS doc, VectorDistance({path}, @vector) AS score FROM c "
           f"WHERE ({where}) AND IS_DEFINED({path}) ORDER BY VectorDistance({path}, @vector)")
    return sql, [*params, {"name": "@vector", "value": _vector_param(vector)}]


def text_query(terms: Sequence[str], k: int, where: str, params: Sequence[dict[str, Any]]
               ) -> tuple[str, list[dict[str, Any]]]:
    """The top-``k`` BM25 search for ``terms`` (the query's words, :func:`query_terms`).

    Returns:
        The query text and its parameters (``params`` then ``@kw0..``). Each row is
        ``{"doc": <document>}``, most relevant first; only documents holding a term.

    Raises:
        InvalidInputError: no terms, or a bad ``k``.
    """
    if not terms:
        raise InvalidInputError("a full-text query needs at least one word")
    keywords, kw_params = _keyword_params(terms)
    sql = (f"SELECT TOP {_top(k)} c AS doc FROM c "
           f"WHERE ({where}) AND FullTextContainsAny({TEXT_PATH}, {keywords}) "
           f"ORDER BY RANK FullTextScore({TEXT_PATH}, {keywords})")
    return sql, [*params, *kw_params]


def hybrid_query(terms: Sequence[str], k: int, where: str, params: Sequence[dict[str, Any]],
                 vector: np.ndarray, field: str = CONTENT) -> tuple[str, list[dict[str, Any]]]:
    """One server-fused hybrid query: ``ORDER BY RANK RRF(VectorDistance, FullTextScore)``.

    Cosmos DB fuses with reciprocal rank fusion (constant 60, equal weights); each row is
    ``{"doc": <document>, "vector_score": <cosine similarity>}`` in fused order. The rows do
    not say which signal found them nor at which rank (see the module docstring), which is why
    :func:`run_search` does not use this form.

    Raises:
        InvalidInputError: no terms, a bad field, ``k`` or vector.
    """
    if not terms:
        raise InvalidInputError("a hybrid query needs at least one word")
    path = vector_path(field)
    keywords, kw_params = _keyword_params(terms)
    sql = (f"SELECT TOP {_top(k)} c AS doc, VectorDistance({path}, @vector) AS vector_score "
           f"FROM c WHERE ({where}) ORDER BY RANK RRF(VectorDistance({path}, @vector), "
           f"FullTextScore({TEXT_PATH}, {keywords}))")
    return sql, [*params, {"name": "@vector", "value": _vector_param(vector)}, *kw_params]


async def _rows(container: Any, user_id: str, sql: str, params: list[dict[str, Any]],
                charge: Charge) -> list[dict[str, Any]]:
    """All rows of one partition-scoped query, each response's headers passed to ``charge``."""
    items = container.query_items(query=sql, parameters=params, partition_key=user_id,
                                  response_hook=lambda headers, *_: charge(headers))
    return [row async for row in items]


async def run_vector_search(container: Any, user_id: str, vector: np.ndarray, k: int,
                            fields: Sequence[str], where: str, params: list[dict[str, Any]],
                            charge: Charge, *, decode: Decode) -> list[Scored]:
    """Top-``k`` records by cosine similarity over ``fields``, best first.

    One query per field, issued concurrently; a record found through several fields counts
    once, by its best field (ties keep the order of ``fields``).

    Args:
        container: the records container (``azure.cosmos.aio.ContainerProxy``).
        user_id: the partition key value (also ``@user_id`` in ``where``).
        vector: float32 query vector, shape ``(dim,)``; the caller checks its length.
        k: hits wanted (>= 1).
        fields: vector fields searched.
        where, params: the filter condition and its parameters.
        charge: called with each response's headers.
        decode: turns a document into its record.

    Raises:
        InvalidInputError: a bad field, ``k`` or vector.
        azure.cosmos.exceptions.CosmosHttpResponseError: the server refused (the store
            translates it).
    """
    queries = [vector_query(field, k, where, params, vector) for field in dict.fromkeys(fields)]
    found = await asyncio.gather(*(_rows(container, user_id, sql, p, charge)
                                   for sql, p in queries))
    best: dict[str, tuple[float, int, str, dict[str, Any]]] = {}
    for order, (field, rows) in enumerate(zip(dict.fromkeys(fields), found, strict=True)):
        for row in rows:
            doc, score = row["doc"], float(row["score"])
            seen = best.get(doc["id"])
            if seen is None or score > seen[0]:
                best[doc["id"]] = (score, order, field, doc)
    ranked = sorted(best.values(), key=lambda t: (-t[0], t[1]))[:k]
    return [Scored(decode(doc), score, field) for score, _, field, doc in ranked]


async def run_text_search(container: Any, user_id: str, text: str, k: int, where: str,
                          params: list[dict[str, Any]], charge: Charge, *, decode: Decode
                          ) -> list[Scored]:
    """Top-``k`` records by ``FullTextScore`` over the words of ``text``, best first.

    ``text`` is plain text: its words (:func:`query_terms`) are the keywords, so punctuation
    and query syntax are never operators; without a searchable word nothing is queried.
    Scores are reciprocal ranks ``1 / rank`` (Cosmos DB returns no BM25 value).

    Raises:
        InvalidInputError: a bad ``k``.
        azure.cosmos.exceptions.CosmosHttpResponseError: the server refused.
    """
    _top(k)
    terms = query_terms(text)
    if not terms:
        return []
    sql, query_params = text_query(terms, k, where, params)
    rows = await _rows(container, user_id, sql, query_params, charge)
    return [Scored(decode(row["doc"]), 1.0 / rank) for rank, row in enumerate(rows, start=1)]


async def run_search(container: Any, user_id: str, request: StoreSearch, where: str,
                     params: list[dict[str, Any]], charge: Charge, *, decode: Decode
                     ) -> list[SearchHit]:
    """One search request: vector, full-text or hybrid, each hit with every signal's figures.

    The full-text query is sent first, so it runs while an awaitable ``request.vector`` is
    still being computed; a hybrid result is fused with ``request.rrf_k`` (see the module
    docstring for why the fusion happens here).

    Raises:
        InvalidInputError: a bad field, ``k`` or vector.
        azure.cosmos.exceptions.CosmosHttpResponseError: the server refused.
    """
    vector: np.ndarray | Awaitable[np.ndarray] | None = request.vector
    text_task = None
    if request.text is not None:
        text_task = asyncio.ensure_future(run_text_search(
            container, user_id, request.text, request.k, where, params, charge, decode=decode))
    lists: dict[str, Sequence[Scored]] = {}
    try:
        if vector is not None:
            if inspect.isawaitable(vector):
                vector = await vector
            lists[VECTOR] = await run_vector_search(
                container, user_id, vector, request.k, request.fields, where, params, charge,
                decode=decode)
        if text_task is not None:
            lists[TEXT] = await text_task
    except BaseException:
        if text_task is not None:
            text_task.cancel()
            await asyncio.gather(text_task, return_exceptions=True)
        raise
    return fuse(lists, request.rrf_k)

"""Search over a user's records in Cosmos DB: vector, full text and hybrid.

This version ranks in the client: it reads the documents matching the filters (one query in
the user's partition) and scores them here (cosine over the stored float32 vectors; BM25
over the index text with the user's own statistics; reciprocal rank fusion for hybrid), so
it runs wherever the SQL filters run. The server-side queries (``VectorDistance``,
``FullTextScore``, ``ORDER BY RANK RRF``) replace it with the same signatures.
"""

from __future__ import annotations

import inspect
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..base import Scored
from ..search import TEXT, VECTOR, SearchHit, StoreSearch, fuse
from ..sqlite.query import query_terms
from .documents import to_record, vector_field

_WORD = re.compile(r"[^\W_]+")
BM25_K1 = 1.2
BM25_B = 0.75


async def _documents(container: Any, user_id: str, where: str, params: list[dict],
                     charge: Callable[[Mapping], None]) -> list[dict]:
    def hook(headers: Mapping | None = None, *_: Any) -> None:
        charge(headers or {})

    items = container.query_items(f"SELECT * FROM c WHERE {where}", parameters=params,
                                  partition_key=user_id, response_hook=hook)
    return [doc async for doc in items]


async def run_vector_search(container: Any, user_id: str, vector: np.ndarray, k: int,
                            fields: Sequence[str], where: str, params: list[dict],
                            charge: Callable[[Mapping], None]) -> list[Scored]:
    """Top ``k`` records by cosine similarity over ``fields`` (each record once, by its best
    field), best first; ties by id."""
    if k <= 0:
        return []
    docs = await _documents(container, user_id, where, params, charge)
    query = np.asarray(vector, dtype=np.float32)
    scored: list[tuple[float, str, str, dict]] = []
    for doc in docs:
        best: tuple[float, str] | None = None
        for name in fields:
            stored = doc.get(vector_field(name))
            if not stored:
                continue
            score = float(np.dot(np.asarray(stored, dtype=np.float32), query))
            if best is None or score > best[0]:
                best = (score, name)
        if best is not None:
            scored.append((best[0], doc["id"], best[1], doc))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Scored(to_record(doc), score, name) for score, _, name, doc in scored[:k]]


async def run_text_search(container: Any, user_id: str, text: str, k: int, where: str,
                          params: list[dict], charge: Callable[[Mapping], None]
                          ) -> list[Scored]:
    """Top ``k`` records by BM25 (k1 1.2, b 0.75) of the query's words in their index text,
    with statistics of the matching documents only; records without any word are left out."""
    terms = query_terms(text)
    if not terms or k <= 0:
        return []
    docs = await _documents(container, user_id, where, params, charge)
    bags = [Counter(_WORD.findall(str(doc.get("text", "")).lower())) for doc in docs]
    if not bags:
        return []
    mean = sum(sum(b.values()) for b in bags) / len(bags) or 1.0
    n = len(bags)
    df = {t: sum(1 for b in bags if t in b) for t in terms}
    scored = []
    for doc, bag in zip(docs, bags, strict=True):
        length = sum(bag.values())
        score = 0.0
        for t in terms:
            tf = bag.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf * (BM25_K1 + 1) / (
                    tf + BM25_K1 * (1 - BM25_B + BM25_B * length / mean))
        if score > 0:
            scored.append((score, doc["id"], doc))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Scored(to_record(doc), score) for score, _, doc in scored[:k]]


async def run_search(container: Any, user_id: str, request: StoreSearch, where: str,
                     params: list[dict], charge: Callable[[Mapping], None]
                     ) -> list[SearchHit]:
    """Vector, full-text or hybrid search (RRF with ``request.rrf_k``), best first, each hit
    with every signal's rank and raw score."""
    lists: dict[str, Sequence[Scored]] = {}
    vector = request.vector
    if vector is not None and inspect.isawaitable(vector):
        vector = await vector
    if vector is not None:
        lists[VECTOR] = await run_vector_search(container, user_id, vector, request.k,
                                                request.fields, where, params, charge)
    if request.text is not None:
        lists[TEXT] = await run_text_search(container, user_id, request.text, request.k,
                                            where, params, charge)
    return fuse(lists, request.rrf_k)

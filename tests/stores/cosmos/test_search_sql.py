"""Exact text and parameters of the Cosmos DB search queries.

Checked against the Cosmos DB for NoSQL query reference:
- VectorDistance (projectable; ``ORDER BY VectorDistance(...)`` sorts most similar first):
  https://learn.microsoft.com/azure/cosmos-db/nosql/query/vectordistance
- FullTextScore (only in ``ORDER BY RANK`` or inside ``RRF``, never projected; keywords as
  separate string arguments): https://learn.microsoft.com/azure/cosmos-db/nosql/query/fulltextscore
- FullTextContainsAny (filters on any of several keywords):
  https://learn.microsoft.com/azure/cosmos-db/nosql/query/fulltextcontainsany
- ORDER BY RANK and RRF (hybrid: ``ORDER BY RANK RRF(VectorDistance(...), FullTextScore(...))``,
  ``SELECT TOP n`` required): https://learn.microsoft.com/azure/cosmos-db/nosql/query/order-by-rank,
  https://learn.microsoft.com/azure/cosmos-db/nosql/query/rrf
"""

from __future__ import annotations

import numpy as np
import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.stores.cosmos.search import (
    hybrid_query,
    text_query,
    vector_path,
    vector_query,
)
from agent_memory.text.terms import query_terms

WHERE = "c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind)"
PARAMS = [{"name": "@user_id", "value": "alice"}, {"name": "@p0", "value": ["turn", "fact"]}]
VEC = np.array([0.6, 0.8], dtype=np.float32)


def test_vector_query_projects_the_similarity_and_orders_by_it() -> None:
    sql, params = vector_query("content", 5, WHERE, PARAMS, VEC)
    assert sql == (
        "SELECT TOP 5 c AS doc, VectorDistance(c.embedding, @vector) AS score FROM c "
        "WHERE (c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind)) "
        "AND IS_DEFINED(c.embedding) ORDER BY VectorDistance(c.embedding, @vector)")
    assert params == [*PARAMS, {"name": "@vector", "value": [pytest.approx(0.6), pytest.approx(0.8)]}]
    assert all(isinstance(x, float) for x in params[-1]["value"])  # JSON numbers


def test_vector_fields_map_to_their_document_paths() -> None:
    assert vector_path("content") == "c.embedding"
    assert vector_path("summary") == "c.embedding_summary"
    sql, _ = vector_query("summary", 3, "c.user_id = @user_id", PARAMS[:1], VEC)
    assert "VectorDistance(c.embedding_summary, @vector) AS score" in sql
    assert "IS_DEFINED(c.embedding_summary) ORDER BY VectorDistance(c.embedding_summary, @vector)" in sql


def test_text_query_filters_on_any_keyword_and_ranks_by_bm25() -> None:
    terms = query_terms("Where is the zebra's cat?")
    assert terms == ["zebra", "cat"]
    sql, params = text_query(terms, 10, WHERE, PARAMS)
    assert sql == (
        "SELECT TOP 10 c AS doc FROM c "
        "WHERE (c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind)) "
        "AND FullTextContainsAny(c.text, @kw0, @kw1) "
        "ORDER BY RANK FullTextScore(c.text, @kw0, @kw1)")
    assert params == [*PARAMS, {"name": "@kw0", "value": "zebra"}, {"name": "@kw1", "value": "cat"}]


def test_hybrid_query_fuses_on_the_server_and_projects_the_vector_score() -> None:
    sql, params = hybrid_query(["kayak"], 4, WHERE, PARAMS, VEC)
    assert sql == (
        "SELECT TOP 4 c AS doc, VectorDistance(c.embedding, @vector) AS vector_score FROM c "
        "WHERE (c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind)) "
        "ORDER BY RANK RRF(VectorDistance(c.embedding, @vector), FullTextScore(c.text, @kw0))")
    assert [p["name"] for p in params] == ["@user_id", "@p0", "@vector", "@kw0"]
    assert "FullTextScore" not in sql.split(" FROM c ")[0]  # never projected


@pytest.mark.parametrize("call", [
    lambda: vector_query("content", 0, WHERE, PARAMS, VEC),
    lambda: vector_query("content", True, WHERE, PARAMS, VEC),
    lambda: vector_query("sum mary", 3, WHERE, PARAMS, VEC),
    lambda: vector_query("content", 3, WHERE, PARAMS, np.zeros((2, 2), np.float32)),
    lambda: vector_query("content", 3, WHERE, PARAMS, np.array([np.nan, 1.0])),
    lambda: text_query([], 3, WHERE, PARAMS),
    lambda: hybrid_query([], 3, WHERE, PARAMS, VEC),
])
def test_bad_input_is_refused(call) -> None:
    with pytest.raises(InvalidInputError):
        call()

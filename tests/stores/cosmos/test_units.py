"""Cosmos DB store pieces without a server: store URLs, filters as SQL (exact text and
parameters), documents and back, error translation, container policies."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from azure.core.exceptions import ServiceRequestError
from azure.cosmos.exceptions import CosmosHttpResponseError

from agent_memory.errors import (
    ConfigError,
    ConflictError,
    DimensionMismatchError,
    InvalidInputError,
    RecordNotFoundError,
    StoreError,
)
from agent_memory.models import Fact, Interaction, RecordKind, Turn
from agent_memory.stores import open_store
from agent_memory.stores.base import EmbeddingSpec, Indexed, RecordQuery
from agent_memory.stores.cosmos import CosmosSettings, CosmosStore
from agent_memory.stores.cosmos.documents import to_document, to_record
from agent_memory.stores.cosmos.errors import CosmosAuthError, ThrottledError, translate
from agent_memory.stores.cosmos.layout import containers
from agent_memory.stores.cosmos.query import after_clause, list_sql, where_clause

KEY = "c2VjcmV0LWtleQ=="

# -- settings ------------------------------------------------------------------------------


def test_url_with_every_option():
    s = CosmosSettings.from_url(
        f"cosmos://acct.documents.azure.com:443/memdb?key={KEY}&prefix=am_&vector_index=diskANN"
        "&max_throughput=4000&turn_ttl=86400&create=false", environ={})
    assert s.endpoint == "https://acct.documents.azure.com:443/"
    assert s.key is not None and s.key.get_secret_value() == KEY
    assert (s.database, s.container_prefix, s.vector_index) == ("memdb", "am_", "diskANN")
    assert (s.max_throughput, s.turn_ttl_seconds, s.create_if_missing) == (4000, 86400, False)
    assert s.container("records") == "am_records"
    assert KEY not in repr(s) and KEY not in s.describe()


def test_url_defaults_key_from_environment_and_entra_id_without_one():
    s = CosmosSettings.from_url("cosmos+https://acct.documents.azure.com",
                                environ={"COSMOS_KEY": KEY})
    assert s.endpoint == "https://acct.documents.azure.com/"
    assert s.database == "agent_memory" and s.container_prefix == ""
    assert s.vector_index == "quantizedFlat" and s.max_throughput is None
    assert s.turn_ttl_seconds is None and s.create_if_missing and s.uses_key
    first = CosmosSettings.from_url("cosmos://h", environ={"AGENT_MEMORY_COSMOS_KEY": "a",
                                                           "COSMOS_KEY": "b"})
    assert first.key is not None and first.key.get_secret_value() == "a"
    assert not CosmosSettings.from_url("cosmos://h", environ={}).uses_key
    plus = CosmosSettings.from_url("cosmos://h?key=a+b%2Fc==", environ={})
    assert plus.key is not None and plus.key.get_secret_value() == "a+b/c=="


def test_url_through_a_path_option_and_plain_http():
    # A CLI option typed as a path folds "//" into "/": the URL still parses.
    folded = str(Path("cosmos://127.0.0.1:8081/db"))
    s = CosmosSettings.from_url(folded, environ={})
    assert s.endpoint == "https://127.0.0.1:8081/" and s.database == "db"
    assert CosmosSettings.from_url("cosmos+http://localhost:1", environ={}).endpoint == \
        "http://localhost:1/"


@pytest.mark.parametrize("url", [
    "http://acct", "cosmos://", "cosmos://h?color=blue", "cosmos://h?vector_index=hnsw",
    "cosmos://h?max_throughput=10", "cosmos://h?turn_ttl=-5", "cosmos://h?create=maybe",
    "cosmos://h:notaport",
])
def test_bad_urls_are_config_errors_without_the_key(url):
    with pytest.raises(ConfigError) as caught:
        CosmosSettings.from_url(url + ("&" if "?" in url else "?") + f"key={KEY}"
                                if url.startswith("cosmos://h") else url, environ={})
    assert KEY not in str(caught.value)


def test_open_store_builds_a_cosmos_store():
    store = open_store(f"cosmos://127.0.0.1:8081/db?key={KEY}")
    assert isinstance(store, CosmosStore)
    assert store.settings.database == "db"
    with pytest.raises(ConfigError):
        open_store("cosmos://?key=x")


# -- filters as SQL ------------------------------------------------------------------------

KINDS = ["fact", "insight", "interaction", "profile", "summary", "turn"]


def test_no_filter_names_the_user_the_record_kinds_and_hides_superseded():
    where, params = where_clause("alice", RecordQuery())
    assert where == ("c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind) AND "
                     "(NOT IS_DEFINED(c.superseded_by) OR IS_NULL(c.superseded_by))")
    assert params == [{"name": "@user_id", "value": "alice"}, {"name": "@p0", "value": KINDS}]


def test_every_filter_field():
    query = RecordQuery(
        kinds=frozenset({RecordKind.FACT}), ids=frozenset({"b", "a"}), thread_id="th1",
        agent_id="ag", since=datetime(2024, 1, 1, tzinfo=UTC),
        until=datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
        after_seq=4, updated_after=datetime(2024, 1, 1, 12, tzinfo=UTC), embedded=False,
        content_hash="h1", content_hashes=frozenset({"h2"}), categories=frozenset({"x"}),
        include_superseded=True, processed=True, newest_first=True, limit=5,
        collections=frozenset({"work"}))
    where, params = where_clause("alice", query)
    assert where == (
        "c.user_id = @user_id AND ARRAY_CONTAINS(@p0, c.kind) AND ARRAY_CONTAINS(@p1, c.id) "
        "AND c.thread_id = @p2 AND (c.agent_id = @p3 OR IS_NULL(c.agent_id) OR NOT "
        "IS_DEFINED(c.agent_id)) AND c.created_at >= @p4 AND c.created_at < @p5 AND "
        "c.updated_at > @p6 AND c.embedded = @p7 AND c.seq > @p8 AND c.content_hash = @p9 "
        "AND ARRAY_CONTAINS(@p10, c.content_hash) AND ARRAY_CONTAINS(@p11, c.category) AND "
        "c.processed = @p12 AND ARRAY_CONTAINS(@p13, c.collection)")
    assert [p["value"] for p in params] == [
        "alice", ["fact"], ["a", "b"], "th1", "ag", "2024-01-01T00:00:00.000000Z",
        "2024-01-02T03:04:05.000006Z", "2024-01-01T12:00:00.000000Z", False, 4, "h1", ["h2"],
        ["x"], True, ["work"]]
    assert [p["name"] for p in params] == ["@user_id"] + [f"@p{i}" for i in range(14)]


def test_list_and_keyset_sql():
    assert list_sql("W", False, None) == (
        "SELECT * FROM c WHERE W ORDER BY c.created_at ASC, c.order_seq ASC, c.id ASC")
    assert list_sql("W", True, 3) == (
        "SELECT TOP @top * FROM c WHERE W ORDER BY c.created_at DESC, c.order_seq DESC, "
        "c.id DESC")
    params: list[dict] = []
    assert after_clause(("2024-01-01T00:00:00.000000Z", 2, "t2"), False, params) == (
        "(c.created_at > @after0 OR (c.created_at = @after0 AND (c.order_seq > @after1 OR "
        "(c.order_seq = @after1 AND c.id > @after2))))")
    assert [p["value"] for p in params] == ["2024-01-01T00:00:00.000000Z", 2, "t2"]


# -- documents -----------------------------------------------------------------------------


def test_document_round_trip_keeps_every_field_and_strips_the_rest():
    turn = Turn(id="t", user_id="alice", thread_id="th", role="user", speaker="Ana", seq=3,
                content="hello ✓", created_at=datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
                metadata={"k": [1, 2]}, etag="old")
    doc = to_document(Indexed(turn, text="hello index",
                              vectors={"content": np.ones(4, np.float32) / 2,
                                       "summary": np.eye(4, dtype=np.float32)[0]}), 4, ttl=60)
    assert doc["created_at"] == "2024-05-06T07:08:09.000000Z"
    assert (doc["text"], doc["embedded"], doc["order_seq"], doc["ttl"]) == (
        "hello index", True, 3, 60)
    assert doc["position"] == '["th", 3]' and "etag" not in doc
    assert doc["embedding"] == [0.5] * 4 and doc["embedding_summary"] == [1.0, 0.0, 0.0, 0.0]
    stored = {**doc, "_etag": "v2", "_rid": "r", "_ts": 1, "_self": "s", "_attachments": "a"}
    assert to_record(stored) == turn.model_copy(update={"etag": "v2"})


def test_documents_of_other_kinds_never_expire_and_are_positioned_by_id():
    fact = Fact(id="f", user_id="alice", content="memo")
    doc = to_document(Indexed(fact), 4, ttl=60)
    assert "ttl" not in doc and doc["position"] == "id:f" and doc["order_seq"] == -1
    assert doc["embedded"] is False and doc["text"] == "memo"
    assert to_record({**doc, "_etag": "e"}) == fact.model_copy(update={"etag": "e"})


def test_bad_vectors_and_text_are_refused():
    record = Interaction(id="x", user_id="alice", content="c")
    with pytest.raises(DimensionMismatchError):
        to_document(Indexed(record, vectors={"content": np.ones(3)}), 4)
    with pytest.raises(InvalidInputError):
        to_document(Indexed(record, vectors={"content": np.full(4, np.nan)}), 4)
    with pytest.raises(InvalidInputError):
        to_document(Indexed(record, text="bad \ud800"), 4)
    with pytest.raises(InvalidInputError):
        to_document(Indexed(record, vectors={"a b": np.ones(4)}), 4)
    with pytest.raises(StoreError):
        to_record({"id": "x", "kind": "turn", "user_id": "alice"})


# -- errors --------------------------------------------------------------------------------


def _http(status: int, message: str = "boom") -> CosmosHttpResponseError:
    return CosmosHttpResponseError(status_code=status, message=message)


@pytest.mark.parametrize(("status", "expected"), [
    (412, ConflictError), (409, ConflictError), (404, RecordNotFoundError),
    (429, ThrottledError), (401, CosmosAuthError), (403, CosmosAuthError), (400, StoreError),
    (503, StoreError),
])
def test_errors_are_translated(status, expected):
    mapped = translate(_http(status, "server says no"), "put", ["a"])
    assert type(mapped) is expected
    if expected is ConflictError:
        assert mapped.ids == ["a"]
    if status == 400:
        assert "server says no" in str(mapped)
    assert isinstance(translate(ServiceRequestError("down"), "get"), StoreError)
    other = ValueError("mine")
    assert translate(other, "get") is other


# -- layout --------------------------------------------------------------------------------


def test_records_container_policies():
    settings = CosmosSettings(endpoint="https://h/", container_prefix="p_",
                              vector_index="diskANN")
    records, jobs, leases = containers(settings, EmbeddingSpec(model="m", dim=384))
    assert (records.name, records.partition_key) == ("p_records", "/user_id")
    assert (jobs.name, jobs.partition_key, leases.name, leases.partition_key) == (
        "p_jobs", "/user_id", "p_leases", "/id")
    options = records.options
    assert options["vector_embedding_policy"] == {"vectorEmbeddings": [
        {"path": "/embedding", "dataType": "float32", "distanceFunction": "cosine",
         "dimensions": 384},
        {"path": "/embedding_summary", "dataType": "float32", "distanceFunction": "cosine",
         "dimensions": 384}]}
    assert options["full_text_policy"] == {
        "defaultLanguage": "en-US", "fullTextPaths": [{"path": "/text", "language": "en-US"}]}
    index = options["indexing_policy"]
    assert index["vectorIndexes"] == [{"path": "/embedding", "type": "diskANN"},
                                      {"path": "/embedding_summary", "type": "diskANN"}]
    assert index["fullTextIndexes"] == [{"path": "/text"}]
    assert {"path": "/embedding/*"} in index["excludedPaths"]
    assert {"path": "/embedding_summary/*"} in index["excludedPaths"]
    assert index["compositeIndexes"][0] == [
        {"path": "/created_at", "order": "ascending"}, {"path": "/order_seq", "order": "ascending"},
        {"path": "/id", "order": "ascending"}]
    assert options["unique_key_policy"] == {"uniqueKeys": [{"paths": ["/position"]}]}
    assert options["default_ttl"] == -1

"""The test server's extensions (``ext/``), checked with the raw azure-cosmos SDK, sync and
aio: what Cosmos DB does, the server now does too."""

from __future__ import annotations

import math
import time
import uuid
import warnings

import pytest

pytest.importorskip("azure.cosmos")
from azure.cosmos import CosmosClient, PartitionKey, exceptions
from azure.cosmos.aio import CosmosClient as AsyncCosmosClient

warnings.filterwarnings("ignore", message="Unverified HTTPS request")


@pytest.fixture
def db(cosmos_server):
    client = CosmosClient(cosmos_server.endpoint, credential=cosmos_server.key)
    return client.create_database_if_not_exists("ext_tests")


def new_container(db, path="/user_id", **kw):
    key = PartitionKey(path) if isinstance(path, str) else PartitionKey(path=path, kind="MultiHash")
    return db.create_container(f"c_{uuid.uuid4().hex[:8]}", key, **kw)


def test_read_of_a_missing_item_is_404(db):
    cont = new_container(db)
    cont.create_item({"id": "a", "user_id": "u1"})
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        cont.read_item("missing", partition_key="u1")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        cont.read_item("a", partition_key="u2")  # right id, other partition


def test_ids_are_unique_per_logical_partition(db):
    cont = new_container(db)
    cont.create_item({"id": "x", "user_id": "u1", "v": 1})
    cont.create_item({"id": "x", "user_id": "u2", "v": 2})
    assert cont.read_item("x", partition_key="u1")["v"] == 1
    assert cont.read_item("x", partition_key="u2")["v"] == 2
    with pytest.raises(exceptions.CosmosResourceExistsError):
        cont.create_item({"id": "x", "user_id": "u1"})
    tree = new_container(db, ["/user_id", "/thread_id"])
    tree.create_item({"id": "x", "user_id": "u1", "thread_id": "t1", "v": 1})
    tree.create_item({"id": "x", "user_id": "u1", "thread_id": "t2", "v": 2})
    assert tree.read_item("x", partition_key=["u1", "t2"])["v"] == 2
    tree.delete_item("x", partition_key=["u1", "t1"])
    assert tree.read_item("x", partition_key=["u1", "t2"])["v"] == 2


async def test_partition_key_scoped_queries_are_filtered_sync_and_aio(db, cosmos_server):
    cont = new_container(db)
    for i, user in enumerate(["u1", "u1", "u2"]):
        cont.create_item({"id": f"d{i}", "user_id": user})
    sql = "SELECT c.id FROM c ORDER BY c.id"  # no partition key in the text
    assert [d["id"] for d in cont.query_items(sql, partition_key="u1")] == ["d0", "d1"]
    async with AsyncCosmosClient(cosmos_server.endpoint, credential=cosmos_server.key) as client:
        acont = client.get_database_client("ext_tests").get_container_client(cont.id)
        assert [d["id"] async for d in acont.query_items(sql, partition_key="u2")] == ["d2"]
        everyone = [d["id"] async for d in acont.query_items(sql)]
        assert everyone == ["d0", "d1", "d2"]


def test_items_expire_after_their_ttl(db):
    cont = new_container(db, default_ttl=-1)
    cont.create_item({"id": "short", "user_id": "u1", "ttl": 1})
    cont.create_item({"id": "kept", "user_id": "u1"})
    plain = new_container(db)  # no container TTL: an item's ttl is ignored
    plain.create_item({"id": "short", "user_id": "u1", "ttl": 1})
    time.sleep(2.2)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        cont.read_item("short", partition_key="u1")
    assert [d["id"] for d in cont.query_items("SELECT c.id FROM c", partition_key="u1")] == ["kept"]
    assert plain.read_item("short", partition_key="u1")["id"] == "short"


def test_batch_applies_every_operation(db):
    cont = new_container(db)
    a = cont.create_item({"id": "a", "user_id": "u1", "n": 1})
    cont.create_item({"id": "b", "user_id": "u1"})
    cont.create_item({"id": "c", "user_id": "u1", "n": 1})
    results = cont.execute_item_batch([
        ("create", ({"id": "new", "user_id": "u1"},)),
        ("upsert", ({"id": "up", "user_id": "u1"},)),
        ("replace", ("a", {"id": "a", "user_id": "u1", "n": 2}), {"if_match_etag": a["_etag"]}),
        ("read", ("b",)),
        ("delete", ("b",)),
        ("patch", ("c", [{"op": "incr", "path": "/n", "value": 5}])),
    ], partition_key="u1")
    assert [r["statusCode"] for r in results] == [201, 201, 200, 200, 204, 200]
    assert cont.read_item("a", partition_key="u1")["n"] == 2
    assert cont.read_item("c", partition_key="u1")["n"] == 6
    ids = sorted(d["id"] for d in cont.query_items("SELECT c.id FROM c", partition_key="u1"))
    assert ids == ["a", "c", "new", "up"]


@pytest.mark.parametrize("failing, status", [
    (("create", ({"id": "a", "user_id": "u1"},)), 409),
    (("replace", ("a", {"id": "a", "user_id": "u1"}), {"if_match_etag": '"stale"'}), 412),
    (("delete", ("missing",)), 404),
])
def test_batch_is_all_or_nothing(db, failing, status):
    cont = new_container(db)
    cont.create_item({"id": "a", "user_id": "u1", "n": 1})
    with pytest.raises(exceptions.CosmosBatchOperationError) as caught:
        cont.execute_item_batch([
            ("upsert", ({"id": "a", "user_id": "u1", "n": 9},)),
            ("create", ({"id": "fresh", "user_id": "u1"},)),
            failing,
        ], partition_key="u1")
    assert caught.value.error_index == 2 and caught.value.status_code == status
    assert [r["statusCode"] for r in caught.value.operation_responses] == [424, 424, status]
    assert cont.read_item("a", partition_key="u1")["n"] == 1
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        cont.read_item("fresh", partition_key="u1")


async def test_batch_through_the_aio_client(db, cosmos_server):
    cont = new_container(db)
    async with AsyncCosmosClient(cosmos_server.endpoint, credential=cosmos_server.key) as client:
        acont = client.get_database_client("ext_tests").get_container_client(cont.id)
        await acont.execute_item_batch([("create", ({"id": "x", "user_id": "u1"},))],
                                       partition_key="u1")
        with pytest.raises(exceptions.CosmosBatchOperationError):
            await acont.execute_item_batch([("create", ({"id": "y", "user_id": "u1"},)),
                                            ("create", ({"id": "x", "user_id": "u1"},))],
                                           partition_key="u1")
    assert [d["id"] for d in cont.query_items("SELECT c.id FROM c", partition_key="u1")] == ["x"]


def bm25(docs: dict[str, str], words: list[str], k1=1.2, b=0.75) -> dict[str, float]:
    """Reference BM25 with the server's documented constants (whitespace words suffice here)."""
    toks = {i: t.lower().split() for i, t in docs.items()}
    avg = sum(len(t) for t in toks.values()) / len(toks)
    out = {}
    for i, t in toks.items():
        score = 0.0
        for w in words:
            tf = t.count(w)
            if tf:
                n = sum(w in other for other in toks.values())
                idf = math.log(1 + (len(toks) - n + 0.5) / (n + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(t) / avg))
        out[i] = score
    return out


def test_search_functions(db):
    cont = new_container(db)
    docs = {"z": "zebra cat", "c": "cat dog cat", "d": "dog bird", "n": "bird owl",
            "long": "cat " + "word " * 20}
    vecs = {"z": [1, 0], "c": [0.8, 0.6], "d": [0, 1], "n": [-1, 0], "long": [0.6, 0.8]}
    for rid, text in docs.items():
        cont.create_item({"id": rid, "user_id": "u1", "text": text, "embedding": vecs[rid]})
    cont.create_item({"id": "other", "user_id": "u2", "text": "zebra " * 10, "embedding": [1, 0]})
    p = [{"name": "@v", "value": [0.6, 0.8]}, {"name": "@k0", "value": "zebra"},
         {"name": "@k1", "value": "cat"}]

    def query(sql):
        return list(cont.query_items(sql, parameters=p, partition_key="u1"))

    rows = query("SELECT TOP 3 c.id, VectorDistance(c.embedding, @v) AS s FROM c "
                 "ORDER BY VectorDistance(c.embedding, @v)")
    assert [r["id"] for r in rows] == ["long", "c", "d"]
    assert rows[1]["s"] == pytest.approx(0.96) and rows[2]["s"] == pytest.approx(0.8)

    rows = query("SELECT c.id FROM c WHERE FullTextContainsAny(c.text, @k0, @k1) "
                 "ORDER BY RANK FullTextScore(c.text, @k0, @k1)")
    expected = bm25(docs, ["zebra", "cat"])  # statistics of u1's partition only
    assert [r["id"] for r in rows] == sorted((i for i in docs if expected[i] > 0),
                                             key=lambda i: -expected[i])
    assert {r["id"] for r in query("SELECT c.id FROM c WHERE FullTextContainsAll(c.text, @k0, @k1)")} == {"z"}

    rows = query("SELECT TOP 4 c.id FROM c ORDER BY RANK RRF(VectorDistance(c.embedding, @v), "
                 "FullTextScore(c.text, @k0, @k1))")
    vrank = {i: r for r, i in enumerate(sorted(docs, key=lambda i: -(
        vecs[i][0] * 0.6 + vecs[i][1] * 0.8) / math.hypot(*vecs[i])), start=1)}
    trank = {i: r for r, i in enumerate(sorted((i for i in docs if expected[i] > 0),
                                               key=lambda i: -expected[i]), start=1)}
    fused = {i: 1 / (60 + vrank[i]) + (1 / (60 + trank[i]) if i in trank else 0) for i in docs}
    assert [r["id"] for r in rows] == sorted(docs, key=lambda i: -fused[i])[:4]

    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        query("SELECT FullTextScore(c.text, @k0) AS s FROM c")
    assert caught.value.status_code == 400

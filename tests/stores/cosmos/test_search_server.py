"""Search end to end on the local Cosmos DB test server: documents laid out as the store
writes them, real embeddings from the local embedder, the runners of
:mod:`agent_memory.stores.cosmos.search`, checked against numpy cosine similarity and the
store contract's signals."""

from __future__ import annotations

import uuid
import warnings
from typing import Any

import numpy as np
import pytest

from agent_memory.models import Turn
from agent_memory.stores.cosmos.search import run_search, run_text_search, run_vector_search
from agent_memory.stores.search import StoreSearch
from agent_memory.testing.corpus import ALL

azure_cosmos = pytest.importorskip("azure.cosmos")
from azure.cosmos import PartitionKey
from azure.cosmos.aio import CosmosClient

TEXTS = {
    "kayak": "We went kayaking on the lake and the kayak tipped over",
    "paint": "Melanie painted a sunset over the lake last weekend",
    "dog": "My dog loves running in the park every morning",
    "job": "Caroline started a new job as a counselor",
    "cake": "I baked a chocolate cake for my daughter's birthday",
    "hike": "We hiked up the mountain trail and saw a waterfall",
}
WHERE = "c.user_id = @user_id AND c.kind = @p0"


def decode(doc: dict[str, Any]) -> Turn:
    fields = {k: v for k, v in doc.items()
              if not k.startswith("_") and k not in ("text", "ttl") and not k.startswith("embedding")}
    return Turn.model_validate(fields)


@pytest.fixture
async def container(cosmos_server, local_embedder):
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")
    async with CosmosClient(cosmos_server.endpoint, credential=cosmos_server.key) as client:
        db = await client.create_database_if_not_exists("search_tests")
        cont = await db.create_container(f"records_{uuid.uuid4().hex[:8]}",
                                         PartitionKey("/user_id"))
        vectors = local_embedder.embed_sync(list(TEXTS.values()))
        for i, ((rid, text), vec) in enumerate(zip(TEXTS.items(), vectors, strict=True)):
            for user in ("alice", "bob"):
                turn = Turn(id=rid, user_id=user, thread_id="t", seq=i, role="user", content=text)
                doc = {**turn.model_dump(mode="json"), "id": rid, "text": text,
                       "embedding": [float(x) for x in vec]}
                if user == "bob":  # bob's words must not move alice's ranking
                    doc["text"] = "lake lake lake " + text
                await cont.create_item(doc)
        # a document without a vector: never a vector hit
        turn = Turn(id="novec", user_id="alice", thread_id="t", seq=9, role="user",
                    content="the lake without a vector")
        await cont.create_item({**turn.model_dump(mode="json"), "text": turn.content})
        yield cont, dict(zip(TEXTS, vectors, strict=True))


def params(user: str = "alice") -> list[dict[str, Any]]:
    return [{"name": "@user_id", "value": user}, {"name": "@p0", "value": "turn"}]


async def test_vector_search_ranks_by_cosine_with_real_embeddings(container, local_embedder):
    cont, vectors = container
    charges: list[float] = []
    query = local_embedder.embed_sync(["boating on the water"])[0]
    hits = await run_vector_search(cont, "alice", query, 3, ("content",), WHERE, params(),
                                   lambda h: charges.append(float(h["x-ms-request-charge"])),
                                   decode=decode)
    expected = sorted(vectors, key=lambda rid: -float(vectors[rid] @ query))[:3]
    assert [h.record.id for h in hits] == expected
    assert hits[0].record.id == "kayak"
    for hit in hits:
        assert hit.score == pytest.approx(float(vectors[hit.record.id] @ query), abs=1e-5)
        assert hit.field == "content" and hit.record.user_id == "alice"
    assert charges and all(c > 0 for c in charges)


async def test_text_search_uses_the_query_words_and_the_users_own_statistics(container):
    cont, _ = container
    hits = await run_text_search(cont, "alice", "The KAYAK?!", 5, WHERE, params(),
                                 lambda h: None, decode=decode)
    assert [h.record.id for h in hits] == ["kayak"]
    hits = await run_text_search(cont, "alice", "lake kayak", 5, WHERE, params(),
                                 lambda h: None, decode=decode)
    # kayak holds both words; paint and novec hold "lake" only
    assert hits[0].record.id == "kayak"
    assert {h.record.id for h in hits} == {"kayak", "paint", "novec"}
    assert [h.score for h in hits] == [1.0, 0.5, pytest.approx(1 / 3)]
    assert await run_text_search(cont, "alice", "the and of ?!", 5, WHERE, params(),
                                 lambda h: None, decode=decode) == []


async def test_filters_apply(container):
    cont, vectors = container
    where = WHERE + " AND c.seq >= @p1"
    p = [*params(), {"name": "@p1", "value": 3}]
    hits = await run_vector_search(cont, "alice", vectors["kayak"], 10, ("content",), where, p,
                                   lambda h: None, decode=decode)
    assert {h.record.id for h in hits} == {"job", "cake", "hike"}


async def test_hybrid_search_carries_every_signals_rank_and_score(container, local_embedder):
    cont, _ = container
    query = local_embedder.embed_sync(["a day on the lake"])[0]
    vector_hits = await run_vector_search(cont, "alice", query, 4, ("content",), WHERE,
                                          params(), lambda h: None, decode=decode)
    text_hits = await run_text_search(cont, "alice", "a day on the lake", 4, WHERE, params(),
                                      lambda h: None, decode=decode)

    async def embedding() -> np.ndarray:
        return query

    hybrid = await run_search(cont, "alice", StoreSearch(query=ALL, k=4, text="a day on the lake",
                                                         vector=embedding(), rrf_k=10),
                              WHERE, params(), lambda h: None, decode=decode)
    found = {h.record.id: h for h in hybrid}
    for name, hits in (("vector", vector_hits), ("text", text_hits)):
        for rank, hit in enumerate(hits, start=1):
            signal = found[hit.record.id].signals[name]
            assert (signal.rank, signal.score) == (rank, pytest.approx(hit.score))
    for hit in hybrid:
        assert hit.score == pytest.approx(sum(1 / (10 + s.rank) for s in hit.signals.values()))
    assert [h.score for h in hybrid] == sorted((h.score for h in hybrid), reverse=True)
    assert "novec" in found and set(found["novec"].signals) == {"text"}

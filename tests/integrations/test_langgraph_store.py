"""AgentMemoryStore is a LangGraph BaseStore on real SQLite files and the real local embedder.

The conformance cases follow LangGraph's own store tests (libs/checkpoint/tests/test_store.py:
namespaces, filters, pagination, re-embedding on update, index=False, edge-case queries),
with every namespace starting with a user id, since that is the partition here.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp, SearchItem

from agent_memory import AsyncMemory, Memory, Settings
from agent_memory.errors import ContentTooLargeError, InvalidInputError, UnknownOptionError
from agent_memory.integrations.langgraph import AgentMemoryStore, collection_of, item_id


@pytest.fixture
def sync_memory(tmp_path, local_embedder):
    with Memory(Settings.load(store=str(tmp_path / "lg.db")), embedder=local_embedder) as mem:
        yield mem


@pytest.fixture
def store(sync_memory) -> AgentMemoryStore:
    return AgentMemoryStore(sync_memory)


ALICE = ("alice", "memories")
FACTS = {
    "diet": "Alice is vegetarian and has not eaten meat in ten years.",
    "pet": "Alice has a beagle called Pixel.",
    "job": "Alice works as a nurse on night shifts at the city hospital.",
    "trip": "Alice is planning a trip to Japan next spring.",
}


async def test_bar_aput_aget_asearch_rank_and_isolation(store):
    assert isinstance(store, BaseStore)
    for key, text in FACTS.items():
        await store.aput(ALICE, key, {"text": text, "source": "chat"})
    await store.aput(("bob", "memories"), "diet", {"text": "Bob eats steak and pork every day."})
    got = await store.aget(ALICE, "diet")
    assert got.value == {"text": FACTS["diet"], "source": "chat"}
    assert (got.namespace, got.key) == (ALICE, "diet")
    for query, key in [("What food does she avoid?", "diet"),
                       ("What is the name of her dog?", "pet"),
                       ("Where is she going on holiday?", "trip"),
                       ("What is her profession?", "job")]:
        hits = await store.asearch(ALICE, query=query, limit=4)
        assert hits[0].key == key, (query, [h.key for h in hits])
        assert all(isinstance(h, SearchItem) and h.score is not None for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # bob's record shares the collection name and matches "meat" / "steak" best: never returned
    for query in ("steak and pork", "who eats meat every day?"):
        assert all(h.namespace[0] == "alice" for h in await store.asearch(("alice",), query=query))
    assert await store.aget(("bob", "memories"), "pet") is None
    assert [i.key for i in await store.asearch(("bob",))] == ["diet"]


def test_sync_round_trip_timestamps_and_record(store, sync_memory):
    value = {"text": "Prefers tea — green, no sugar.", "tags": ["drinks", "🍵"],
             "nested": {"level": 2, "ok": True, "none": None}, "score": 4.5}
    store.put(ALICE, "tea", value)
    first = store.get(ALICE, "tea")
    assert first.value == value
    assert first.created_at == first.updated_at
    record = sync_memory.get_memories("alice", kinds=["fact"])[0]
    assert record.id == item_id(ALICE, "tea") and record.collection == "memories"
    assert record.content == value["text"]
    assert record.created_at == first.created_at
    store.put(ALICE, "tea", {"text": "Switched to coffee."})
    second = store.get(ALICE, "tea")
    assert second.value == {"text": "Switched to coffee."}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert len(sync_memory.get_memories("alice", kinds=["fact"])) == 1
    # the item is a fact of the collection: agents recalling from it see it ...
    recalled = sync_memory.recall("alice", "coffee", collections=["memories"])
    assert [m.record.id for m in recalled.memories] == [item_id(ALICE, "tea")]
    # ... while other facts of that collection never come back as items
    sync_memory.add_memories("alice", [{"content": "Drinks coffee at night.",
                                        "collection": "memories"}])
    assert [i.key for i in store.search(ALICE, query="coffee")] == ["tea"]
    assert [i.key for i in store.search(ALICE)] == ["tea"]
    store.delete(ALICE, "tea")
    assert store.get(ALICE, "tea") is None
    assert [r.content for r in sync_memory.get_memories("alice")] == ["Drinks coffee at night."]


def test_item_text_from_fields_index_and_json(sync_memory):
    store = AgentMemoryStore(sync_memory, fields=["profile.summary"])
    store.put(ALICE, "p", {"profile": {"summary": "Runs marathons."}, "text": "ignored"})
    store.put(ALICE, "q", {"notes": [{"body": "Likes jazz."}, {"body": "Plays piano."}]},
              index=["notes[*].body"])
    plain = AgentMemoryStore(sync_memory)
    plain.put(("alice", "raw"), "r", {"count": 3})
    contents = {r.id: r.content for r in sync_memory.get_memories("alice")}
    assert contents[item_id(ALICE, "p")] == "Runs marathons."
    assert contents[item_id(ALICE, "q")] == "Likes jazz.\nPlays piano."
    assert contents[item_id(("alice", "raw"), "r")] == '{"count": 3}'
    assert store.search(ALICE, query="piano music")[0].key == "q"
    assert plain.search(("alice", "raw"), query="count")[0].score is not None  # JSON indexed
    store.put(ALICE, "none", {"other": "Sings in a choir."}, index=["missing"])
    assert store.search(ALICE, query="choir singing")[-1].key == "none"  # nothing to index
    assert store.search(ALICE, query="choir singing")[-1].score is None


def test_update_re_embeds_and_index_false_is_never_matched(store, sync_memory):
    store.put(("alice", "test"), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("alice", "test"), "doc2", {"text": "something about dogs"})
    store.put(("alice", "test"), "doc3", {"text": "text about birds"})
    store.put(("alice", "test"), "doc5", {"text": "a striped zebra at the zoo"})
    assert store.search(("alice", "test"), query="Zany Xerxes")[0].key == "doc1"
    store.put(("alice", "test"), "doc1", {"text": "new text about dogs"})
    assert store.search(("alice", "test"), query="Zany zebra Xerxes")[0].key == "doc5"
    assert store.search(("alice", "test"), query="new text about dogs")[0].key == "doc1"
    store.put(("alice", "test"), "doc4", {"text": "new text about dogs"}, index=False)
    assert "doc4" not in [r.key for r in store.search(("alice", "test"),
                                                      query="new text about dogs", limit=4)]
    everything = store.search(("alice", "test"), query="new text about dogs", limit=10)
    assert everything[-1].key == "doc4" and everything[-1].score is None
    assert store.get(("alice", "test"), "doc4").value == {"text": "new text about dogs"}
    indexed = sync_memory.aio.store  # the raw record: no vector, nothing full-text indexed
    rows = sync_memory._loop.call(indexed.indexed("alice", [item_id(("alice", "test"), "doc4")]))
    assert rows[0].vectors == {} and not rows[0].text.strip()
    store.put(("alice", "test"), "doc4", {"text": "new text about dogs"})  # now indexed
    assert store.search(("alice", "test"), query="new text about dogs")[-1].score is not None


DOCS = [("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5})]


async def test_search_filters(store):
    for key, value in DOCS:
        await store.aput(("alice", "test"), key, value)
    ns = ("alice", "test")
    assert [r.key for r in await store.asearch(ns, query="apple", filter={"color": "red"})
            ][:1] == ["doc1"]
    assert len(await store.asearch(ns, query="car", filter={"color": "red"})) == 2
    assert (await store.asearch(ns, query="car", filter={"color": "red"}))[0].key == "doc2"
    over = await store.asearch(ns, query="blue vehicle", filter={"score": {"$gt": 3.2}})
    assert sorted(r.key for r in over) == ["doc1", "doc3", "doc4"] and over[0].key == "doc4"
    both = await store.asearch(ns, query="apple", filter={"score": {"$gte": 4.0},
                                                          "color": "green"})
    assert [r.key for r in both] == ["doc3"]
    assert [r.key for r in await store.asearch(ns, filter={"color": {"$ne": "red"}})] == [
        "doc4", "doc3"]  # no query: newest update first
    with pytest.raises(UnknownOptionError):
        await store.asearch(ns, filter={"score": {"$near": 3}})


async def test_pagination_and_edge_case_queries(store):
    ns = ("alice", "test")
    for i in range(5):
        await store.aput(ns, f"doc{i}", {"text": f"test document number {i}"})
    page1 = await store.asearch(ns, query="test", limit=2)
    page2 = await store.asearch(ns, query="test", limit=2, offset=2)
    assert len(page1) == len(page2) == 2
    assert not {r.key for r in page1} & {r.key for r in page2}
    assert len(await store.asearch(ns, query="test", limit=10)) == 5
    await store.aput(("alice", "one"), "doc1", {"text": "test document"})
    for query in ("", None, "test " * 100, "test!@#$%^&*()"):
        assert len(await store.asearch(("alice", "one"), query=query)) == 1


NAMESPACES = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
              ("a", "c", "f"), ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"),
              ("admin", "users", "789")]


def test_list_namespaces(store):
    for i, ns in enumerate(NAMESPACES):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    assert store.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"),
                                                    ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"),
                                                                   ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == [("a", "b", "c"),
                                                                 ("a", "b", "d", "e")]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == [("a", "b", "d", "i"),
                                                                  ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("*", "f")) == [("a", "b", "f"), ("a", "c", "f"),
                                                        ("b", "a", "f")]
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]
    assert store.list_namespaces(max_depth=2) == sorted(
        {ns[:2] for ns in NAMESPACES})
    assert sorted(store.list_namespaces()) == sorted(NAMESPACES)
    store.put(("solo",), "k", {"data": 1})  # a namespace of the user alone
    assert store.list_namespaces(prefix=("solo",)) == [("solo",)]
    assert store.get(("solo",), "k").value == {"data": 1}
    assert collection_of(("solo",)) == "."


async def test_bad_namespaces_and_values_change_nothing(store, sync_memory):
    doc = {"text": "x"}
    for ns in [(), ("alice", "thing.about"), ("alice", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):  # LangGraph's own checks
            store.put(ns, "k", doc)
        with pytest.raises(InvalidNamespaceError):
            await store.aput(ns, "k", doc)
    for ns in [(" alice", "memories"), ("al\tice",)]:  # not a user id: both error types
        with pytest.raises(InvalidNamespaceError):
            store.put(ns, "k", doc)
        with pytest.raises(InvalidInputError):
            await store.aput(ns, "k", doc)
    with pytest.raises(InvalidInputError):
        await store.abatch([PutOp((), "bar", doc)])  # past the public API's checks
    with pytest.raises(InvalidInputError):
        store.search(())  # a search never spans users
    with pytest.raises(InvalidInputError):
        store.put(ALICE, "k", {"when": object()})
    with pytest.raises(ContentTooLargeError):
        store.put(ALICE, "k", {"text": "x" * (sync_memory.settings.max_content_chars + 1)})
    with pytest.raises(InvalidInputError):
        store.put(ALICE, "", doc)
    with pytest.raises(NotImplementedError):
        store.put(ALICE, "k", doc, ttl=5)
    await store.aput(("foo", "langgraph", "foo"), "bar", doc)  # only the root is reserved
    assert (await store.aget(("foo", "langgraph", "foo"), "bar")).value == doc
    assert store.list_namespaces() == [("foo", "langgraph", "foo")]


async def test_concurrent_batches_and_the_loop_keeps_running(store):
    docs = [(f"doc{i}", {"text": f"{c} {thing}", "color": c, "index": i})
            for i, (c, thing) in enumerate(zip(["red", "blue", "green", "yellow", "purple"] * 6,
                                               ["apple", "car", "house", "book", "phone"] * 6,
                                               strict=True))]
    ns = ("alice", "test")
    await asyncio.gather(*[store.aput(ns, k, v) for k, v in docs],
                         *[store.adelete(ns, k) for k, _ in docs[:10]])
    await asyncio.gather(*[store.aput(ns, k, v) for k, v in docs[:10]],
                         store.aput(ns, "doc0", {"text": "red apple", "color": "red", "index": 0}))
    ticks = 0
    done = False

    async def ticker():
        nonlocal ticks
        while not done:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    results = await asyncio.gather(
        store.asearch(ns, query="apple", filter={"color": "red"}),
        store.asearch(ns, query="house", filter={"index": {"$gt": 25}}),
        store.asearch(ns, query="phone", filter={"index": {"$lte": 10}}))
    done = True
    await task
    assert ticks > 1  # the caller's loop ran while the store worked on its own thread
    assert results[0][0].value["color"] == "red" and all(
        r.value["color"] == "red" for r in results[0])
    assert results[1] and all(r.value["index"] > 25 for r in results[1])
    assert results[2][0].value["text"] == "purple phone"
    assert len(await store.asearch(ns, limit=100)) == 30


async def test_async_memory_client(tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "a.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        store = AgentMemoryStore(memory)
        await store.aput(ALICE, "pet", {"text": FACTS["pet"]})
        await store.aput(ALICE, "job", {"text": FACTS["job"]})
        assert (await store.asearch(ALICE, query="her dog"))[0].key == "pet"
        with pytest.raises(InvalidInputError):  # sync from inside the client's own loop
            store.get(ALICE, "pet")
        # from a worker thread while the loop runs, the sync API works
        item = await asyncio.to_thread(store.get, ALICE, "pet")
        assert item.value == {"text": FACTS["pet"]}


def test_user_at_another_position(sync_memory):
    store = AgentMemoryStore(sync_memory, user_index=1)
    store.put(("memories", "alice"), "pet", {"content": FACTS["pet"]})
    store.put(("memories", "bob"), "pet", {"content": "Bob has a cat called Miso."})
    store.put(("memories", "alice", "work"), "job", {"content": FACTS["job"]})
    assert [r.collection for r in sync_memory.get_memories("alice")] == ["memories",
                                                                        "memories.work"]
    assert [r.content for r in sync_memory.get_memories("bob")] == ["Bob has a cat called Miso."]
    hits = store.search(("memories", "alice"), query="her pet's name")
    assert [h.key for h in hits] == ["pet", "job"]
    assert hits[0].value == {"content": FACTS["pet"]}
    assert store.list_namespaces(prefix=("memories", "alice")) == [
        ("memories", "alice"), ("memories", "alice", "work")]
    with pytest.raises(InvalidInputError):
        store.search(("memories",), query="pets")  # no user: refused, never all users
    with pytest.raises(InvalidInputError):
        AgentMemoryStore(sync_memory, user_index=-1)


async def test_a_filter_keeping_few_items_still_gets_the_best_of_them(store):
    ns = ("alice", "notes")
    topics = ["gardening tomatoes", "filing taxes", "watching football"]
    await store.abatch([PutOp(ns, f"n{i}", {"text": f"Note {i}: {topics[i % 3]}.", "i": i})
                        for i in range(60)])
    full = await store.asearch(ns, query="growing vegetables", limit=60)
    best = [r.key for r in full if r.value["i"] >= 54][:2]
    got = await store.asearch(ns, query="growing vegetables", limit=2,
                              filter={"i": {"$gte": 54}})
    assert [r.key for r in got] == best
    assert all(r.score is not None for r in got)

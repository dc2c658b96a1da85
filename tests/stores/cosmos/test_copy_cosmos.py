"""``copy_memory`` between SQLite and Cosmos DB (the local test server), both ways: a LoCoMo-built
SQLite store goes up to Cosmos DB and back down to a new SQLite file with every record, index
text and vector bit for bit, the job-queue state with it, the same search hits, and a second
run that writes nothing."""

from __future__ import annotations

import shutil

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.copy import copy_memory
from agent_memory.jobs import JobState, queue_for
from agent_memory.stores.base import RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.dataset
EVERYTHING = RecordQuery(include_superseded=True)


async def dump(store, users) -> dict[str, tuple]:
    """(user, id) -> (record without etag, index text, {field: float32 bytes})."""
    out = {}
    for user in users:
        ids = [r.id for r in await store.list(user, EVERYTHING)]
        for item in await store.indexed(user, ids):
            out[(user, item.record.id)] = (
                item.record.model_copy(update={"etag": None}), item.index_text,
                {k: v.tobytes() for k, v in item.vectors.items()})
    return out


async def test_sqlite_to_cosmos_and_back(locomo_store, tmp_path, cosmos_factory,
                                         local_embedder):
    source = tmp_path / "source.db"
    shutil.copy(locomo_store, source)
    src, cosmos = SQLiteStore(source, vector_index="exact"), cosmos_factory()
    try:
        up = await copy_memory(src, cosmos)
        assert up.written > 0 and up.job_queue is None and up.counters > 0
        users = await src.users()
        assert await cosmos.users() == users
        assert await dump(cosmos, users) == await dump(src, users)
        for user in users:  # thresholds keep counting where they were
            sq, cq = queue_for(src), queue_for(cosmos)
            open_jobs = [JobState.QUEUED, JobState.RUNNING]
            assert [j.key for j in await cq.jobs(user, open_jobs)] == \
                [j.key for j in await sq.jobs(user, open_jobs)]
            assert [(c.thread_id, c.seen) for c in await cq.counters(user, [None])] == \
                [(c.thread_id, c.seen) for c in await sq.counters(user, [None])]

        again = await copy_memory(src, cosmos)
        assert again.written == 0 and again.unchanged == up.copied

        down = SQLiteStore(tmp_path / "down.db", vector_index="exact")
        try:
            back = await copy_memory(cosmos, down)
            assert back.copied == up.copied
            assert await dump(down, users) == await dump(src, users)
        finally:
            await down.close()
    finally:
        await src.close()

    # The same search on the source file and on Cosmos DB: the same top records by vector and
    # by text; hybrid search ranks a pool of 50 per signal, where the two full-text engines'
    # tails differ (Cosmos DB's analyzer stems plurals), so its top 5 only mostly agree.
    settings = Settings.load(store=str(source), vector_index="exact")
    async with (AsyncMemory.open(settings, embedder=local_embedder) as a,
                AsyncMemory.open(settings, embedder=local_embedder, store=cosmos_factory()) as b):
        for mode in ("vector", "text", "hybrid"):
            question = "what did they talk about at the support group?"
            ha = await a.search(users[0], question, mode=mode, k=5)
            hb = await b.search(users[0], question, mode=mode, k=5)
            ids_a, ids_b = [h.record.id for h in ha], [h.record.id for h in hb]
            if mode == "hybrid":
                assert len(set(ids_a) & set(ids_b)) >= 3, (ids_a, ids_b)
            else:
                assert ids_b == ids_a and ids_a
    await cosmos.close()

"""Copying memory between stores (agent_memory.copy) on real SQLite files built from LoCoMo
with the real local embedder."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

import numpy as np
import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.copy import copy_memory, store_identity
from agent_memory.datasets.locomo import load_locomo
from agent_memory.embedders.base import Embedder
from agent_memory.errors import (
    ConfigError,
    ConflictError,
    EmbeddingMismatchError,
    InvalidNumberError,
    InvalidScopeError,
    NotAStoreError,
    RecordNotFoundError,
    StoreError,
)
from agent_memory.jobs import JobKind, JobState, queue_for
from agent_memory.stores.base import Capability, Indexed, RecordQuery
from agent_memory.stores.sqlite import SQLiteStore

EVERYTHING = RecordQuery(include_superseded=True)


def store(path) -> SQLiteStore:
    return SQLiteStore(path, vector_index="exact")


async def copy(src_path, dst_path, **kw):
    src, dst = kw.pop("src", None) or store(src_path), kw.pop("dst", None) or store(dst_path)
    try:
        return await copy_memory(src, dst, **kw)
    finally:
        await src.close()
        await dst.close()


async def contents(path, user: str, spec=None) -> dict[str, tuple]:
    """id -> (record without etag, etag, index text, {field: float32 bytes})."""
    s = store(path)
    await s.open(spec or await s.recorded_embedding())
    try:
        ids = [r.id for r in await s.list(user, EVERYTHING)]
        return {i.record.id: (i.record.model_copy(update={"etag": None}), i.record.etag,
                              i.index_text, {k: v.tobytes() for k, v in i.vectors.items()})
                for i in await s.indexed(user, ids)}
    finally:
        await s.close()


def assert_same_records(a: dict[str, tuple], b: dict[str, tuple]) -> None:
    assert sorted(a) == sorted(b) and a
    for rid, (record, etag, text, vectors) in a.items():
        other = b[rid]
        assert other[0] == record and other[2] == text
        assert other[3] == vectors  # bit-identical, every field
        assert other[1] and other[1] != etag  # the destination's own version


@pytest.fixture
def source(locomo_store, tmp_path):
    path = tmp_path / "source.db"
    shutil.copy(locomo_store, path)
    return path


@pytest.fixture
def users(locomo_path) -> list[str]:
    return [s.sample_id for s in load_locomo(locomo_path)[:2]]


async def test_copy_one_user_gives_equal_records_and_vectors(source, tmp_path, users):
    dst = tmp_path / "dst.db"
    report = await copy(source, dst, users=[users[0]], batch=37)
    assert report.users == [users[0]] and not report.reembedded
    expected = await contents(source, users[0])
    assert_same_records(expected, await contents(dst, users[0]))
    kinds = {r.kind.value for r, *_ in expected.values()}
    assert kinds == {"turn", "summary", "fact", "profile", "interaction"}
    assert report.copied == {k: sum(r.kind.value == k for r, *_ in expected.values())
                             for k in kinds}
    assert len(expected["interaction-1"][3]) == 2  # content and summary vectors
    d = store(dst)
    await d.open(report.target)
    try:
        assert await d.users() == [users[0]]  # the other user was not copied
    finally:
        await d.close()


async def test_copy_all_users_then_search_gives_the_same_hits(
    source, tmp_path, users, local_embedder, locomo_path
):
    dst = tmp_path / "dst.db"
    report = await copy(source, dst)
    assert report.users == users
    for user in users:
        assert_same_records(await contents(source, user), await contents(dst, user))
    questions = [q.question for q in load_locomo(locomo_path)[0].questions[:8]]
    hits = {}
    for path in (source, dst):
        async with AsyncMemory.open(Settings.load(store=str(path), vector_index="exact"),
                                    embedder=local_embedder) as memory:
            # float32 vectors: scores agree to about 7 significant digits, whatever row a
            # record lands on in the copy's vector matrix
            hits[path] = [[(h.record.id, round(h.score, 6)) for h in
                           await memory.search(users[0], q, mode=mode, k=10)]
                          for q in questions for mode in ("hybrid", "vector", "text")]
    assert hits[source] == hits[dst] and any(hits[dst])


async def test_copying_again_writes_nothing(source, tmp_path, users):
    dst = tmp_path / "dst.db"
    first = await copy(source, dst)
    before = {u: await contents(dst, u) for u in users}
    again = await copy(source, dst)
    assert again.written == 0 and again.unchanged == first.copied
    assert (again.counters, again.marks, again.jobs) == (0, 0, 0)
    after = {u: await contents(dst, u) for u in users}
    assert after == before  # etags included: not even rewritten


async def test_job_queue_state_is_copied(source, tmp_path, users):
    dst = tmp_path / "dst.db"
    report = await copy(source, dst)
    assert report.job_queue is None
    src_store, dst_store = store(source), store(dst)
    await src_store.open(report.source)
    await dst_store.open(report.target)
    try:
        sq, dq = queue_for(src_store), queue_for(dst_store)
        for user in users:
            threads = sorted({r.thread_id for r in await src_store.list(user, EVERYTHING)
                              if r.thread_id})
            scopes = [*threads, None]
            theirs = [(c.thread_id, c.seen) for c in await sq.counters(user, scopes)]
            assert theirs == [(c.thread_id, c.seen) for c in await dq.counters(user, scopes)]
            assert sum(seen for _, seen in theirs) > 0
            open_states = [JobState.QUEUED, JobState.RUNNING]
            assert [j.key for j in await sq.jobs(user, open_states)] == [
                j.key for j in await dq.jobs(user, open_states)]
            for scope in scopes:
                for kind in JobKind:
                    assert await sq.get_mark(user, scope, kind) == await dq.get_mark(
                        user, scope, kind)
        assert report.marks == 1 and report.counters > 0 and report.jobs > 0
    finally:
        await src_store.close()
        await dst_store.close()


class FailingStore(SQLiteStore):
    """A real SQLite store whose writes fail after ``allowed`` batches (a crash mid-copy)."""

    def __init__(self, path, allowed: int) -> None:
        super().__init__(path, vector_index="exact")
        self.allowed = allowed

    async def put(self, items: Sequence[Indexed], *, overwrite: bool = False):
        if self.allowed <= 0:
            raise StoreError("connection lost")
        self.allowed -= 1
        return await super().put(items, overwrite=overwrite)


async def test_an_interrupted_copy_resumes_where_it_stopped(source, tmp_path, users):
    dst = tmp_path / "dst.db"
    with pytest.raises(StoreError, match="connection lost"):
        await copy(source, dst, batch=25, dst=FailingStore(dst, allowed=3))
    partial = {u: await contents(dst, u) for u in users[:1]}
    assert len(partial[users[0]]) == 75  # three whole batches, nothing of the fourth
    report = await copy(source, dst, batch=25)
    assert sum(report.unchanged.values()) == 75
    for user in users:
        assert_same_records(await contents(source, user), await contents(dst, user))
    resumed = await contents(dst, users[0])
    assert all(resumed[rid][1] == partial[users[0]][rid][1] for rid in partial[users[0]])


class TruncatedEmbedder(Embedder):
    """Another real embedding model: all-MiniLM-L6-v2 cut to its first 128 dimensions and
    L2-normalised again (as Matryoshka-style truncation does)."""

    dim = 128

    def __init__(self, local: Embedder) -> None:
        self.local = local
        self.name = f"{local.name}@128"

    def embed_sync(self, texts):
        full = self.local.embed_sync(texts)[:, : self.dim]
        return (full / np.linalg.norm(full, axis=1, keepdims=True)).astype(np.float32)


async def test_spec_mismatch_reembeds_with_the_destination_embedder(
    source, tmp_path, users, local_embedder
):
    short, back = tmp_path / "short.db", tmp_path / "back.db"
    truncated = TruncatedEmbedder(local_embedder)
    report = await copy(source, short, users=[users[0]], embedder=truncated)
    assert report.reembedded and report.target == truncated.spec
    assert report.vectors_dropped == 0
    original = await contents(source, users[0])
    cut = await contents(short, users[0])
    assert sorted(cut) == sorted(original)
    for rid, (record, _, text, vectors) in original.items():
        assert cut[rid][0] == record and cut[rid][2] == text and cut[rid][3].keys() == vectors.keys()
        for name, blob in vectors.items():
            full = np.frombuffer(blob, np.float32)[:128]
            np.testing.assert_allclose(np.frombuffer(cut[rid][3][name], np.float32),
                                       full / np.linalg.norm(full), atol=1e-4)

    # and back: the local model's vectors are computed again from the stored index text
    report = await copy(short, back, embedder=local_embedder)
    assert report.reembedded and report.target == local_embedder.spec
    restored = await contents(back, users[0])
    for rid, (_, _, _, vectors) in original.items():
        for name, blob in vectors.items():
            cosine = float(np.frombuffer(blob, np.float32) @ np.frombuffer(
                restored[rid][3][name], np.float32))
            assert cosine > 0.9999, (rid, name, cosine)


async def test_bad_input_is_refused_and_changes_nothing(source, tmp_path, users,
                                                        local_embedder):
    dst = tmp_path / "dst.db"
    with pytest.raises(RecordNotFoundError, match="'nobody'"):
        await copy(source, dst, users=[users[0], "nobody"])
    with pytest.raises(InvalidScopeError):
        await copy(source, dst, users=[" " + users[0]])
    with pytest.raises(InvalidNumberError):
        await copy(source, dst, batch=0)
    with pytest.raises(NotAStoreError):
        await copy(tmp_path / "missing.db", dst)
    assert not dst.exists() and not (tmp_path / "missing.db").exists()
    s = store(source)
    with pytest.raises(ConfigError, match="same store"):
        await copy_memory(s, s)
    await s.close()
    await copy(source, dst, users=[users[0]])
    held = await contents(dst, users[0])
    with pytest.raises(EmbeddingMismatchError):  # the destination holds 384-dim vectors
        await copy(source, dst, embedder=TruncatedEmbedder(local_embedder))
    assert await contents(dst, users[0]) == held


def test_store_identity_names_one_store_one_way(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert store_identity("a.db") == store_identity(f"sqlite:{tmp_path}/a.db")
    assert store_identity("a.db") != store_identity("b.db")
    assert store_identity("cosmos://Acct.documents.azure.com/") == store_identity(
        "cosmos+https://acct.documents.azure.com?key=abc")
    assert store_identity("cosmos://acct/db1") != store_identity("cosmos://acct/db2")
    for bad in ("", "  ", "postgres://db/x"):
        with pytest.raises(ConfigError):
            store_identity(bad)


async def test_a_store_without_export_is_refused(source, tmp_path):
    class NoExport(SQLiteStore):
        capabilities = SQLiteStore.capabilities - {Capability.EXPORT}

    with pytest.raises(ConfigError, match="Capability.EXPORT"):
        await copy(source, tmp_path / "dst.db", src=NoExport(source))
    assert not (tmp_path / "dst.db").exists()


async def test_a_changed_destination_record_is_replaced_by_the_source_copy(source, tmp_path,
                                                                           users):
    dst = tmp_path / "dst.db"
    await copy(source, dst, users=[users[0]])
    d = store(dst)
    await d.open(await d.recorded_embedding())
    try:
        (fact,) = await d.list(users[0], RecordQuery(kinds=frozenset({"fact"}), limit=1))
        await d.update([fact.model_copy(update={"content": "edited in the destination"})])
    finally:
        await d.close()
    report = await copy(source, dst, users=[users[0]])
    assert report.copied == {"fact": 1}
    assert_same_records(await contents(source, users[0]), await contents(dst, users[0]))


class RacedStore(SQLiteStore):
    """A real SQLite store where another client edits a record the copy is about to replace,
    right after the copy read it from the destination (a concurrent writer)."""

    async def get(self, user_id, ids):
        found = await super().get(user_id, ids)
        stale = [r for r in found if r.content.startswith("stale ")]
        if stale and not getattr(self, "raced", False):
            self.raced = True
            other = store(self.path)
            await other.open(self.embedding)
            try:
                await other.update([stale[0].model_copy(update={"content": "concurrent edit"})])
            finally:
                await other.close()
        return found


async def test_a_concurrent_destination_write_is_never_overwritten_unseen(source, tmp_path,
                                                                          users):
    dst = tmp_path / "dst.db"
    await copy(source, dst, users=[users[0]])
    d = store(dst)
    await d.open(await d.recorded_embedding())
    try:
        facts = await d.list(users[0], RecordQuery(kinds=frozenset({"fact"})))
        await d.update([f.model_copy(update={"content": f"stale {f.id}"}) for f in facts])
    finally:
        await d.close()
    with pytest.raises(ConflictError):
        await copy(source, dst, users=[users[0]], batch=500, dst=RacedStore(dst, vector_index="exact"))
    held = await contents(dst, users[0])
    assert sum(r.content.startswith("stale ") for r, *_ in held.values()) == len(facts) - 1
    assert sum(r.content == "concurrent edit" for r, *_ in held.values()) == 1
    await copy(source, dst, users=[users[0]])  # run again: the source's copy wins, knowingly
    assert_same_records(await contents(source, users[0]), await contents(dst, users[0]))


async def test_a_copy_keeps_valid_time_and_as_of_reads(tmp_path) -> None:
    """Facts retired by a contradiction keep their valid window in the destination, so the
    destination answers ``as_of`` reads as the source does."""
    from agent_memory.stores.base import EmbeddingSpec
    from agent_memory.testing.temporal import EXPECTED, residence_corpus

    src_path, dst_path = tmp_path / "src.db", tmp_path / "dst.db"
    s = store(src_path)
    await s.open(EmbeddingSpec(model="test:hand-built", dim=4))
    await s.put(residence_corpus())
    await s.close()
    await copy(src_path, dst_path)
    assert_same_records(await contents(src_path, "alice"), await contents(dst_path, "alice"))
    d = store(dst_path)
    await d.open(EmbeddingSpec(model="test:hand-built", dim=4))
    try:
        for moment, expected in EXPECTED.items():
            assert {r.id for r in await d.list("alice", RecordQuery(as_of=moment))} == expected
    finally:
        await d.close()

"""Copying memory between stores (``agent-memory copy SRC DST``): every record of a user, or of
every user, with its index text and vectors, and the user's job-queue counters and marks.

Works for any two :class:`~agent_memory.stores.base.MemoryStore` backends that declare
:attr:`~agent_memory.stores.base.Capability.EXPORT` (SQLite -> SQLite, SQLite -> Cosmos DB and
back). What a copy does, per user, in the source's list order:

1. Page through the source (``page``, ``batch`` records at a time, superseded facts included).
2. Read the same ids from the destination and keep the records that are missing there or
   differ (any field but ``etag``, which is each store's own).
3. Read those back with their index text and vectors (``indexed``) and write them with
   ``put``: atomic per batch, so a batch is in the destination whole or not at all, and
   conditional on step 2 (a record the destination held is replaced only if its version is
   still the one read, a missing one is created only if still missing), so a concurrent
   writer of the destination is never overwritten unseen: the batch fails with
   :class:`~agent_memory.errors.ConflictError` and a re-run copies it. Vectors are copied bit for bit when the two stores' :class:`EmbeddingSpec` are
   equal; otherwise they are computed again with the destination's embedder (the report says
   so, ``reembedded``).
4. After the user's last page: raise the destination's turn counters and step watermarks to
   the source's and enqueue the source's unfinished jobs (same deterministic keys), so the
   every-N thresholds keep counting where they were and no crossing is lost. Skipped, with
   the reason in the report, when either store has no job queue.

Idempotent and resumable without a checkpoint: the destination is its own progress marker.
Step 2 skips every record already copied, so a second run writes nothing (the destination's
etags stay as they are), and a run interrupted after N batches resumes by reading the N
batches again (one source page and one destination ``get`` each, no write, no embedding) and
writing from batch N + 1. Counters and marks only ever move up, jobs are keyed, so step 4 is
idempotent too. A copy never deletes: records the destination holds and the source does not
are left alone.

A turn keeps its ``seq``; if the destination already holds another turn at that position of
the thread, the batch fails with :class:`~agent_memory.errors.ConflictError` and nothing of it
is written. Bindings of agents to collections are not copied (the contract has no way to list
a user's agents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from pydantic import BaseModel, Field

from .embedders.base import Embedder
from .errors import (
    ConfigError,
    EmbeddingMismatchError,
    InvalidNumberError,
    NotAStoreError,
    RecordNotFoundError,
)
from .indexing import vector_texts
from .models import MemoryRecord, require_scope
from .stores.base import CONTENT, Capability, EmbeddingSpec, Indexed, MemoryStore, RecordQuery

DEFAULT_BATCH = 100
"""Records per batch: the most operations one Azure Cosmos DB transactional batch takes, so a
batch stays one atomic write on either backend."""

MAX_BATCH = 5_000
"""Largest ``batch`` accepted."""

COSMOS_SCHEMES = ("cosmos", "cosmos+https", "cosmos+http", "azure-cosmos")
"""Spec prefixes of the Azure Cosmos DB store (as :func:`~agent_memory.stores.open_store`)."""

KNOWN_SCHEMES = ("sqlite", *COSMOS_SCHEMES)
"""Store spec prefixes :func:`copy_stores` accepts (a bare path is an SQLite file)."""


class CopyReport(BaseModel):
    """What a copy did.

    Attributes:
        users: the users copied, in order.
        source / target: the two stores' embedding specs.
        reembedded: vectors were computed again with the destination's embedder (the specs
            differ); otherwise they were copied bit for bit.
        copied: records written, per kind (``{"turn": 412, "fact": 30}``).
        unchanged: records already identical in the destination, per kind (skipped).
        vectors_dropped: vector fields that could not be re-embedded (a field the indexing
            rules do not know); 0 when vectors are copied.
        counters: turn counters raised in the destination.
        marks: step watermarks raised in the destination.
        jobs: unfinished jobs enqueued in the destination.
        job_queue: why counters, marks and jobs were not copied, or ``None`` when they were.
    """

    users: list[str] = Field(default_factory=list)
    source: EmbeddingSpec
    target: EmbeddingSpec
    reembedded: bool = False
    copied: dict[str, int] = Field(default_factory=dict)
    unchanged: dict[str, int] = Field(default_factory=dict)
    vectors_dropped: int = 0
    counters: int = 0
    marks: int = 0
    jobs: int = 0
    job_queue: str | None = None

    @property
    def written(self) -> int:
        """Records written in all."""
        return sum(self.copied.values())


class CopyProgress(Protocol):
    """Receives a copy's progress (the CLI draws a progress bar from it)."""

    def start(self, totals: Mapping[str, int]) -> None:
        """Called once before copying: user id -> records the source holds."""

    def advance(self, user_id: str, records: int) -> None:
        """Called after each batch: ``records`` of ``user_id`` are now in the destination."""


def store_identity(spec: str) -> str:
    """A canonical name of the store a spec names, to tell two specs of one store apart from
    two stores (``./a.db`` and ``sqlite:/abs/a.db`` are the same file).

    Raises:
        ConfigError: the spec is empty or names an unknown backend (``scheme://...``).
    """
    spec = spec.strip() if isinstance(spec, str) else ""
    if not spec:
        raise ConfigError("store spec is empty")
    backend, sep, rest = spec.partition(":")
    if rest.startswith("//") and backend.lower() not in KNOWN_SCHEMES:
        raise ConfigError(f"unknown store spec {spec!r}: use a file path, sqlite:PATH or "
                          "cosmos://ACCOUNT")
    if backend.lower() in COSMOS_SCHEMES:  # the account and database; the key is not identity
        return "cosmos:" + rest.split("?", 1)[0].strip("/").lower()
    path = rest if backend == "sqlite" and sep else spec
    return "sqlite:" + str(Path(path).expanduser().resolve())


async def copy_memory(
    src: MemoryStore,
    dst: MemoryStore,
    *,
    users: Sequence[str] | None = None,
    batch: int = DEFAULT_BATCH,
    embedder: Embedder | None = None,
    progress: CopyProgress | None = None,
) -> CopyReport:
    """Copy users' records (and job-queue state) from ``src`` to ``dst``; see the module doc.

    Opens both stores (each with the embedding spec its target records; a new destination
    records the source's, or ``embedder``'s when given); the caller closes them.

    Args:
        src / dst: unopened (or already opened) stores declaring ``Capability.EXPORT``.
        users: the users to copy; ``None`` copies every user of the source.
        batch: records per read and atomic write (1 to :data:`MAX_BATCH`).
        embedder: the destination's embedder, used only when the specs differ (default: built
            from the destination's spec with :func:`~agent_memory.embedders.get_embedder`).
        progress: receives totals and per-batch progress.

    Returns:
        What was copied (:class:`CopyReport`).

    Raises:
        ConfigError: ``src`` and ``dst`` are the same object, or a store lacks
            ``Capability.EXPORT``.
        InvalidNumberError: ``batch`` is out of range.
        MissingScopeError: a user id is blank or not a clean string.
        RecordNotFoundError: a requested user has no record in the source (nothing copied).
        NotAStoreError: the source holds no store.
        EmbeddingMismatchError: ``embedder`` does not produce the destination's spec.
        ConflictError: a record of the batch changed in the destination since it was read,
            or a turn's position is taken by another turn there (that batch is not written;
            earlier batches stay, a re-run resumes after them).
    """
    if src is dst:
        raise ConfigError("source and destination are the same store")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise InvalidNumberError(f"batch must be an integer from 1 to {MAX_BATCH}, not {batch!r}")
    for store, role in ((src, "source"), (dst, "destination")):
        if Capability.EXPORT not in store.capabilities:
            raise ConfigError(f"the {role} ({type(store).__name__}) cannot be copied: it lacks "
                              "Capability.EXPORT")
    wanted = None if users is None else list(dict.fromkeys(require_scope(u) for u in users))

    source = await src.recorded_embedding()
    if source is None:
        raise NotAStoreError("the source holds no agent-memory store (nothing to copy)")
    target = await dst.recorded_embedding() or (embedder.spec if embedder else source)
    if embedder is not None and embedder.spec != target:
        raise EmbeddingMismatchError(
            f"the destination holds {target.model!r} ({target.dim} dims) vectors but the "
            f"embedder is {embedder.spec.model!r} ({embedder.spec.dim} dims)")
    await src.open(source)
    report = CopyReport(source=source, target=target, reembedded=source != target)

    if wanted is None:
        wanted = await src.users()
    totals = {u: await src.count(u, RecordQuery(include_superseded=True)) for u in wanted}
    absent = [u for u, n in totals.items() if n == 0]
    if absent:
        raise RecordNotFoundError(
            f"user(s) {', '.join(map(repr, absent))} have no records in the source; nothing "
            "was copied")
    owned = report.reembedded and embedder is None
    if owned:
        from .embedders import get_embedder

        embedder = get_embedder(target.model)
    try:
        if embedder is not None and report.reembedded and embedder.spec != target:
            raise EmbeddingMismatchError(
                f"{target.model!r} gives {embedder.dim}-dimensional vectors but the "
                f"destination holds {target.dim}")
        await dst.open(target)  # only now: bad input above leaves a new destination uncreated
        if progress is not None:
            progress.start(totals)
        from .copy_jobs import JobStateCopier

        jobs = JobStateCopier.between(src, dst)
        report.job_queue = jobs.unavailable
        for user_id in wanted:
            threads = await _copy_user(src, dst, user_id, batch, embedder if report.reembedded
                                       else None, report, progress)
            await jobs.copy_user(user_id, threads, report)
            report.users.append(user_id)
    finally:
        if owned and embedder is not None:
            await embedder.aclose()
    return report


async def _copy_user(src: MemoryStore, dst: MemoryStore, user_id: str, batch: int,
                     embedder: Embedder | None, report: CopyReport,
                     progress: CopyProgress | None) -> list[str]:
    """Copy one user's records, batch by batch; returns the threads they belong to."""
    threads: set[str] = set()
    cursor: str | None = None
    query = RecordQuery(include_superseded=True, limit=batch)
    while True:
        page = await src.page(user_id, query, cursor)
        held = {r.id: r for r in await dst.get(user_id, [r.id for r in page.records])}
        todo = []
        for record in page.records:
            if record.thread_id:
                threads.add(record.thread_id)
            if _same(held.get(record.id), record):
                _count(report.unchanged, record)
            else:
                todo.append(record.id)
        if todo:
            items = await src.indexed(user_id, todo)
            if embedder is not None:
                items = await _reembed(items, embedder, report)
            # Conditional on what was just read: replace the version seen, or create.
            await dst.put([Indexed(i.record.model_copy(update={"etag": _etag(held, i.record)}),
                                   i.index_text, i.vectors) for i in items])
            for item in items:
                _count(report.copied, item.record)
        if progress is not None:
            progress.advance(user_id, len(page.records))
        if page.cursor is None:
            return sorted(threads)
        cursor = page.cursor


def _same(held: MemoryRecord | None, record: MemoryRecord) -> bool:
    """Whether the destination's copy equals the source's record but for its version."""
    return held is not None and held.model_copy(update={"etag": None}) == record.model_copy(
        update={"etag": None})


def _etag(held: Mapping[str, MemoryRecord], record: MemoryRecord) -> str | None:
    """The destination's version of ``record`` (``None``: it does not hold one)."""
    found = held.get(record.id)
    return None if found is None else found.etag


def _count(counts: dict[str, int], record: MemoryRecord) -> None:
    counts[record.kind.value] = counts.get(record.kind.value, 0) + 1


async def _reembed(items: Sequence[Indexed], embedder: Embedder, report: CopyReport
                   ) -> list[Indexed]:
    """The items with every vector field embedded again: ``content`` from the stored index
    text (which already holds a turn's context), other fields from the indexing rules
    (:func:`~agent_memory.indexing.vector_texts`). A record stored without vectors stays
    without; a field the rules do not know is dropped and counted."""
    texts: list[str] = []
    fields: list[list[str]] = []
    for item in items:
        known = vector_texts(item.record)
        known[CONTENT] = item.index_text
        names = [name for name in item.vectors if name in known]
        report.vectors_dropped += len(item.vectors) - len(names)
        fields.append(names)
        texts.extend(known[name] for name in names)
    matrix = await embedder.embed(texts) if texts else np.zeros((0, embedder.dim), np.float32)
    out: list[Indexed] = []
    row = 0
    for item, names in zip(items, fields, strict=True):
        vectors = {name: matrix[row + i] for i, name in enumerate(names)}
        row += len(names)
        out.append(Indexed(item.record, item.index_text, vectors))
    return out


async def copy_stores(
    source: str,
    destination: str,
    *,
    users: Sequence[str] | None = None,
    batch: int = DEFAULT_BATCH,
    embedder: Embedder | None = None,
    progress: CopyProgress | None = None,
    vector_index: str = "pca",
) -> CopyReport:
    """:func:`copy_memory` between two stores named by specs (a file path, ``sqlite:PATH``,
    ``cosmos://ACCOUNT``); both are closed afterwards.

    Raises:
        ConfigError: a spec is empty or names an unknown backend, or both name the same
            store.
        (and everything :func:`copy_memory` raises)
    """
    from .stores import open_store

    if store_identity(source) == store_identity(destination):
        raise ConfigError(f"source and destination are the same store ({source!r})")
    src = open_store(source, vector_index)
    dst = open_store(destination, vector_index)
    try:
        return await copy_memory(src, dst, users=users, batch=batch, embedder=embedder,
                                 progress=progress)
    finally:
        await src.close()
        await dst.close()

"""Exact cosine KNN over one user's vectors, held in memory, with the store's filters.

The SQLite store keeps vectors as float32 blobs; for search it loads a user's whole partition
once into a :class:`VectorIndex` (an ``(n, dim)`` float32 matrix plus parallel arrays of the
columns the :class:`~agent_memory.stores.base.RecordQuery` filters read) and answers queries
with one matrix-vector product and ``argpartition`` (PLATFORM.md: 5-6 ms for 50,000 x 384 on
two cores, against 36-56 ms for sqlite-vec's ``vec0``). Vectors are L2-normalised, so the dot
product is the cosine similarity.

The :class:`VectorCache` keeps one view per user, tagged with the user's version counter from
the database; the store rebuilds a view when the stored counter has moved past it (a write from
another connection) and evicts least-recently-used users beyond a byte budget. Writes through
the store itself are layered onto the cached view (:class:`UserVectors`) instead of forcing a
rebuild, so an agent that stores a turn and then searches does not reload its partition.

Filter semantics mirror the SQL ones in :mod:`.store` exactly (the conformance suite checks
every filter through both paths): strings are encoded as small integer codes per index so every
filter is a vectorised comparison.

A large snapshot may carry a projection onto its leading principal components
(``vector_index="pca"``, the default, :mod:`.projection`) or an approximate graph
(``vector_index="hnsw"``, :mod:`.ann`); either proposes candidates, which are then re-scored
and filtered exactly here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any

import numpy as np

from ...errors import InvalidInputError
from ...models import as_utc
from ..base import RecordQuery
from .kernels import cosines
from .projection import candidate_count

_NONE = -1
"""Code of a null string column, and ``processed`` of a record without the flag."""


class _Codes:
    """Encodes a column of optional strings as int32 codes (``-1`` for null)."""

    def __init__(self, values: Sequence[str | None]) -> None:
        self.lookup: dict[str, int] = {}
        self.codes = np.fromiter(
            (_NONE if v is None else self.lookup.setdefault(v, len(self.lookup)) for v in values),
            dtype=np.int32,
            count=len(values),
        )

    def equal(self, value: str) -> np.ndarray:
        """Mask of rows equal to ``value`` (all False when the value never occurs)."""
        code = self.lookup.get(value)
        if code is None:
            return np.zeros(self.codes.shape, dtype=bool)
        return self.codes == code

    def among(self, values: Iterable[str]) -> np.ndarray:
        """Mask of rows whose value is in ``values`` (a table look-up per row: a tenth of
        ``np.isin``'s time on 100k rows)."""
        table = np.zeros(len(self.lookup) + 1, dtype=bool)  # the last entry: null (code -1)
        table[[self.lookup[v] for v in values if v in self.lookup]] = True
        return table[self.codes]


@dataclass(frozen=True)
class VectorRow:
    """One stored vector with the filter columns of its record (a row of the loading query)."""

    record_id: str
    field: str
    vec: bytes
    kind: str
    thread_id: str | None
    agent_id: str | None
    created_at: float
    seq: int | None
    content_hash: str | None
    category: str | None
    processed: int | None
    superseded_by: str | None
    collection: str | None = None
    valid_from: float | None = None
    valid_until: float | None = None


_ROW_FIELDS = tuple(f.name for f in dataclass_fields(VectorRow))


class VectorIndex:
    """An immutable snapshot of one user's vectors and their records' filter columns.

    Args:
        version: the user's version counter the snapshot was read at.
        dim: vector length (dimensions).
        rows: the user's vectors, as :class:`VectorRow` objects or tuples in its field order,
            the tuples optionally followed by the row's ``vectors.rowid`` (its key in an
            approximate graph, :mod:`.ann`); several rows may share a ``record_id`` (one per
            field).
    """

    def __init__(
        self,
        version: int,
        dim: int,
        rows: Sequence[VectorRow] | Sequence[tuple[Any, ...]],
    ) -> None:
        self.version = version
        self.dim = dim
        n = len(rows)
        if n and isinstance(rows[0], VectorRow):
            rows = [tuple(getattr(r, name) for name in _ROW_FIELDS) for r in rows]
        cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if n else [()] * len(_ROW_FIELDS)
        self.matrix = np.frombuffer(b"".join(cols[2]), dtype="<f4").astype(
            np.float32, copy=False).reshape(n, dim)
        record_codes = _Codes(cols[0])
        self.rec = record_codes.codes  # row -> record ordinal
        self.ids = list(record_codes.lookup)  # record ordinal -> id
        self.id_pos = record_codes.lookup
        self.fields = _Codes(cols[1])
        if len(self.ids) == n:  # one row per record: the columns are per record already
            per = cols
        else:  # one representative row per record (the first; ordinals follow first rows)
            first = np.unique(self.rec, return_index=True)[1].tolist()
            per = [[col[i] for i in first] for col in cols]
        self.kind = _Codes(per[3])
        self.thread = _Codes(per[4])
        self.agent = _Codes(per[5])
        self.created = np.fromiter(per[6], dtype=np.float64, count=len(self.ids))
        self.has_seq = np.fromiter((s is not None for s in per[7]), dtype=bool,
                                   count=len(self.ids))
        self.seq = np.fromiter((_NONE if s is None else s for s in per[7]), dtype=np.int64,
                               count=len(self.ids))
        self.chash = _Codes(per[8])
        self.category = _Codes(per[9])
        self.processed = np.fromiter((_NONE if p is None else p for p in per[10]),
                                     dtype=np.int8, count=len(self.ids))
        self.superseded = np.fromiter((s is not None for s in per[11]), dtype=bool,
                                      count=len(self.ids))
        self.any_superseded = bool(self.superseded.any())
        self.collection = _Codes(per[12])
        # valid time of facts (migration 8): NaN for other kinds, +inf while still valid
        self.valid_from = np.fromiter((np.nan if v is None else v for v in per[13]),
                                      dtype=np.float64, count=len(self.ids))
        self.valid_until = np.fromiter((np.inf if v is None else v for v in per[14]),
                                       dtype=np.float64, count=len(self.ids))
        self.keys: np.ndarray | None = None  # int64 vectors.rowid per row, when given
        if len(cols) > len(_ROW_FIELDS):
            self.keys = np.fromiter(cols[-1], dtype=np.int64, count=n)
        self.ann: Any = None  # an ann.HnswGraph over ``keys``, attached by the store
        self.projection: Any = None  # a projection.Projection of ``matrix``, attached likewise
        self._key_order: np.ndarray | None = None
        self._memo: tuple[bytes, np.ndarray] | None = None

    @property
    def nbytes(self) -> int:
        """Approximate memory held by the snapshot (bytes)."""
        extra = self.projection.nbytes if self.projection is not None else 0
        return int(self.matrix.nbytes + self.rec.nbytes * 3 + len(self.ids) * 120 + extra)

    def record_mask(self, query: RecordQuery) -> np.ndarray | None:
        """Mask over records matching ``query`` (``None``: every record matches)."""
        masks: list[np.ndarray] = []
        if query.updated_after is not None:
            raise InvalidInputError("vector search cannot filter on updated_after")
        if query.embedded is False:  # every record here has vectors
            return np.zeros(len(self.ids), dtype=bool)
        if query.kinds is not None:
            wanted = {str(k) for k in query.kinds}
            present = self.kind.lookup.keys()
            if not wanted & present:  # e.g. derived kinds in a partition of turns only
                return np.zeros(len(self.ids), dtype=bool)
            if not present <= wanted:  # every kind present is wanted: nothing to mask
                masks.append(self.kind.among(wanted))
        if query.ids is not None:
            mask = np.zeros(len(self.ids), dtype=bool)
            mask[[self.id_pos[i] for i in query.ids if i in self.id_pos]] = True
            masks.append(mask)
        if query.thread_id is not None:
            masks.append(self.thread.equal(query.thread_id))
        if query.agent_id is not None:
            masks.append(self.agent.equal(query.agent_id) | (self.agent.codes == _NONE))
        if query.since is not None:
            masks.append(self.created >= as_utc(query.since).timestamp())
        if query.until is not None:
            masks.append(self.created < as_utc(query.until).timestamp())
        if query.after_seq is not None:
            masks.append(self.has_seq & (self.seq > query.after_seq))
        if query.content_hash is not None:
            masks.append(self.chash.equal(query.content_hash))
        if query.content_hashes is not None:
            masks.append(self.chash.among(query.content_hashes))
        if query.categories is not None:
            masks.append(self.category.among(query.categories))
        if query.as_of is not None:
            moment = as_utc(query.as_of).timestamp()
            timeless = np.isnan(self.valid_from)
            masks.append(timeless | ((self.valid_from <= moment) & (moment < self.valid_until)))
            if not query.include_superseded and self.any_superseded:
                masks.append(~self.superseded | np.isfinite(self.valid_until))
        elif not query.include_superseded and self.any_superseded:
            masks.append(~self.superseded)
        if query.processed is not None:
            masks.append(self.processed == int(query.processed))
        if query.collections is not None:
            masks.append(self.collection.among(query.collections))
        if not masks:
            return None
        out = masks[0]
        for mask in masks[1:]:
            out = out & mask
        if out.all():
            return None
        return out

    def _full_scores(self, vector: np.ndarray) -> np.ndarray:
        """``matrix @ vector`` for every row; the last query's product is kept, so the several
        filtered lists of one search (turns, derived records) pay for one product."""
        key = vector.tobytes()
        memo = self._memo
        if memo is not None and memo[0] == key:
            return memo[1]
        scores = cosines(self.matrix, vector)
        self._memo = (key, scores)
        return scores

    def search(
        self,
        vector: np.ndarray,
        query: RecordQuery,
        k: int,
        fields: Sequence[str],
        hidden: np.ndarray | None = None,
    ) -> list[tuple[str, float, str]]:
        """Top ``k`` records by their best cosine over ``fields``, best first.

        Exact unless an approximate graph (:attr:`ann`) or a projection (:attr:`projection`)
        is attached and the filters leave at least a tenth of the rows: then the graph or the
        projected scan proposes candidates, re-scored exactly and filtered exactly (for the
        graph, with a fall-back to the exact product when too few survive).

        Args:
            vector: float32, shape ``(dim,)``, L2-normalised.
            query: filters (``limit`` and ordering are ignored).
            k: number of distinct records wanted.
            fields: vector fields to consider.
            hidden: record ordinals to leave out (records rewritten since the snapshot).

        Returns:
            ``(record_id, cosine, field)`` triples, at most ``k``, each record once.
        """
        wanted = sorted({self.fields.lookup[f] for f in fields if f in self.fields.lookup})
        n = self.matrix.shape[0]
        if k <= 0 or not wanted or n == 0:
            return []
        row_mask = None
        if len(wanted) < len(self.fields.lookup):
            row_mask = np.isin(self.fields.codes, np.asarray(wanted, dtype=np.int32))
        rec_mask = self.record_mask(query)
        if hidden is not None and hidden.size:
            rec_mask = np.ones(len(self.ids), dtype=bool) if rec_mask is None else rec_mask.copy()
            rec_mask[hidden] = False
        if rec_mask is not None:
            by_row = rec_mask[self.rec]
            row_mask = by_row if row_mask is None else row_mask & by_row
        allowed = n if row_mask is None else int(np.count_nonzero(row_mask))
        if allowed == 0:
            return []
        # A record has at most one row per field, so the top k * len(wanted) rows hold the best
        # row of each of the top k records.
        m = k * len(wanted)
        if self.ann is not None and allowed * 10 >= n:
            found = self._approximate(vector, row_mask, allowed, k, m)
            if found is not None:
                return found
        if self.projection is not None and allowed * 10 >= n:
            rows = self.projection.candidates(vector, row_mask, candidate_count(n, m))
            return self._pick(rows, cosines(self.matrix[rows], vector), k, m)
        if row_mask is None:
            rows = np.arange(n)
            scores = self._full_scores(vector)
        else:
            rows = np.flatnonzero(row_mask)
            # Gathering copies the selected rows; for wide selections the full product is cheaper,
            # and so is a product already computed for this query (another list of one search).
            memo = self._memo
            if rows.size * 4 < n and (memo is None or memo[0] != vector.tobytes()):
                scores = cosines(self.matrix[rows], vector)
            else:
                scores = self._full_scores(vector)[rows]
        return self._pick(rows, scores, k, m)

    def _approximate(
        self, vector: np.ndarray, row_mask: np.ndarray | None, allowed: int, k: int, m: int
    ) -> list[tuple[str, float, str]] | None:
        """Top ``k`` through the graph (see :meth:`search`), or ``None`` to search exactly."""
        if self._key_order is None:
            assert self.keys is not None
            self._key_order = np.argsort(self.keys)
        order, n = self._key_order, self.matrix.shape[0]
        fetch = max(64, 2 * m * n // allowed)
        while True:
            keys = self.ann.search(vector, fetch)
            pos = np.searchsorted(self.keys, keys, sorter=order).clip(0, n - 1)
            rows = order[pos]
            rows = rows[self.keys[rows] == keys]  # keys of rows added since: not in this snapshot
            if row_mask is not None:
                rows = rows[row_mask[rows]]
            if np.unique(self.rec[rows]).size >= k or keys.size < fetch:
                break
            fetch *= 4
            if fetch * 8 > allowed:
                return None
        return self._pick(rows, self.matrix[rows] @ vector, k, m)

    def _pick(
        self, rows: np.ndarray, scores: np.ndarray, k: int, m: int
    ) -> list[tuple[str, float, str]]:
        """The best ``k`` distinct records among ``rows`` scored ``scores``, best first."""
        if rows.size == 0:
            return []
        m = min(scores.size, m)
        top = np.argpartition(-scores, m - 1)[:m] if m < scores.size else np.arange(scores.size)
        top = top[np.argsort(-scores[top], kind="stable")]
        field_names = list(self.fields.lookup)
        seen: set[int] = set()
        hits: list[tuple[str, float, str]] = []
        for t in top.tolist():
            row = int(rows[t])
            ordinal = int(self.rec[row])
            if ordinal in seen:
                continue
            seen.add(ordinal)
            hits.append((self.ids[ordinal], float(scores[t]), field_names[self.fields.codes[row]]))
            if len(hits) == k:
                break
        return hits


class UserVectors:
    """One user's searchable vectors: a snapshot plus this connection's writes since.

    Rebuilding the snapshot costs a full read of the partition, so writes made through this
    store while its snapshot was current are layered on top instead: the rewritten or deleted
    records are hidden in the snapshot and their new rows kept in a small delta index. When the
    delta outgrows a tenth of the snapshot, the store rebuilds.

    Args:
        version: the user's version counter this view is current at.
        base: the snapshot read from the database.
        delta_rows: rows written by this connection after the snapshot (record id -> rows).
        hidden: ids of snapshot records replaced or deleted since.
    """

    def __init__(
        self,
        version: int,
        base: VectorIndex,
        delta_rows: dict[str, list[VectorRow]] | None = None,
        hidden: frozenset[str] = frozenset(),
    ) -> None:
        self.version = version
        self.base = base
        self.delta_rows = delta_rows or {}
        self.hidden = hidden
        self._hidden_ordinals = np.asarray(
            sorted(base.id_pos[i] for i in hidden if i in base.id_pos), dtype=np.int64
        )
        rows = [row for group in self.delta_rows.values() for row in group]
        self.delta = VectorIndex(version, base.dim, rows) if rows else None

    @property
    def nbytes(self) -> int:
        """Approximate memory held (bytes)."""
        return self.base.nbytes + (self.delta.nbytes if self.delta else 0)

    @property
    def stale(self) -> bool:
        """True when the delta is large enough that a rebuild is cheaper overall."""
        return len(self.delta_rows) + len(self.hidden) > max(256, len(self.base.ids) // 10)

    def after_write(
        self, version: int, upserts: dict[str, list[VectorRow]], deleted: Sequence[str] = ()
    ) -> UserVectors:
        """The view once this connection's write (taking the counter to ``version``) is applied.

        Args:
            version: the user's counter after the write.
            upserts: record id -> its new vector rows (empty list: the record has none now).
            deleted: ids of records deleted.
        """
        gone = set(deleted)
        delta = {i: rows for i, rows in self.delta_rows.items() if i not in gone}
        for record_id, rows in upserts.items():
            if rows:
                delta[record_id] = rows
            else:
                delta.pop(record_id, None)
        hidden = self.hidden | frozenset(upserts) | frozenset(deleted)
        return UserVectors(version, self.base, delta, hidden)

    def search(
        self, vector: np.ndarray, query: RecordQuery, k: int, fields: Sequence[str]
    ) -> list[tuple[str, float, str]]:
        """Top ``k`` over the snapshot and the delta together (see :meth:`VectorIndex.search`)."""
        hits = self.base.search(vector, query, k, fields, self._hidden_ordinals)
        if self.delta is None:
            return hits
        merged = hits + self.delta.search(vector, query, k, fields)
        merged.sort(key=lambda hit: -hit[1])
        return merged[:k]


class VectorCache:
    """Per-user :class:`UserVectors`, least recently used evicted past a byte budget.

    Safe across threads: each operation runs under the cache's own lock (the store's worker
    threads search and rebuild concurrently). Views are immutable once built, so a view
    handed out stays valid while another thread replaces it.

    Args:
        max_bytes: budget for all snapshots (bytes); the most recent one is always kept.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, UserVectors] = OrderedDict()
        self._guard = threading.Lock()

    def get(self, user_id: str, version: int) -> UserVectors | None:
        """The user's snapshot if it was taken at ``version``, else ``None``."""
        with self._guard:
            index = self._items.get(user_id)
            if index is None or index.version != version:
                return None
            self._items.move_to_end(user_id)
            return index

    def put(self, user_id: str, index: UserVectors) -> None:
        """Store ``index`` for the user, evicting the least recently used beyond the budget."""
        with self._guard:
            self._items[user_id] = index
            self._items.move_to_end(user_id)
            total = sum(i.nbytes for i in self._items.values())
            while total > self.max_bytes and len(self._items) > 1:
                _, evicted = self._items.popitem(last=False)
                total -= evicted.nbytes

    def invalidate(self, user_id: str) -> None:
        """Drop the user's snapshot."""
        with self._guard:
            self._items.pop(user_id, None)

    def clear(self) -> None:
        """Drop every snapshot."""
        with self._guard:
            self._items.clear()

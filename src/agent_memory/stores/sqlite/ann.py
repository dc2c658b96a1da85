"""Optional approximate vector index (HNSW, from the ``usearch`` library) for large partitions.

Exact search reads the whole partition's matrix per query: about 1.5 GB at 1M x 384 float32,
55-100 ms on this project's 2-core machine (BENCHMARKS.md, "Search at scale"; the ``pca``
index, :mod:`.projection`, is the first thing to try at that size). An HNSW graph
(Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using
Hierarchical Navigable Small World graphs", IEEE TPAMI 2020) answers in about a millisecond.
``pip install agent-memory[ann]`` and ``SQLiteStore(path, vector_index="hnsw")`` (or the
``vector_index`` setting) turn it on.

How it is used (:meth:`.vectors.VectorIndex.search`): the graph proposes candidate rows, each
is re-scored exactly against the float32 matrix (scores are true cosines), the store's filters
are applied exactly, and when too few candidates survive the filters (a selective filter) the
search falls back to the exact product over the rows the filters allow. So the graph can only
lose recall, never return a record that does not match.

Lifecycle and trade-offs:

- Keys are the ``rowid`` of the ``vectors`` table, so a graph outlives the snapshot it was built
  from: when a user's snapshot is re-read (another connection wrote, or the layered writes grew),
  :meth:`HnswGraph.sync` removes the keys that are gone and adds the new ones instead of
  rebuilding. SQLite may hand a deleted top rowid to the next insert, so each key also keeps a
  fingerprint (the first four components of its vector); a key whose fingerprint changed is
  re-added.
- The graph is built lazily, on the first search of a partition with at least ``min_rows``
  rows (smaller partitions are searched exactly; they are fast anyway), and saved next to the
  database (``<file>.hnsw/<user hash>.usearch`` plus a ``.npz`` of keys and fingerprints) so a
  new process restores it and syncs it instead of building again. Building costs minutes at 1M
  rows (measured in ``bench/search_scale.py``); restoring costs a file read; after a sync the
  file is re-saved only once the changes since the last save reach a tenth of the graph
  (otherwise each process would redo those syncs on open: cheap, as they are incremental).
- Memory: the graph keeps its own half-precision copy of the vectors plus links (~3 KB per
  row at 384 dims with 32 links: 3.1 GiB at 1M), on top of the float32 matrix.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from ...errors import ConfigError

CONNECTIVITY = 32
"""Links per node (HNSW ``M``). 16 lost 5-12 points of recall@10 on LoCoMo-like data, where each
text recurs as dozens of near-duplicates; 32 lost none (bench/search_scale.py)."""
EXPANSION_ADD = 128
"""Candidate list size while building (HNSW ``efConstruction``)."""
EXPANSION_SEARCH = 512
"""Candidate list size while searching (HNSW ``ef``); raised to the count asked for. On 100k
LoCoMo-like rows with real questions: recall@10 0.953 at 128, 0.986 at 256, 1.000 at 512 (about
1 ms per query on one core)."""
_FINGERPRINT = 4


def require_usearch() -> None:
    """Check that the optional ``usearch`` library is installed.

    Raises:
        ConfigError: it is not (``pip install agent-memory[ann]``).
    """
    try:
        import usearch.index  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            'vector_index="hnsw" needs the optional usearch library: '
            "pip install 'agent-memory[ann]'"
        ) from exc


def sidecar(db_path: Path, user_id: str) -> Path:
    """Where the graph of ``user_id`` is saved for the store file ``db_path`` (no extension)."""
    digest = hashlib.sha256(user_id.encode()).hexdigest()[:24]
    return db_path.with_name(db_path.name + ".hnsw") / digest


class HnswGraph:
    """An HNSW graph over one user's vectors, keyed by ``vectors.rowid``.

    Args:
        dim: vector length (dimensions).
        path: where to save and restore the graph (without extension); ``None`` keeps it in
            memory only.
    """

    def __init__(self, dim: int, path: Path | None = None) -> None:
        from usearch.index import Index

        self.dim = dim
        self.path = path
        self.keys = np.empty(0, dtype=np.int64)
        self.prints = np.empty((0, _FINGERPRINT), dtype=np.float32)
        self._unsaved = 0
        self._lock = threading.Lock()
        self._index = Index(ndim=dim, metric="cos", dtype="f16", connectivity=CONNECTIVITY,
                            expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        if path is not None:
            self._restore(path)

    def __len__(self) -> int:
        return int(self.keys.size)

    def _restore(self, path: Path) -> None:
        from usearch.index import Index

        graph, meta = path.with_suffix(".usearch"), path.with_suffix(".npz")
        if not graph.exists() or not meta.exists():
            return
        try:
            index = Index.restore(str(graph))
            with np.load(meta) as saved:
                keys, prints = saved["keys"], saved["prints"]
        except Exception:  # noqa: BLE001 - unreadable sidecar: rebuild from the database
            return
        if index is None or index.ndim != self.dim or len(index) != keys.size:
            return
        index.expansion_search = EXPANSION_SEARCH
        self._index, self.keys, self.prints = index, keys.astype(np.int64), prints

    def sync(self, keys: np.ndarray, matrix: np.ndarray) -> int:
        """Make the graph hold exactly the rows ``keys`` of ``matrix`` (add, remove, re-add).

        Args:
            keys: int64 row keys, shape ``(n,)``, unique.
            matrix: float32, shape ``(n, dim)``, L2-normalised rows.

        Returns:
            How many keys were added, removed or replaced.
        """
        with self._lock:
            prints = np.ascontiguousarray(matrix[:, :_FINGERPRINT])
            order = np.argsort(self.keys)
            pos = np.searchsorted(self.keys, keys, sorter=order).clip(0, max(0, self.keys.size - 1))
            known = np.zeros(keys.size, dtype=bool)
            if self.keys.size:
                at = order[pos]
                known = self.keys[at] == keys
                same = known.copy()
                same[known] = (self.prints[at[known]] == prints[known]).all(axis=1)
                changed = keys[known & ~same]
            else:
                changed = keys[:0]
            gone = np.setdiff1d(self.keys, keys, assume_unique=True)
            drop = np.concatenate([gone, changed])
            if drop.size:
                self._index.remove(drop.astype(np.uint64))
            add = ~known | np.isin(keys, changed)
            if add.any():
                self._index.add(keys[add].astype(np.uint64),
                                np.ascontiguousarray(matrix[add]), threads=0)
            self.keys, self.prints = keys.astype(np.int64, copy=True), prints
            touched = int(drop.size + add.sum() - changed.size)
            self._unsaved += touched
            if self.path is not None and touched and self._unsaved * 10 >= max(1, len(self)):
                self._save(self.path)
            return touched

    def _save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp_graph = path.with_suffix(f".usearch.{os.getpid()}.tmp")
        tmp_meta = path.with_suffix(f".{os.getpid()}.tmp.npz")
        try:
            self._index.save(str(tmp_graph))
            np.savez(tmp_meta, keys=self.keys, prints=self.prints)
            os.replace(tmp_meta, path.with_suffix(".npz"))
            os.replace(tmp_graph, path.with_suffix(".usearch"))
            self._unsaved = 0
        except OSError:
            pass  # a read-only directory: the graph stays in memory only
        finally:
            for tmp in (tmp_graph, tmp_meta):
                tmp.unlink(missing_ok=True)

    def search(self, vector: np.ndarray, count: int) -> np.ndarray:
        """Keys of (approximately) the ``count`` nearest rows to ``vector``, best first.

        Args:
            vector: float32, shape ``(dim,)``.
            count: number of keys wanted.

        Returns:
            int64 keys, shape ``(<= count,)``.
        """
        with self._lock:
            self._index.expansion_search = max(EXPANSION_SEARCH, count)
            found = self._index.search(vector, count, threads=1)
        return np.asarray(found.keys, dtype=np.int64)

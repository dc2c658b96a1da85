"""Two-stage vector search for large partitions: a PCA-projected scan picks candidates, which
are then re-scored exactly.

Exact KNN reads the whole float32 matrix per query; at 1M x 384 that is 1.5 GB and 55-100 ms
on this project's 2-core machine, bound by memory bandwidth. Sentence embeddings are far from
isotropic: on the LoCoMo turns embedded by all-MiniLM-L6-v2, the first 64 principal components
hold 75% of the variance. :class:`Projection` keeps each row's coordinates on those 64
components (a sixth of the bytes), ranks every row by its projected dot product with the
projected query, and hands the best rows (:func:`candidate_count`: at least 1,000, 8,000 at
1M rows) to the exact product, so the scores returned are true cosines. This is the
re-ranking scheme of Jegou, Tavenard, Douze & Amsaleg, "Searching in one billion vectors:
re-rank with source coding" (ICASSP 2011), with principal components as the coarse code.

Measured (``bench/search_scale.py``, BENCHMARKS.md "Search at scale"): at 1M rows the store's
KNN takes 23-26 ms instead of 70-73 ms, and hybrid search 46-48 ms instead of 106-109 ms; the
top 10 equalled exact search's for all 200 LoCoMo questions over synthetic embeddings with
the LoCoMo covariance, and held 0.9995 of exact search's top 10 over 1M near-copies of the
LoCoMo turns (1.0000 counting ties within 0.001). Ranking by the projected product is exact up to the dropped
components' share, so the method only loses a neighbour that the leading components rank
below all the candidates; floods of near-identical vectors are the hard case, hence more
candidates in denser partitions.

The basis comes from at most ``sample`` rows (seeded, so a snapshot is reproducible);
centring does not change a ranking, since the mean's contribution to every row's score is
the same. Memory: ``dims`` float32 per row (256 MB at 1M rows and 64 dims) on top of the
matrix.
"""

from __future__ import annotations

import numpy as np

from .kernels import cosines

DIMS = 64
"""Principal components kept per row."""
CANDIDATES = 1_000
"""Fewest rows re-scored exactly per query."""
ROWS_PER_CANDIDATE = 128
"""One candidate per this many rows of the partition, when that is more than
:data:`CANDIDATES` (8,000 at 1M rows): the denser a partition, the more rows the leading
components cannot tell apart. On the 1M near-copy data, 1,000 / 2,000 / 4,000 / 8,000
candidates kept 0.919 / 0.957 / 0.991 / 0.996 of the exact top 10 (ties counted) at about
the same cost (``bench/search_scale.py``)."""


def candidate_count(rows: int, wanted: int) -> int:
    """Rows to re-score exactly in a partition of ``rows`` vector rows when ``wanted`` rows
    are needed: ``max(CANDIDATES, rows // ROWS_PER_CANDIDATE, 20 * wanted)``."""
    return max(CANDIDATES, rows // ROWS_PER_CANDIDATE, 20 * wanted)
SAMPLE = 50_000
"""Rows the principal components are computed from."""


class Projection:
    """The leading principal components of a matrix's rows, and each row's coordinates.

    Args:
        matrix: float32, shape ``(n, dim)``, L2-normalised rows.
        dims: components kept (capped at ``dim``).
        sample: rows the components are estimated from (a seeded random subset).

    Raises:
        ValueError: ``matrix`` is empty or not two-dimensional.
    """

    def __init__(self, matrix: np.ndarray, dims: int = DIMS, sample: int = SAMPLE) -> None:
        if matrix.ndim != 2 or matrix.shape[0] == 0:
            raise ValueError("a projection needs a non-empty (n, dim) matrix")
        n, dim = matrix.shape
        rng = np.random.default_rng(0)
        rows = matrix if n <= sample else matrix[np.sort(rng.choice(n, sample, replace=False))]
        centred = rows - rows.mean(axis=0)
        _, vectors = np.linalg.eigh(centred.T @ centred)  # ascending eigenvalues
        self.basis = np.ascontiguousarray(vectors[:, ::-1][:, : min(dims, dim)], np.float32)
        self.reduced = matrix @ self.basis
        self._memo: tuple[bytes, np.ndarray] | None = None

    @property
    def nbytes(self) -> int:
        """Memory held (bytes)."""
        return int(self.reduced.nbytes + self.basis.nbytes)

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Projected dot products of every row with ``vector`` (shape ``(n,)``); the last
        query's are kept, so the candidate lists of one search share one scan."""
        key = vector.tobytes()
        memo = self._memo
        if memo is not None and memo[0] == key:
            return memo[1]
        scores = cosines(self.reduced, vector @ self.basis)
        self._memo = (key, scores)
        return scores

    def candidates(
        self, vector: np.ndarray, row_mask: np.ndarray | None, count: int
    ) -> np.ndarray:
        """Rows with the ``count`` best projected scores among those ``row_mask`` allows.

        Args:
            vector: float32 query, shape ``(dim,)``.
            row_mask: bool, shape ``(n,)``, or ``None`` for every row.
            count: rows wanted.

        Returns:
            int64 row numbers, unordered, at most ``count``.
        """
        scores = self.scores(vector)
        if row_mask is not None:
            scores = np.where(row_mask, scores, -np.inf)
        if count >= scores.size:
            rows = np.arange(scores.size)
        else:
            rows = np.argpartition(-scores, count - 1)[:count]
        if row_mask is not None:
            rows = rows[row_mask[rows]]
        return rows

"""The matrix-vector product behind every exact and projected vector scan of the SQLite store
(:mod:`.vectors`, :mod:`.projection`), with the BLAS thread count chosen by matrix size."""

from __future__ import annotations

import threading

import numpy as np

try:  # optional: pins BLAS to one thread for the product (see :func:`cosines`)
    from threadpoolctl import ThreadpoolController

    _BLAS = ThreadpoolController().select(user_api="blas")
except Exception:  # noqa: BLE001 - absent or unable to inspect the BLAS: use it as it is
    _BLAS = None
_BLAS_LOCK = threading.Lock()


_THREADED_BYTES = 100_000 * 384 * 4
"""From a matrix this large on (100k float32 rows of 384 dims), the product runs on every
BLAS thread (see :func:`cosines`)."""


def cosines(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` (shape ``(n,)``); on one BLAS thread below :data:`_THREADED_BYTES`
    when threadpoolctl is present (also used for the projected scan, :mod:`.projection`).

    A matrix-vector product is memory-bound. On a small matrix extra threads add little, and
    OpenBLAS's threads spin: on a small machine whose other core is busy (the embedder, another
    worker) the threaded product measured 7 ms instead of 0.5 ms at 10,000 x 384
    (bench/store_search.py). On a large one the second core's bandwidth counts: on the quiet
    2-core machine 3.6 ms instead of 10.5 ms at 100,000 x 384 and 60 ms instead of 131 ms at
    1,000,000 x 384 (one thread still wins under load: 10.8 against 16 ms at 100,000 with a
    load average of 5). The lock keeps concurrent searches from restoring each other's thread
    counts out of order.
    """
    if _BLAS is None or not _BLAS.lib_controllers or matrix.nbytes >= _THREADED_BYTES:
        return matrix @ vector
    with _BLAS_LOCK, _BLAS.limit(limits=1):
        return matrix @ vector

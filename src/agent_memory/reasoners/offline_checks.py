"""The local embedder the LLM reasoner's offline checks share: the verification of proposed
reconciliations (:mod:`.reconcile_verify`) and of profile fields (:mod:`.openai_profile`).

One :class:`~agent_memory.embedders.local.LocalEmbedder` per process (one ONNX session,
about 90 MB), created on first use; it loads its model on its first embedding and raises
:class:`~agent_memory.errors.ModelUnavailableError` then when the model files are absent.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..embedders.local import LocalEmbedder

_lock = threading.Lock()
_embedder: LocalEmbedder | None = None


def local_embedder() -> LocalEmbedder:
    """The process's shared local embedder (thread-safe; created once, not loaded yet)."""
    global _embedder
    with _lock:
        if _embedder is None:
            from ..embedders.local import LocalEmbedder

            _embedder = LocalEmbedder()
        return _embedder

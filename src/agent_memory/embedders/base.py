"""The embedder contract: text in, L2-normalised float32 vectors out.

Implementations: the local all-MiniLM-L6-v2 (:mod:`.local`, offline, 384 dims) and the
OpenAI / Azure OpenAI embeddings API (:mod:`.openai`). Resolve one from a ``"provider:model"``
string with :func:`agent_memory.embedders.get_embedder`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from .._threads import run_in_worker
from ..models import EmbeddingSpec


class Embedder(ABC):
    """Turns texts into vectors.

    Attributes:
        name: ``"provider:model"``, recorded in the store (a mismatch is an error).
        dim: vector length (dimensions).
    """

    name: str
    dim: int

    @property
    def spec(self) -> EmbeddingSpec:
        """The :class:`EmbeddingSpec` a store records for this embedder."""
        return EmbeddingSpec(model=self.name, dim=self.dim)

    @abstractmethod
    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (batched internally).

        Returns:
            float32 array of shape ``(len(texts), dim)``, each row L2-normalised.
            An empty input gives shape ``(0, dim)``.

        Raises:
            EmbedderError: the model failed.
        """

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Async form of :meth:`embed_sync` (by default on the shared worker pool, whose
        threads run at a lower CPU priority than the event loop: :mod:`agent_memory._threads`)."""
        return await run_in_worker(self.embed_sync, list(texts))

    def close(self) -> None:
        """Release clients or sessions held by the embedder (no-op by default)."""

    async def aclose(self) -> None:
        """Async form of :meth:`close`."""
        self.close()

    async def embed_one(self, text: str) -> np.ndarray:
        """Embed one text; returns shape ``(dim,)``."""
        return (await self.embed([text]))[0]

    async def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query; returns shape ``(dim,)``. Models trained with different
        query and document prefixes override it; by default the same as :meth:`embed_one`."""
        return await self.embed_one(text)


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Return ``matrix`` (shape ``(n, d)``) as float32 with unit-length rows (zero rows stay 0)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms

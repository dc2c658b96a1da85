"""The client's lifecycle: settings, components, ``open`` / ``connect`` / ``close``
(:class:`MemoryCore`, the base of every part of :class:`~agent_memory.AsyncMemory`)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from ..config import Settings
from ..embedders import get_embedder
from ..embedders.base import Embedder
from ..pipeline import Components
from ..reasoners import reasoner_from_settings
from ..reasoners.base import Reasoner
from ..stores import open_store
from ..stores.base import MemoryStore


def shared_embedder(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    """The reasoner's keyword arguments that share the client's embedder.

    The offline reasoner embeds fact predicates with the local all-MiniLM-L6-v2 (its
    reconciliation thresholds were chosen with it): when the client's embedder is that model,
    the reasoner uses it instead of loading a second copy.

    Returns:
        ``{"embedder": embedder}`` for the extractive reasoner beside the local model, else
        ``{}``.
    """
    from ..embedders.local import LOCAL_MODEL

    extractive = settings.reasoner.strip().lower() == "extractive"
    return {"embedder": embedder} if extractive and embedder.name == f"local:{LOCAL_MODEL}" else {}


class MemoryCore:
    """The settings and components of a client, and its lifecycle.

    Args:
        settings: configuration (default: :meth:`Settings.load`).
        store / embedder / reasoner: ready components overriding the settings' choice.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        reasoner: Reasoner | None = None,
    ) -> None:
        self.settings = settings or Settings.load()
        self._owns_embedder = embedder is None
        self.embedder = embedder or get_embedder(
            self.settings.embedder, batch_size=self.settings.embed_batch_size
        )
        self.reasoner = reasoner or reasoner_from_settings(
            self.settings, **shared_embedder(self.settings, self.embedder))
        self.store = store or open_store(
            self.settings.store, self.settings.vector_index, self.settings.text_match_budget)
        self._opened = False

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings | None = None, **overrides: Any):
        """``async with AsyncMemory.open(store=..., ...) as memory``: open, yield, close.

        Keyword overrides are :class:`Settings` fields, or ``embedder`` / ``reasoner`` /
        ``store`` given as ready objects.
        """
        parts = {k: overrides.pop(k) for k in ("embedder", "reasoner", "store")
                 if k in overrides and not isinstance(overrides[k], str | None)}
        settings = settings.merged(**overrides) if settings else Settings.load(**overrides)
        memory = cls(settings, **parts)
        await memory.connect()
        try:
            yield memory
        finally:
            await memory.close()

    async def connect(self) -> None:
        """Open the store (schema, migrations, embedding check). Idempotent."""
        if not self._opened:
            await self.store.open(self.embedder.spec)
            self._opened = True

    async def close(self) -> None:
        """Close the store (and the embedder, when this object created it). Safe to call twice."""
        if self._opened:
            await self.store.close()
            self._opened = False
        if self._owns_embedder:
            await self.embedder.aclose()

    @property
    def components(self) -> Components:
        """The store, embedder, reasoner and settings the pipeline steps run with."""
        return Components(self.store, self.embedder, self.reasoner, self.settings)


__all__ = ["MemoryCore", "shared_embedder"]

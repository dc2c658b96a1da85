"""Shared fixtures: real SQLite files, the real local embedder, the real LoCoMo dev set."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_memory import AsyncMemory, Settings

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"


@pytest.fixture(scope="session")
def local_embedder():
    """The real all-MiniLM-L6-v2 (ONNX), loaded once per test session."""
    from agent_memory.embedders.local import LocalEmbedder

    return LocalEmbedder()


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    """Path of the LoCoMo dev set; skips when ../shared/datasets is absent."""
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo dev set not found at {LOCOMO} (../shared/datasets is absent)")
    return LOCOMO


@pytest.fixture
async def memory(tmp_path, local_embedder):
    """An AsyncMemory on a fresh SQLite file with the local embedder and extractive reasoner."""
    settings = Settings.load(store=str(tmp_path / "memory.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder) as mem:
        yield mem

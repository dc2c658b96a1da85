"""Shared fixtures: real SQLite files, the real local embedder, the real LoCoMo dev set."""

from __future__ import annotations

import sys
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


@pytest.fixture(scope="session")
def cosmos_server():
    """The local Cosmos DB test server (``tests/cosmos_server``) on a free loopback port, one
    per test session; skips with the reason when node or the npm package is missing."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "cosmos_test_server", ROOT / "tests" / "cosmos_server" / "server.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    reason = module.unavailable_reason()
    if reason:
        pytest.skip(f"Cosmos DB test server unavailable: {reason}")
    server = module.start()
    yield server
    server.stop()

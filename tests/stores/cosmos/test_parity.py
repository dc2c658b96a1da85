"""The same LoCoMo ingest through the CLI into SQLite and into Cosmos DB (the local test server)
gives the same records: threads, summaries, profiles and facts, and ``forget`` empties both."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from agent_memory import AsyncMemory, Settings
from agent_memory.models import RecordKind

pytestmark = pytest.mark.dataset


def cli(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-c", "from agent_memory.cli.app import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def turn_view(turns):
    return [(t.id, t.seq, t.role, t.speaker, t.content, t.created_at) for t in turns]


def sentences(text: str) -> list[tuple[str, str]]:
    """The (category label, sentence) pairs of a profile's lines, sorted."""
    out = []
    for line in text.splitlines():
        label, body = re.match(r"(?:([A-Z][\w /&-]*): )?(.*)", line).groups()
        out += [(label or "", part) for part in re.split(r"(?<=[.!?])\s+", body) if part]
    return sorted(out)


def derived_view(records):
    """What must agree for derived records: their text and what they cite, not their ids
    (fresh per run), versions or write times."""
    return sorted((r.kind, r.thread_id, r.content, tuple(sorted(r.evidence))) for r in records)


@pytest.fixture(scope="module")
def stores(tmp_path_factory, locomo_path, cosmos_server):
    """Ingest the LoCoMo dev set (turns and every pipeline step) into both stores."""
    tmp = tmp_path_factory.mktemp("parity")
    env = {**os.environ, "COSMOS_KEY": cosmos_server.key, "PYTHONWARNINGS": "ignore"}
    host = cosmos_server.endpoint.removeprefix("https://").rstrip("/")
    sqlite = str(tmp / "memory.db")
    cosmos = f"cosmos://{host}/parity"
    for store in (sqlite, cosmos):
        cli("ingest", str(locomo_path), "--format", "locomo", "--store", store, env=env)
    users = [sample["sample_id"] for sample in json.loads(locomo_path.read_text())]
    os.environ.setdefault("COSMOS_KEY", cosmos_server.key)
    return sqlite, cosmos, users


async def open_both(stores, local_embedder):
    sqlite, cosmos, _ = stores
    opened = []
    for spec in (sqlite, cosmos):
        memory = AsyncMemory(Settings.load(store=spec), embedder=local_embedder)
        await memory.connect()
        opened.append(memory)
    return opened


async def test_threads_summaries_profiles_and_facts_agree(stores, local_embedder):
    a, b = await open_both(stores, local_embedder)
    try:
        for user in stores[2]:
            threads = sorted({t.thread_id for t in await a.get_memories(
                user, kinds=[RecordKind.TURN], limit=1000)})
            assert threads
            for thread in threads:
                assert turn_view(await b.get_thread(user, thread)) == \
                    turn_view(await a.get_thread(user, thread))
                sa, sb = await a.get_summary(user, thread), await b.get_summary(user, thread)
                assert (sa is None) == (sb is None)
                if sa is not None:
                    assert (sb.content, sb.watermark_seq, sb.turn_count) == \
                        (sa.content, sa.watermark_seq, sa.turn_count)
            pa, pb = await a.get_profile(user), await b.get_profile(user)
            assert pa is not None and pb is not None
            # Fact ids are fresh per run, and records written at the same time are listed by
            # id, so the profile's sentences may come in another order; they are the same.
            assert sentences(pb.content) == sentences(pa.content)
            kinds = [RecordKind.FACT, RecordKind.INSIGHT, RecordKind.SUMMARY]
            assert derived_view(await b.get_memories(user, kinds=kinds, limit=1000)) == \
                derived_view(await a.get_memories(user, kinds=kinds, limit=1000))
    finally:
        await a.close()
        await b.close()


async def test_forget_empties_both(stores, local_embedder):
    a, b = await open_both(stores, local_embedder)
    try:
        user = stores[2][0]
        reports = [await m.forget_user(user) for m in (a, b)]
        assert reports[0].model_dump() == reports[1].model_dump()
        for m in (a, b):
            assert await m.get_memories(user, limit=10) == []
            assert await m.get_profile(user) is None
        other = stores[2][1]
        assert len(await b.get_memories(other, kinds=[RecordKind.TURN], limit=1000)) == \
            len(await a.get_memories(other, kinds=[RecordKind.TURN], limit=1000))
    finally:
        await a.close()
        await b.close()

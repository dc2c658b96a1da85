"""Bulk add: per-item success and failure; a failed item writes nothing; collections stored."""

from __future__ import annotations

import pytest

from agent_memory.errors import InvalidInputError, MissingScopeError
from agent_memory.models import Fact, RecordKind
from agent_memory.stores.base import RecordQuery


async def test_mixed_batch_reports_each_item(memory):
    items = [
        {"content": "The user lives in Porto.", "collection": "home", "importance": 6},
        {"content": "   "},                                       # blank
        {"content": "The user likes jazz.", "importance": 11},   # out of range
        {"content": "The user has a cat named Miso.", "kind": "insight",
         "retrieval_key": "pets animals at home", "collection": "home"},
        {"content": "x", "unknown_field": 1},                    # not a field
        "not a mapping",
        {"content": "dup", "id": "fixed"},
        {"content": "dup again", "id": "fixed"},                 # same id twice
    ]
    result = await memory.add_memories("u1", items)
    assert [i for i, _ in result.added] == [0, 3, 6]
    assert [f.index for f in result.failed] == [1, 2, 4, 5, 7]
    assert "importance" in result.failed[1].error
    stored = await memory.store.list("u1", RecordQuery(kinds=frozenset(
        {RecordKind.FACT, RecordKind.INSIGHT})))
    assert sorted(r.content for r in stored) == sorted(
        ["The user lives in Porto.", "The user has a cat named Miso.", "dup"])
    cat = next(r for r in stored if isinstance(r, Fact) and r.kind == RecordKind.INSIGHT)
    assert cat.collection == "home" and cat.retrieval_key == "pets animals at home"
    home = await memory.store.list("u1", RecordQuery(collections=frozenset({"home"})))
    assert len(home) == 2


async def test_retrieval_key_is_what_search_finds(memory):
    await memory.add_memories("u1", [
        {"content": "Code 4417.", "retrieval_key": "the door code of the user's garage"},
        {"content": "The user likes tea.", "importance": 2},
    ])
    hits = await memory.search("u1", "garage door code", mode="text", k=1)
    assert hits[0].record.content == "Code 4417."
    hits = await memory.search("u1", "how do I open the garage door", mode="vector", k=1)
    assert hits[0].record.content == "Code 4417."


async def test_all_failed_writes_nothing_and_blank_user_raises(memory):
    result = await memory.add_memories("u1", [{"content": ""}, {"importance": 3}])
    assert not result.added and len(result.failed) == 2
    assert await memory.store.count("u1", RecordQuery()) == 0
    with pytest.raises(MissingScopeError):
        await memory.add_memories(" ", [{"content": "x"}])
    for text in ("Ana likes tea.", b"Ana likes tea."):  # not one item per character
        with pytest.raises(InvalidInputError, match="not a string"):
            await memory.add_memories("u1", text)
    assert await memory.store.count("u1", RecordQuery()) == 0


async def test_bindings_are_per_user_and_idempotent(memory):
    assert await memory.bind_collections("u1", "a1", ["x", "y"]) == 2
    assert await memory.bind_collections("u1", "a1", ["y", "z"]) == 1
    assert await memory.agent_collections("u1", "a1") == ["x", "y", "z"]
    assert await memory.agent_collections("u2", "a1") == []
    assert await memory.unbind_collections("u1", "a1", ["x", "nope"]) == 1
    assert await memory.agent_collections("u1", "a1") == ["y", "z"]


async def test_pipeline_facts_carry_importance(memory):
    await memory.add_turns([
        {"user_id": "u1", "thread_id": "s1", "role": "user", "speaker": "Caroline",
         "content": "I just got accepted into a counseling master's program in Boston!"},
        {"user_id": "u1", "thread_id": "s1", "role": "user", "speaker": "Melanie",
         "content": "I bought a new blue mug yesterday."},
    ])
    await memory.extract_facts("u1", "s1")
    facts = await memory.store.list("u1", RecordQuery(kinds=frozenset({RecordKind.FACT})))
    assert facts and all(isinstance(f, Fact) and 1 <= f.importance <= 10 for f in facts)


def test_recall_cli(tmp_path):
    from typer.testing import CliRunner

    from agent_memory import Memory, Settings
    from agent_memory.cli.app import app

    store = tmp_path / "m.db"
    with Memory(Settings.load(store=str(store))) as mem:
        mem.add_memories("u1", [{"content": "The user is allergic to peanuts.",
                                 "importance": 9, "collection": "health"}])
    out = CliRunner().invoke(app, ["recall", "food allergy", "-u", "u1", "-s", str(store),
                                   "--json", "--no-access-update"])
    assert out.exit_code == 0, out.output
    data = __import__("json").loads(out.stdout)
    (memory,) = data["memories"]
    assert memory["record"]["content"] == "The user is allergic to peanuts."
    assert memory["explanation"]["importance"]["raw"] == 9


async def test_an_existing_id_is_reported_not_overwritten(memory) -> None:
    first = await memory.add_memories("u1", [{"id": "m1", "content": "Ana likes tea."}])
    assert not first.failed
    again = await memory.add_memories("u1", [{"id": "m1", "content": "Ana hates tea."},
                                             {"id": "m2", "content": "Ana has a cat."}])
    assert [f.index for f in again.failed] == [0] and "already exists" in again.failed[0].error
    assert [f.id for _, f in again.added] == ["m2"]
    (kept,) = await memory.store.get("u1", ["m1"])
    assert kept.content == "Ana likes tea."


async def test_control_fields_cannot_be_set_through_add_memories(memory) -> None:
    result = await memory.add_memories("u1", [
        {"content": "Ana lives in Porto.", "metadata": {"pinned": True, "merged_from": ["x"]}},
        {"content": "Ana lives in Lisbon.", "pinned": True},
    ])
    assert [f.index for f in result.failed] == [1]  # not a field of a memory to add
    (_, fact), = result.added
    assert fact.pinned is False and fact.merged_from == [] and fact.audit == []
    assert fact.metadata == {"pinned": True, "merged_from": ["x"]}  # only user metadata


async def test_added_records_carry_their_etag_for_a_conditional_update(memory):
    result = await memory.add_memories("u1", [{"content": "The user lives in Porto."},
                                              {"content": "   "},
                                              {"content": "The user likes jazz."}])
    assert [i for i, _ in result.added] == [0, 2]
    (porto, _), (jazz, _) = [(r, i) for i, r in result.added]
    stored = {r.id: r for r in await memory.store.get("u1", [porto.id, jazz.id])}
    assert porto.etag is not None and porto.etag == stored[porto.id].etag
    assert jazz.content == "The user likes jazz." and jazz.etag == stored[jazz.id].etag
    (updated,) = await memory.store.update([porto.model_copy(update={"importance": 9})])
    assert updated.importance == 9 and updated.etag != porto.etag


async def test_a_refused_memory_input_is_echoed_as_its_fields_not_its_repr(memory):
    from agent_memory.recall.collections import MemoryInput

    taken = MemoryInput(content="Ana likes tea.", id="fixed-1", importance=4)
    await memory.add_memories("u1", [taken])
    result = await memory.add_memories("u1", [taken])  # the id exists now
    assert result.failed[0].item == {"content": "Ana likes tea.", "id": "fixed-1",
                                     "importance": 4}

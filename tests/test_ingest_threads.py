"""Bulk ingest stores chunks two at a time: order, context and counts must not change."""

from __future__ import annotations

import pytest

from agent_memory.client import TurnInput
from agent_memory.errors import EmptyContentError
from agent_memory.ingest import Progress, ThreadBatch, ingest_threads


def _turns(user: str, thread: str, words: list[str]) -> list[TurnInput]:
    return [
        TurnInput(user_id=user, thread_id=thread, role="user" if i % 2 == 0 else "assistant",
                  content=f"{word} is what I said in turn {i} of {thread}")
        for i, word in enumerate(words)
    ]


async def test_small_chunks_store_every_thread_in_order(memory):
    threads = [
        ThreadBatch("ana", f"t{n}", _turns("ana", f"t{n}", ["apple", "pear", "plum"]))
        for n in range(5)
    ]
    advanced: list[str] = []
    report = await ingest_threads(memory, threads, pipeline=False, chunk_turns=3,
                                  progress=Progress(advance=lambda b: advanced.append(b.thread_id)))
    assert (report.turns, report.threads, report.users) == (15, 5, 1)
    assert advanced == [f"t{n}" for n in range(5)]
    for n in range(5):
        stored = await memory.get_thread("ana", f"t{n}")
        assert [t.seq for t in stored] == [0, 1, 2]
        assert [t.content.split()[0] for t in stored] == ["apple", "pear", "plum"]


async def test_a_thread_split_over_chunks_keeps_seq_and_context(memory):
    # The same thread twice: the second part must wait for the first (seqs continue and its
    # first turn is indexed with the first part's last turn as context).
    first = ThreadBatch("bo", "t", _turns("bo", "t", ["red", "green"]))
    second = ThreadBatch("bo", "t", [
        TurnInput(user_id="bo", thread_id="t", role="user", content="blue came next"),
    ])
    report = await ingest_threads(memory, [first, second], pipeline=False, chunk_turns=1)
    assert report.turns == 3
    stored = await memory.get_thread("bo", "t")
    assert [t.seq for t in stored] == [0, 1, 2]
    assert stored[2].content == "blue came next"
    # "green" is only in turn 1; turn 2 is found by it through its context.
    hits = await memory.search("bo", "green", k=5, mode="text")
    assert {h.record.id for h in hits} == {stored[1].id, stored[2].id}


async def test_an_invalid_chunk_stops_the_ingest_and_no_chunk_is_half_stored(memory):
    good = ThreadBatch("cy", "a", _turns("cy", "a", ["one", "two"]))
    also_good = ThreadBatch("cy", "b", _turns("cy", "b", ["three"]))
    bad = ThreadBatch("cy", "c", [{"user_id": "cy", "thread_id": "c", "role": "user",
                                   "content": "   "}])  # type: ignore[list-item]
    with pytest.raises(EmptyContentError):
        await ingest_threads(memory, [good, also_good, bad], pipeline=False, chunk_turns=1)
    # Each chunk is one atomic batch: a thread is stored whole or not at all (whether chunks
    # before the bad one stay depends on whether every turn is checked before the first write).
    assert len(await memory.get_thread("cy", "a")) in (0, 2)
    assert len(await memory.get_thread("cy", "b")) in (0, 1)
    assert await memory.get_thread("cy", "c") == []


async def test_re_ingesting_a_turn_edited_between_loads_updates_it(memory):
    loaded = [TurnInput(user_id="di", thread_id="t", role="user", content="I live in Rome.",
                        id="di-1")]
    await ingest_threads(memory, [ThreadBatch("di", "t", loaded)], pipeline=False)
    edited = [loaded[0].model_copy(update={"content": "I live in Milan."})]
    await ingest_threads(memory, [ThreadBatch("di", "t", edited)], pipeline=False)
    assert [(t.id, t.content) for t in await memory.get_thread("di", "t")] == [
        ("di-1", "I live in Milan.")]

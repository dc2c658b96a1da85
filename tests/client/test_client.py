"""The client end to end on a real SQLite file, the real embedder and the extractive reasoner."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory import (
    ContentTooLargeError,
    EmptyContentError,
    Memory,
    MissingScopeError,
    RecordKind,
    Settings,
    UnknownRoleError,
)
from agent_memory.errors import ConflictError
from agent_memory.models import SupersedeReason, content_hash, profile_id, summary_id

T0 = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)

CONVERSATION = [
    ("user", "Hi! I just adopted a golden retriever puppy named Biscuit."),
    ("assistant", "Congratulations! How old is Biscuit?"),
    ("user", "He is ten weeks old. I also started a new job as a data analyst at a bank."),
    ("assistant", "Big month! How is the new job going?"),
    ("user", "I love it, but the commute to Boston takes an hour each way."),
    ("assistant", "That is long. Have you thought about moving closer?"),
    ("user", "My partner and I plan to move to Cambridge next spring."),
]


async def add_conversation(memory, user="alice", thread="t1", start=T0):
    return await memory.add_turns(
        {"user_id": user, "thread_id": thread, "role": role, "content": text,
         "speaker": "Alice" if role == "user" else None,
         "created_at": start + timedelta(minutes=i)}
        for i, (role, text) in enumerate(CONVERSATION)
    )


async def snapshot(memory, user="alice"):
    return [r.model_dump_json() for r in await memory.get_memories(user, include_superseded=True)]


async def test_turns_round_trip_with_seq_and_speaker(memory):
    turns = await add_conversation(memory)
    assert [t.seq for t in turns] == list(range(len(CONVERSATION)))
    thread = await memory.get_thread("alice", "t1")
    assert [t.content for t in thread] == [text for _, text in CONVERSATION]
    assert thread[0].speaker == "Alice" and thread[1].role.value == "assistant"
    last = await memory.get_thread("alice", "t1", k=2)
    assert [t.seq for t in last] == [5, 6]
    more = await memory.add_turn("alice", "t1", "agent", "Cambridge is lovely in spring.")
    assert more.seq == 7 and more.role.value == "assistant"


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"user_id": ""}, MissingScopeError),
        ({"user_id": "   "}, MissingScopeError),
        ({"thread_id": ""}, MissingScopeError),
        ({"content": ""}, EmptyContentError),
        ({"content": " \n\t"}, EmptyContentError),
        ({"content": "x" * 40_001}, ContentTooLargeError),
        ({"role": "narrator"}, UnknownRoleError),
    ],
)
async def test_bad_turn_raises_typed_error_and_writes_nothing(memory, fields, error):
    await add_conversation(memory)
    before = await snapshot(memory)
    good = {"user_id": "alice", "thread_id": "t1", "role": "user", "content": "fine"}
    with pytest.raises(error):
        # The bad item comes second: the good first one must not be written either.
        await memory.add_turns([good, {**good, **fields}])
    assert await snapshot(memory) == before


async def test_re_adding_a_turn_id_is_idempotent_and_never_rewrites_the_turn(memory):
    first = await memory.add_turn("alice", "t1", "user", "I moved to Lisbon.", id="turn-a")
    again = await memory.add_turn("alice", "t1", "user", "I moved to Lisbon.", id="turn-a")
    assert (again.id, again.seq, again.thread_id) == (first.id, first.seq, "t1")
    assert [t.id for t in await memory.get_thread("alice", "t1")] == ["turn-a"]
    before = await snapshot(memory)
    fresh = {"user_id": "alice", "thread_id": "t1", "role": "user", "content": "New here."}
    for changed in ({"content": "I moved to Porto."}, {"thread_id": "t2"},
                    {"role": "assistant"}, {"agent_id": "private-bot"}, {"seq": 7}):
        with pytest.raises(ConflictError, match="turn-a") as caught:
            # The good first turn of the batch must not be written either.
            await memory.add_turns([fresh, {**fresh, "content": "I moved to Lisbon.",
                                            "id": "turn-a", **changed}])
        assert caught.value.ids == ["turn-a"]
        assert await snapshot(memory) == before
    with pytest.raises(ConflictError, match="earlier in the batch") as caught:
        await memory.add_turns([{**fresh, "id": "turn-b"},
                                {**fresh, "id": "turn-b", "content": "Other text."}])
    assert caught.value.ids == ["turn-b"] and await snapshot(memory) == before
    await memory.add_memories("alice", [{"content": "Alice likes tea.", "id": "fact-x"}])
    with pytest.raises(ConflictError, match="stored fact"):
        await memory.add_turn("alice", "t1", "user", "Hi.", id="fact-x")
    assert (await memory.get_memories("alice", kinds=["fact"]))[0].content == "Alice likes tea."


async def test_the_same_turn_twice_in_one_batch_is_stored_once(memory):
    turn = {"user_id": "alice", "thread_id": "t1", "role": "user", "content": "Hi.",
            "id": "twice"}
    stored = await memory.add_turns([turn, {**turn, "id": "other", "content": "Bye."}, turn])
    assert [t.id for t in stored] == ["twice", "other", "twice"]
    assert stored[0] == stored[2]
    assert [t.id for t in await memory.get_thread("alice", "t1")] == ["twice", "other"]


async def test_two_calls_adding_one_new_turn_id_at_once_both_succeed(memory):
    """A retry racing its own first attempt: the loser reads again and is a re-add."""
    calls = [memory.add_turn("alice", "t1", "user", "I moved to Lisbon.", id="race-1")
             for _ in range(4)]
    results = await asyncio.gather(*calls)
    assert {(t.id, t.seq) for t in results} == {("race-1", 0)}
    assert [t.id for t in await memory.get_thread("alice", "t1")] == ["race-1"]


async def test_thread_summary_is_incremental_and_idempotent(memory):
    await add_conversation(memory)
    first = await memory.generate_thread_summary("alice", "t1")
    assert first.written == [summary_id("alice", "t1")] and first.turns_read == 7
    summary = await memory.get_summary("alice", "t1")
    assert summary.watermark_seq == 6 and summary.turn_count == 7
    assert set(summary.evidence) == {t.id for t in await memory.get_thread("alice", "t1")}
    before = await snapshot(memory)
    again = await memory.generate_thread_summary("alice", "t1")
    assert not again.changed and await snapshot(memory) == before
    new = await memory.add_turn("alice", "t1", "user", "We also booked a trip to Lisbon in May.",
                                speaker="Alice", created_at=T0 + timedelta(hours=1))
    step = await memory.generate_thread_summary("alice", "t1")
    assert step.turns_read == 1  # only the turn newer than the watermark
    updated = await memory.get_summary("alice", "t1")
    assert updated.watermark_seq == new.seq and updated.turn_count == 8
    assert updated.created_at == summary.created_at and new.id in updated.evidence
    # Still exactly one summary record for the thread.
    assert len(await memory.get_memories("alice", kinds=["summary"])) == 1


async def test_extract_facts_dedups_by_content_hash(memory):
    await add_conversation(memory)
    first = await memory.extract_facts("alice", "t1")
    assert first.written, "self-disclosures should yield facts"
    facts = await memory.get_memories("alice", kinds=["fact"])
    assert all(f.content_hash == content_hash(f.content) for f in facts)
    assert all(f.evidence and f.evidence[0].startswith("turn_") for f in facts)
    assert any("Alice" in f.content and "Biscuit" in f.content for f in facts)
    before = await snapshot(memory)
    second = await memory.extract_facts("alice", "t1")
    assert second.written == [] and second.exact_dedup_skipped == len(first.written)
    assert await snapshot(memory) == before


async def test_user_summary_deterministic_id_and_incremental(memory):
    await add_conversation(memory)
    await memory.process_thread("alice", "t1")
    step = await memory.generate_user_summary("alice")
    assert step.written == [profile_id("alice")]
    profile = await memory.get_profile("alice")
    assert profile.thread_id == "__user_summary__" and profile.sources and profile.evidence
    before = await snapshot(memory)
    assert not (await memory.generate_user_summary("alice")).changed
    assert await snapshot(memory) == before
    await add_conversation(memory, thread="t2", start=T0 + timedelta(days=30))
    await memory.add_turn("alice", "t2", "user", "I started a new job as a librarian in Oxford.")
    await memory.process_thread("alice", "t2")
    step = await memory.generate_user_summary("alice")
    assert step.changed
    profile = await memory.get_profile("alice")
    new_facts = await memory.get_memories("alice", kinds=["fact"])
    assert {f.id for f in new_facts if f.thread_id == "t2"} <= set(profile.sources)
    assert "librarian" in profile.content
    assert len(await memory.get_memories("alice", kinds=["profile"])) == 1


async def test_search_modes_and_filters(memory):
    await add_conversation(memory)
    await add_conversation(memory, thread="t2", start=T0 + timedelta(days=10))
    await memory.process_thread("alice", "t1")
    hits = await memory.search("alice", "What is the name of the dog?", k=5)
    assert "Biscuit" in hits[0].record.content
    assert set(hits[0].signals) <= {"vector", "text"} and hits[0].signals
    assert hits[0].provenance.evidence
    text = await memory.search("alice", "Cambridge", mode="text", k=3)
    assert text and all("Cambridge" in h.record.content for h in text)
    assert all(set(h.signals) == {"text"} for h in text)
    vec = await memory.search("alice", "new employment", mode="vector", k=3)
    assert all(set(h.signals) == {"vector"} for h in vec)
    assert [h.score for h in vec] == sorted((h.score for h in vec), reverse=True)
    only_t2 = await memory.search("alice", "puppy", thread_id="t2", k=20)
    assert only_t2 and {h.provenance.thread_id for h in only_t2} == {"t2"}
    facts = await memory.search("alice", "job", kinds=["fact"], k=20)
    assert facts and {h.provenance.kind for h in facts} == {RecordKind.FACT}
    late = await memory.search("alice", "commute", since=T0 + timedelta(days=5), k=20)
    assert late and all(h.record.created_at >= T0 + timedelta(days=5) for h in late)


async def test_two_users_never_see_each_other(memory):
    await add_conversation(memory, user="alice")
    await memory.add_turns([{"user_id": "bob", "thread_id": "t1", "role": "user",
                             "content": "I keep bees and sell their honey at the market."}])
    await memory.process_thread("alice", "t1")
    await memory.process_thread("bob", "t1")
    await memory.generate_user_summary("bob")
    bob_ids = {r.id for r in await memory.get_memories("bob")}
    for mode in ("vector", "text", "hybrid"):
        hits = await memory.search("alice", "bees honey market", mode=mode, k=50)
        assert not bob_ids & {h.record.id for h in hits}
        assert all(h.record.user_id == "alice" for h in hits)
    assert all(r.user_id == "alice" for r in await memory.get_memories("alice"))
    assert all(t.user_id == "alice" for t in await memory.get_thread("alice", "t1"))
    assert await memory.get_profile("alice") is None  # bob has one; alice does not
    assert await memory.store.get("alice", sorted(bob_ids)) == []


async def test_search_rejects_missing_user_and_empty_query(memory):
    with pytest.raises(MissingScopeError):
        await memory.search("", "anything")
    with pytest.raises(EmptyContentError):
        await memory.search("alice", "  ")


def test_sync_facade(tmp_path, local_embedder):
    with Memory(Settings.load(store=str(tmp_path / "m.db")), embedder=local_embedder) as memory:
        turn = memory.add_turn("u", "t", "user", "My favourite colour is teal.", speaker="Sam")
        assert memory.get_thread("u", "t")[0].id == turn.id
        memory.extract_facts("u", "t")
        hits = memory.search("u", "favourite colour", k=3)
        assert hits and "teal" in hits[0].record.content
    # Data survive a restart.
    with Memory(Settings.load(store=str(tmp_path / "m.db")), embedder=local_embedder) as memory:
        assert [t.id for t in memory.get_thread("u", "t")] == [turn.id]


async def test_extract_facts_never_revives_a_retired_fact(memory):
    await add_conversation(memory)
    await memory.extract_facts("alice", "t1")
    facts = await memory.get_memories("alice", kinds=["fact"])
    retired = next(f for f in facts if "Biscuit" in f.content)
    await memory.store.update([retired.model_copy(update={
        "superseded_by": "fact_other", "supersede_reason": SupersedeReason.DUPLICATE,
        "superseded_at": T0 + timedelta(days=1)})])
    again = await memory.extract_facts("alice", "t1")
    assert again.written == [] and again.exact_dedup_skipped == len(facts)
    active = await memory.get_memories("alice", kinds=["fact"])
    assert retired.id not in {f.id for f in active}
    assert not any(f.content_hash == retired.content_hash for f in active)
    # The same words said again in a later turn are new evidence: the fact is stored anew.
    first_turn = (await memory.get_thread("alice", "t1"))[0]
    later = await memory.add_turn("alice", "t1", "user", first_turn.content, speaker="Alice",
                                  created_at=T0 + timedelta(days=2))
    step = await memory.extract_facts("alice", "t1", after_seq=later.seq - 1)
    (revived,) = await memory.store.get("alice", step.written[:1])
    assert revived.content_hash == retired.content_hash and revived.evidence == [later.id]


@pytest.mark.parametrize(("context_tokens", "found_by_context"), [(64, True), (0, False)])
async def test_turn_context_tokens_setting(tmp_path, local_embedder, context_tokens,
                                           found_by_context):
    from agent_memory import AsyncMemory

    settings = Settings.load(store=str(tmp_path / "ctx.db"), turn_context_tokens=context_tokens)
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        await memory.add_turns([
            {"user_id": "u", "thread_id": "t", "role": "assistant", "content": "Which saxophone?"},
            {"user_id": "u", "thread_id": "t", "role": "user", "content": "The alto one, mostly."},
        ])
        hits = await memory.search("u", "saxophone", mode="text", kinds=["turn"])
        ids = [h.record.content for h in hits]
        assert ("The alto one, mostly." in ids) is found_by_context


async def test_open_applies_overrides_on_top_of_given_settings(tmp_path, local_embedder):
    from agent_memory import AsyncMemory, ConfigError

    base = Settings.load(store=str(tmp_path / "a.db"), k_turn_buffer=8)
    async with AsyncMemory.open(base, embedder=local_embedder, rrf_k=30) as memory:
        assert memory.settings.rrf_k == 30 and memory.settings.k_turn_buffer == 8
    with pytest.raises(ConfigError):
        base.merged(rrf_k=0)


async def test_memories_page_through_with_a_cursor(memory) -> None:
    from agent_memory.errors import InvalidInputError

    await memory.add_turns([{"user_id": "u1", "thread_id": "t1", "role": "user",
                             "content": f"message {i}"} for i in range(7)])
    page = await memory.get_memories_page("u1", kinds=["turn"], limit=3)
    seen = [r.id for r in page.records]
    while page.cursor:
        page = await memory.get_memories_page("u1", kinds=["turn"], limit=3, cursor=page.cursor)
        seen += [r.id for r in page.records]
    assert seen == [r.id for r in await memory.get_memories("u1", kinds=["turn"])]
    with pytest.raises(InvalidInputError):
        await memory.get_memories_page("u1", cursor="%%%")

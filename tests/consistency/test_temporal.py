"""Temporal validity end to end: facts written with add_memories (or extracted from turns),
reconciled by the offline reasoner, read current and ``as_of`` a past time through
get_memories, search and contextual fact retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_memory.errors import InvalidTimeError
from agent_memory.models import Fact, SupersedeReason
from agent_memory.pipeline.facts import valid_from
from agent_memory.timeref import asked_moment, plan_passed, stated_start

JAN_2024 = datetime(2024, 1, 10, tzinfo=UTC)
JUNE_2024 = datetime(2024, 6, 15, tzinfo=UTC)
MAY_2025 = datetime(2025, 5, 1, tzinfo=UTC)
JUNE_2025 = datetime(2025, 6, 20, tzinfo=UTC)

BOSTON, PHARMACIST, PORTLAND = ("Kai lives in Boston.", "Kai works as a pharmacist.",
                                "Kai moved to Portland in May 2025.")


async def kai(memory) -> dict[str, Fact]:
    """The three facts of the residence case, reconciled; text -> fact as stored."""
    result = await memory.add_memories("kai", [
        {"content": BOSTON, "subject": "Kai", "created_at": JAN_2024},
        {"content": PHARMACIST, "subject": "Kai", "created_at": JAN_2024},
        {"content": PORTLAND, "subject": "Kai", "created_at": JUNE_2025,
         "valid_from": MAY_2025},
    ])
    assert not result.failed
    await memory.reconcile_memories("kai")
    return {f.content: f for f in await memory.get_memories("kai", include_superseded=True)
            if isinstance(f, Fact)}


def texts(records) -> set[str]:
    return {r.content for r in records}


async def test_a_move_retires_the_old_residence_only_from_then_on(memory) -> None:
    facts = await kai(memory)
    boston, portland = facts[BOSTON], facts[PORTLAND]
    assert boston.superseded_by == portland.id
    assert boston.supersede_reason == SupersedeReason.CONTRADICT
    assert boston.valid_from == JAN_2024
    assert boston.valid_until == portland.valid_from == MAY_2025
    assert facts[PHARMACIST].active and facts[PHARMACIST].valid_until is None
    assert boston.audit[-1].evidence["valid_until"] == MAY_2025.isoformat()

    now = texts(await memory.get_memories("kai"))
    assert now == {PORTLAND, PHARMACIST}
    then = texts(await memory.get_memories("kai", as_of=JUNE_2024))
    assert then == {BOSTON, PHARMACIST}
    assert texts(await memory.get_memories("kai", as_of=MAY_2025)) == {PORTLAND, PHARMACIST}
    page = await memory.get_memories_page("kai", as_of=JUNE_2024)
    assert texts(page.records) == {BOSTON, PHARMACIST}


async def test_search_and_retrieval_read_the_facts_valid_then(memory) -> None:
    await kai(memory)
    question = "Where does Kai live?"
    current = await memory.search("kai", question, kinds=["fact"], k=5)
    assert current[0].record.content == PORTLAND
    assert BOSTON not in texts(h.record for h in current)
    past = await memory.search("kai", question, kinds=["fact"], k=5, as_of=JUNE_2024)
    assert past[0].record.content == BOSTON
    assert PORTLAND not in texts(h.record for h in past)

    then = await memory.retrieve_facts_detailed("kai", "Where did Kai live in June 2024?")
    said = {i.text for i in then.items}
    assert BOSTON in said and PORTLAND not in said
    now = await memory.retrieve_facts_detailed("kai", "Where does Kai live?")
    said = {i.text for i in now.items}
    assert PORTLAND in said and BOSTON not in said
    assert "Boston" in await memory.retrieve_facts("kai", "Where did Kai live in 2024?")


async def test_restore_clears_the_end_of_validity(memory) -> None:
    facts = await kai(memory)
    restored = await memory.restore("kai", facts[BOSTON].id)
    assert restored.valid_until is None and restored.active
    assert restored.audit[-1].evidence["valid_until"] == MAY_2025.isoformat()
    assert BOSTON in texts(await memory.get_memories("kai"))
    assert BOSTON in texts(await memory.get_memories("kai", as_of=datetime(2026, 1, 1,
                                                                           tzinfo=UTC)))


async def test_duplicates_merge_into_the_earliest_valid_from(memory) -> None:
    result = await memory.add_memories("kai", [
        {"content": PHARMACIST, "subject": "Kai", "created_at": JAN_2024},
        {"content": PHARMACIST, "subject": "Kai", "created_at": JUNE_2024},
    ])
    assert not result.failed
    outcome = await memory.reconcile_memories("kai")
    assert outcome.merged == 2
    (merged,) = await memory.get_memories("kai")
    assert isinstance(merged, Fact) and merged.merged_from
    assert merged.valid_from == JAN_2024 and merged.created_at == JUNE_2024
    # the merged fact stands for its sources in the past: one fact, not three
    assert [r.id for r in await memory.get_memories("kai", as_of=JUNE_2024)] == [merged.id]
    assert await memory.get_memories("kai", as_of=datetime(2023, 12, 1, tzinfo=UTC)) == []


async def test_add_memories_checks_the_valid_window(memory) -> None:
    result = await memory.add_memories("kai", [
        {"content": BOSTON, "valid_from": JUNE_2024, "valid_until": JAN_2024},
        {"content": PHARMACIST, "valid_from": JAN_2024, "valid_until": JUNE_2024},
    ])
    assert [f.index for f in result.failed] == [0]
    assert "valid_until" in result.failed[0].error
    (_, added), = result.added
    assert (added.valid_from, added.valid_until) == (JAN_2024, JUNE_2024)
    assert await memory.get_memories("kai", as_of=JUNE_2024) == []
    with pytest.raises(InvalidTimeError):
        await memory.get_memories("kai", as_of="yesterday")  # type: ignore[arg-type]


async def test_boston_portland_from_turns(memory) -> None:
    """End to end with the offline default: the two-claim turn gives two facts, the move
    retires only the residence, and reads as of mid-2024 still see Boston."""
    await memory.add_turns([
        {"user_id": "kai", "thread_id": "t1", "role": "user", "speaker": "Kai",
         "content": "I live in Boston and work as a pharmacist.", "created_at": JAN_2024},
        {"user_id": "kai", "thread_id": "t2", "role": "user", "speaker": "Kai",
         "content": "Big news: I moved to Portland in May!", "created_at": JUNE_2025},
    ])
    for thread in ("t1", "t2"):
        await memory.extract_facts("kai", thread)
    await memory.reconcile_memories("kai")
    now = " ".join(texts(await memory.get_memories("kai", kinds=["fact"])))
    assert "Portland" in now and "Boston" not in now and "pharmacist" in now
    then = " ".join(texts(await memory.get_memories("kai", kinds=["fact"], as_of=JUNE_2024)))
    assert "Boston" in then and "Portland" not in then
    every = await memory.get_memories("kai", kinds=["fact"], include_superseded=True)
    boston = next(f for f in every if "Boston" in f.content)
    portland = next(f for f in every if "Portland" in f.content)
    assert boston.superseded_by == portland.id and boston.valid_until is not None
    assert boston.valid_until == portland.valid_from


async def test_extracted_facts_hold_from_their_turn(memory) -> None:
    await memory.add_turns([
        {"user_id": "kai", "thread_id": "t1", "role": "user", "speaker": "Kai",
         "content": "I live in Boston and work as a pharmacist.", "created_at": JAN_2024}])
    await memory.extract_facts("kai", "t1")
    facts = await memory.get_memories("kai", kinds=["fact"])
    assert facts and all(isinstance(f, Fact) and f.valid_from == JAN_2024 for f in facts)


def test_valid_from_is_a_stated_past_date_else_the_turn() -> None:
    assert valid_from(MAY_2025, JUNE_2025) == MAY_2025  # "moved in May", said in June
    assert valid_from(datetime(2025, 8, 1, tzinfo=UTC), JUNE_2025) == JUNE_2025  # a plan
    assert valid_from(None, JUNE_2025) == JUNE_2025


@pytest.mark.parametrize(("question", "expected"), [
    ("Where did she live in 2023?", datetime(2023, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ("Where did Kai live in June 2024?",
     datetime(2024, 6, 30, 23, 59, 59, 999999, tzinfo=UTC)),
    ("What was her job on May 5, 2023?", datetime(2023, 5, 5, 23, 59, 59, 999999, tzinfo=UTC)),
    ("Where did he live last year?", datetime(2024, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ("Where does she live?", None),
    ("Where will she live in 2027?", None),  # not a past period: current facts answer it
])
def test_the_moment_a_question_asks_about(question: str, expected: datetime | None) -> None:
    assert asked_moment(question, datetime(2025, 11, 26, 12, tzinfo=UTC)) == expected


def test_a_fact_text_states_when_it_started() -> None:
    said = datetime(2025, 6, 20, tzinfo=UTC)
    assert stated_start("Kai has lived in Boston since 2019.", said) == datetime(
        2019, 1, 1, tzinfo=UTC)
    assert stated_start("Kai moved to Portland in May 2025.", said) == MAY_2025
    assert stated_start("Kai started a new job last month.", said) == MAY_2025
    assert stated_start("Kai works as a pharmacist.", said) is None


@pytest.mark.parametrize(("text", "passed"), [
    ("Rosa is going to a conference in July 2023.", True),
    ("Omar is hoping to see a jazz festival in September 2023.", True),
    ("Lena and her family are thinking about a canoe trip in June 2023.", True),
    ("Rosa is going to a conference in November 2023.", False),  # not over yet
    ("Rosa went to a conference in July 2023.", False),  # the past stays true
    ("Anika was born in January 2023.", False),
    ("Priya wants to save 6% of her pay from May 2023.", False),  # a state from then on
    ("Kai has lived in Boston since 2019.", False),
    ("Kai wants to visit Japan.", False),  # no period named
])
def test_a_plan_whose_period_is_over_no_longer_holds(text: str, passed: bool) -> None:
    said, now = datetime(2023, 6, 10, tzinfo=UTC), datetime(2023, 10, 20, tzinfo=UTC)
    assert plan_passed(text, said, now) is passed


async def test_extraction_dates_a_fact_from_its_text(memory) -> None:
    await memory.add_turns([
        {"user_id": "kai", "thread_id": "t1", "role": "user", "speaker": "Kai",
         "content": text, "created_at": JUNE_2025}
        for text in ("Big news: I moved to Portland in May 2025!",
                     "I have lived in Boston since 2019.",
                     "I will move to Denver in 2027.")])
    await memory.extract_facts("kai", "t1")
    starts = {f.content: f.valid_from for f in await memory.get_memories("kai", kinds=["fact"])}
    portland = next(v for k, v in starts.items() if "Portland" in k)
    boston = next(v for k, v in starts.items() if "Boston" in k)
    assert portland == MAY_2025 and boston == datetime(2019, 1, 1, tzinfo=UTC)
    assert all(v == JUNE_2025 for k, v in starts.items() if "Denver" in k)  # a plan: from now


async def test_the_fact_true_since_later_wins_whatever_was_said_last(memory) -> None:
    """A fact learned later about an earlier time does not retire the current one: the
    winner of a contradiction is the fact valid from later (as Graphiti orders edges)."""
    result = await memory.add_memories("kai", [
        {"content": "Kai lives in Portland.", "subject": "Kai", "created_at": JUNE_2024,
         "valid_from": MAY_2025 - (MAY_2025 - JUNE_2024) / 2},
        {"content": "Kai lives in Boston.", "subject": "Kai", "created_at": JUNE_2025,
         "valid_from": JAN_2024},
    ])
    assert not result.failed
    assert (await memory.reconcile_memories("kai")).contradicted == 1
    facts = {f.content: f for f in await memory.get_memories("kai", include_superseded=True)}
    boston, portland = facts["Kai lives in Boston."], facts["Kai lives in Portland."]
    assert portland.active and boston.superseded_by == portland.id
    assert boston.valid_until == portland.valid_from
    assert texts(await memory.get_memories("kai", as_of=JUNE_2024)) == {"Kai lives in Boston."}


async def test_as_of_bounds_facts_only_and_until_bounds_the_other_kinds(memory) -> None:
    # What the README row of search and the MCP tool's as_of description say.
    await kai(memory)
    later = await memory.add_turn("kai", "t1", "user", "Portland has lovely parks, Kai said.",
                                  created_at=JUNE_2025)
    hits = await memory.search("kai", "Portland", mode="text", k=10, as_of=JUNE_2024)
    assert later.id in {h.record.id for h in hits}  # a turn after as_of is still found
    assert PORTLAND not in texts(h.record for h in hits)
    bounded = await memory.search("kai", "Portland", mode="text", k=10, as_of=JUNE_2024,
                                  until=JUNE_2024)
    assert later.id not in {h.record.id for h in bounded}

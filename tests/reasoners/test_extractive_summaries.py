"""Thread summaries, user profiles and sentence salience of the extractive reasoner."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.models import Turn
from agent_memory.profile_schema import schema_fields
from agent_memory.reasoners.base import SummaryDraft
from agent_memory.reasoners.extractive import ExtractiveReasoner
from agent_memory.reasoners.extractive.profile import FieldIndex, summarize_items
from agent_memory.reasoners.extractive.sentences import salience, split_sentences
from agent_memory.reasoners.extractive.summarize import key_topics, summarize_turns
from agent_memory.tokens import count_tokens

LOCOMO = Path(__file__).resolve().parents[2] / "../shared/datasets/locomo/locomo_dev.json"
START = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(text: str, speaker: str, turn_id: str, minutes: int = 0) -> Turn:
    return Turn(id=turn_id, user_id="u1", thread_id="th1", role="user", speaker=speaker,
                content=text, created_at=START + timedelta(minutes=minutes))


CHAT = [
    turn("Hey Jon! Good to see you!", "Gina", "g1", 0),
    turn("Hi Gina! I lost my job as a banker last week, so I'm opening a dance studio.",
         "Jon", "j1", 1),
    turn("Wow, that's great!", "Gina", "g2", 2),
    turn("I'm looking at a studio space downtown with big windows for the dance classes.",
         "Jon", "j2", 3),
    turn("Thanks!", "Jon", "j3", 4),
    turn("My clothing store got its first wholesale order of 200 jackets yesterday.",
         "Gina", "g3", 5),
    turn("What kind of dance do you teach?", "Gina", "g4", 6),
    turn("Contemporary dance mostly; the studio opens on 20 June.", "Jon", "j4", 7),
]


# --- sentences -------------------------------------------------------------------------------

def test_split_sentences() -> None:
    assert split_sentences("Hi there! I met Dr. Smith at 3.30 p.m. today. Did you? Yes.\nOk") == [
        "Hi there!", "I met Dr. Smith at 3.30 p.m. today.", "Did you?", "Yes.", "Ok",
    ]
    assert split_sentences("So inspiring \U0001F4AA I emailed them.") == [
        "So inspiring \U0001F4AA", "I emailed them.",
    ]
    assert split_sentences("  ") == []


def test_salience_penalises_filler_and_rewards_central_sentences() -> None:
    sentences = [
        "Thanks!",
        "Wow, that's great!",
        "I opened a dance studio downtown for contemporary dance classes.",
        "The dance studio has big windows.",
        "My cat sleeps a lot.",
    ]
    scores = salience(sentences)
    assert scores[0] < 0 and scores[1] < 0
    assert scores[2] > scores[4] and scores[3] > 0


# --- thread summaries ------------------------------------------------------------------------

def test_summary_compresses_in_third_person_and_drops_filler_and_questions() -> None:
    draft = summarize_turns(None, CHAT, max_tokens=200)
    thread_tokens = sum(count_tokens(t.content) for t in CHAT)
    assert thread_tokens / count_tokens(draft.text) >= 5
    for line in draft.text.splitlines():
        assert line.startswith(("Jon", "Gina")), line
        assert " I " not in f" {line} " and "my " not in line.lower().split("jon")[0]
    for filler in ("Good to see you", "that's great", "Thanks!", "?"):
        assert filler not in draft.text
    assert set(draft.evidence) <= {t.id for t in CHAT}


def test_a_one_line_thread_reads_right_in_the_summary() -> None:
    """"no longer" is no verb ("noes longer"), a "Big news:" header leaves no colon behind,
    and a question stays one ("said ...?." before)."""
    for said, summary in (
            ("I no longer live in Faro, and I no longer eat meat.",
             "Ines no longer lives in Faro, and no longer eats meat."),
            ("Big news: I moved to Glasgow last month.", "Ines moved to Glasgow in April 2023."),
            ("What's a good breakfast before a race?",
             "Ines asked: What's a good breakfast before a race?")):
        assert summarize_turns(None, [turn(said, "Ines", "i1")], max_tokens=200).text == (
            summary)


def test_the_assistants_echo_of_the_user_is_not_the_record() -> None:
    """The assistant's recap of the user ("you're allergic to ... and ibuprofen") was kept as
    "Coach said Ines is allergic to penicillin and ibuprofen"; the user's own words stay."""
    turns = [turn("I'm allergic to penicillin.", "Ines", "u1"),
             Turn(id="a1", user_id="u1", thread_id="th1", role="assistant", speaker="Coach",
                  content="Noted: you're allergic to penicillin and ibuprofen.",
                  created_at=START + timedelta(minutes=1)),
             turn("Just penicillin.", "Ines", "u2", 2)]
    text = summarize_turns(None, turns, max_tokens=200).text
    assert "Ines is allergic to penicillin." in text and "ibuprofen" not in text


def test_questions_keep_today() -> None:
    turns = [turn("What would you like to focus on today?", "Advisor", "q1"),
             turn("Today I signed the lease for my new dance studio downtown.", "Jon", "j1", 1)]
    draft = summarize_turns(None, turns, max_tokens=200)
    assert "today" not in draft.text and "8 May 2023" in draft.text
    assert "What would you like" not in draft.text


def test_demo_summaries_compress_and_profile_has_no_advisor_sentence(tmp_path) -> None:
    import asyncio

    from agent_memory import AsyncMemory
    from agent_memory.cli.demo import demo_batches
    from agent_memory.config import Settings

    async def run() -> tuple[list[float], str]:
        settings = Settings(store=str(tmp_path / "demo.db"))
        async with AsyncMemory.open(settings) as memory:
            ratios = []
            for batch in demo_batches():
                turns = await memory.add_turns(batch.turns)
                await memory.generate_thread_summary("priya", batch.thread_id)
                await memory.extract_facts("priya", batch.thread_id)
                summary = await memory.get_summary("priya", batch.thread_id)
                ratios.append(sum(count_tokens(t.content) for t in turns)
                              / count_tokens(summary.content))
            await memory.generate_user_summary("priya")
            profile = await memory.get_profile("priya")
            return ratios, profile.content

    ratios, profile = asyncio.run(run())
    assert min(ratios) >= 5
    assert "Advisor" not in profile and "you" not in profile.lower().split()
    assert "Priya and her husband want to buy their first home" in profile


def test_summary_respects_small_budgets() -> None:
    for budget in (5, 12, 25, 40, 60):
        draft = summarize_turns(None, CHAT, max_tokens=budget)
        assert 1 <= count_tokens(draft.text) <= budget
        assert set(draft.evidence) <= {t.id for t in CHAT}


def test_tight_budget_keeps_the_most_salient_sentences() -> None:
    draft = summarize_turns(None, CHAT, max_tokens=45)
    assert "dance" in draft.text
    assert "What kind of dance" not in draft.text  # a question loses to statements


def test_incremental_summary_stays_within_budget_over_30_calls() -> None:
    budget = 120
    summary: str | None = None
    for call in range(30):
        turns = [
            turn(f"On trip {call} I visited museum number {call} in city {call}.", "Ana",
                 f"a{call}", call * 3),
            turn("Cool!", "Ben", f"b{call}", call * 3 + 1),
            turn(f"I keep training for the Boston marathon, week {call} of my plan.", "Ana",
                 f"c{call}", call * 3 + 2),
        ]
        draft = summarize_turns(summary, turns, budget)
        assert count_tokens(draft.text) <= budget
        assert "Cool!" not in draft.text
        summary = draft.text
    assert summary is not None and "marathon" in summary
    lines = summary.splitlines()
    assert all(line.startswith("Ana ") for line in lines)


def test_incremental_summary_keeps_salient_old_content() -> None:
    first = summarize_turns(None, CHAT, max_tokens=200)
    later = [
        turn("The dance studio lease is signed for two years.", "Jon", "j5", 60),
        turn("Nice!", "Gina", "g5", 61),
    ]
    second = summarize_turns(first.text, later, max_tokens=200)
    assert "dance studio" in second.text and "lease is signed" in second.text
    kept = [line for line in first.text.splitlines() if line in second.text]
    assert kept  # old content survives when it still fits
    assert second.evidence == ["j5"]  # previous-summary sentences carry no new ids
    assert second.text.index(kept[0]) < second.text.index("lease")


def test_previous_summary_only_and_errors() -> None:
    draft = summarize_turns("Ana: I moved to Lisbon in 2021.", [], max_tokens=50)
    assert draft.text == "Ana moved to Lisbon in 2021."
    assert draft.evidence == []
    with pytest.raises(InvalidInputError):
        summarize_turns(None, [], max_tokens=50)
    with pytest.raises(InvalidInputError):
        summarize_turns(None, CHAT, max_tokens=0)


def test_key_topics() -> None:
    topics = key_topics([
        "I opened a dance studio downtown.", "The dance studio has big windows.",
        "Jon teaches contemporary dance at the dance studio.",
    ], names=["Jon"])
    assert topics[0] == "dance studio"
    assert "jon" not in topics and len(topics) <= 5
    assert "dance" in summarize_turns(None, CHAT, 200).key_topics


# --- user profiles ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def index() -> FieldIndex:
    """The default schema's prototypes, embedded with the real local model."""
    from agent_memory.embedders.local import LocalEmbedder

    return FieldIndex(LocalEmbedder().embed_sync, schema_fields())


def test_user_summary_newer_wins_on_near_duplicates(index) -> None:
    draft = summarize_items(
        "Ana lives in Lisbon with her two cats and works as a nurse.",
        ["Ana works as a nurse at Santa Maria hospital.",
         "Ana lives in Porto with her two cats and works as a nurse."],
        max_tokens=100, index=index,
    )
    assert "Porto" in draft.text and "Lisbon" not in draft.text
    assert "Santa Maria" in draft.text
    assert draft.evidence == []


def test_user_summary_budget_and_order(index) -> None:
    items = [f"Ana ran a {k} km race in city number {k} with her running club." for k in range(40)]
    draft = summarize_items(None, items, max_tokens=80, index=index)
    assert count_tokens(draft.text) <= 80
    # forty statements of one thing (the numbers are no content terms): one stays
    assert len(draft.text.splitlines()) == 1
    assert len(split_sentences(draft.text.split(": ", 1)[1])) == 1
    sports = ["Ana plays tennis on Sundays.", "Ana paints watercolours.",
              "Ana sings in a choir.", "Ana collects old maps.", "Ana goes fishing in summer."]
    draft = summarize_items(None, sports, max_tokens=20, index=index)
    assert count_tokens(draft.text) <= 20
    shown = [sports.index(s) for s in split_sentences(draft.text.split(": ", 1)[1])]
    assert shown == sorted(shown)  # conversation order within the line
    with pytest.raises(InvalidInputError):
        summarize_items(None, [], 80, index=index)


def test_user_summary_folds_thread_summaries_with_speakers(index) -> None:
    thread = summarize_turns(None, CHAT, 200).text
    profile = summarize_items(None, [thread], 60, index=index)
    assert count_tokens(profile.text) <= 60
    labels = {line.split(":")[0] for line in profile.text.splitlines()}
    assert labels and all(label[0].isupper() and label not in {"Jon", "Gina"}
                          for label in labels)


async def test_reasoner_interface_returns_valid_models() -> None:
    reasoner = ExtractiveReasoner()
    thread = await reasoner.summarize_thread(None, CHAT, 150)
    profile = await reasoner.summarize_user(None, [thread.text], 80)
    for draft in (thread, profile):
        assert isinstance(draft, SummaryDraft)
        SummaryDraft.model_validate(draft.model_dump())
        assert len(draft.key_topics) <= 5


# --- real conversations ----------------------------------------------------------------------

@pytest.mark.dataset
def test_locomo_conversation_summarised_session_by_session() -> None:
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo dev set not found at {LOCOMO}")
    sample = next(s for s in json.loads(LOCOMO.read_text()) if s["sample_id"] == "conv-26")
    conversation = sample["conversation"]
    summary: str | None = None
    session = 1
    while f"session_{session}" in conversation:
        stamp = datetime.strptime(conversation[f"session_{session}_date_time"],
                                  "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        turns = [Turn(id=raw["dia_id"], user_id="conv-26", thread_id="t", role="user",
                      speaker=raw["speaker"], content=raw["text"], created_at=stamp)
                 for raw in conversation[f"session_{session}"]]
        draft = summarize_turns(summary, turns, 250)
        assert count_tokens(draft.text) <= 250
        assert set(draft.evidence) <= {t.id for t in turns}
        for line in draft.text.splitlines():
            assert "Caroline" in line or "Melanie" in line, line
        new_tokens = sum(count_tokens(t.content) for t in turns)
        assert count_tokens(draft.text) <= count_tokens(summary or "") + max(16, new_tokens // 5)
        summary = draft.text
        session += 1
    assert session > 10


def test_field_cosines_stay_within_one_for_a_text_equal_to_a_prototype(index) -> None:
    """float32 rows a hair over unit length gave 1.0000002 for a fact equal to a prototype,
    which a field score (0-1) refused; cosines are kept within [-1, 1]."""
    def long_rows(texts: list[str]) -> np.ndarray:
        return (index.embed(texts) * np.float32(1.000001)).astype(np.float32)

    fields = schema_fields()
    over = FieldIndex(long_rows, fields)
    prototype = fields[0].prototypes[0]
    best, chatter = over.scores([prototype], [None])
    assert best.max() <= 1.0 and chatter.max() <= 1.0
    assert best.max() == pytest.approx(1.0, abs=1e-5)
    assert over.assign([prototype], [None])[0].score <= 1.0

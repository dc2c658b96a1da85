"""Short answers to a question put to the speaker become the speaker's claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.models import Turn
from agent_memory.reasoners.extractive.answers import _YES, statement
from agent_memory.reasoners.extractive.facts import extract_facts
from agent_memory.reasoners.extractive.parse import parse

WHEN = datetime(2025, 4, 15, 9, 0, tzinfo=UTC)


def _statement(question: str, reply: str) -> str | None:
    yes = bool(_YES.match(reply))
    rest = _YES.sub("", reply) if yes else reply
    asked, answer = parse([question, rest or "."])
    return statement(asked, answer, yes)


@pytest.mark.parametrize(("question", "reply", "expected"), [
    ("How long have you been teaching?", "Since I was 25 or so.",
     "I have been teaching since I was 25 or so"),
    ("How often do you go running?", "Three times a week.", "I go running three times a week"),
    ("Where are you moving to?", "Portland, next month.", "I am moving to Portland, next month"),
    ("Where are you from?", "Ohio.", "I am from Ohio"),
    ("What are you reading these days?", "A mystery novel.",
     "I am reading a mystery novel these days"),
    ("What kind of music do you play?", "Mostly jazz.", "I play mostly jazz"),
    ("How many kids do you have?", "Three.", "I have three kids"),
    ("How much money have you saved?", "$28,000 so far.", "I have saved $28,000 so far"),
    ("What's your dog's name?", "Max.", "My dog's name is Max"),
    ("So, what's your budget for the house?", "About $350,000.",
     "My budget for the house is about $350,000"),
    ("When is your birthday?", "March 3rd.", "My birthday is March 3rd"),
    ("So, do you have any pets?", "Yup, I do.", "I have pets"),
    ("Have you ever been to Lisbon?", "Yes!", "I have been to Lisbon"),
    ("Are you a nurse?", "Yes, I am.", "I am a nurse"),
    # "did": the verb in its simple past, irregular forms included
    ("When did you start painting?", "In 2019.", "I started painting in 2019"),
    ("What did you study at uni?", "Mostly chemistry.", "I studied mostly chemistry at uni"),
    ("How many kids did you have?", "Two.", "I had two kids"),
    ("Did you finish the race?", "Yes!", "I finished the race"),
    # "where" answered by a bare place: the preposition the verb takes
    ("Where do you live?", "Leeds.", "I live in Leeds"),
    ("Where did you grow up?", "In Ohio.", "I grew up in Ohio"),
    ("Where did you grow up?", "Ohio.", "I grew up in Ohio"),  # "up" is a particle
    ("When did you move to Leeds?", "2015.", "I moved to Leeds in 2015"),
    ("Where are you moving?", "Portland.", "I am moving to Portland"),
    ("Where did you go?", "Back home.", "I went back home"),
])
def test_a_question_and_its_short_answer_make_a_first_person_claim(
        question: str, reply: str, expected: str) -> None:
    assert _statement(question, reply) == expected


@pytest.mark.parametrize(("question", "reply"), [
    ("How was the trip?", "Amazing!"),  # a manner question: the answer judges
    ("Why did you move?", "For work."),  # a reason: the answer is no part of the statement
    ("Did you?", "Yes."),  # no verb to put in the past
    ("Which board games did you all try?", "Chess, mostly."),  # the listener's group
    ("Where are you guys staying?", "A cabin by the lake."),
    ("Where did you go to school?", "Leeds."),  # words after the verb: whose place?
    ("Where did you take your kids?", "Paris."),
    ("Didn't you adopt a cat last year?", "Yes!"),  # negated: "yes" may agree either way
    ("What's the plan?", "Pizza."),  # not about the listener
    ("Do you have any pets?", "Not really."),  # no "yes"
])
def test_questions_not_read_give_no_claim(question: str, reply: str) -> None:
    assert _statement(question, reply) is None


def _facts(*said: tuple[str, str]) -> list[tuple[str | None, str]]:
    turns = [Turn(id=f"t{i}", user_id="u1", thread_id="th1",
                  role="assistant" if who == "assistant" else "user",
                  speaker=None if who == "assistant" else who, content=text,
                  created_at=WHEN + timedelta(minutes=i))
             for i, (who, text) in enumerate(said)]
    return [(f.subject, f.text) for f in extract_facts(turns).facts]


def test_a_short_answer_to_the_assistant_is_the_users_fact() -> None:
    """The assistant asks, the user answers in a few words: the fact is the user's, cited to
    the answer's turn, with the question's words."""
    facts = _facts(("Priya", "I want to buy a flat in Leeds."),
                   ("assistant", "Great goal. What's your budget for the flat?"),
                   ("Priya", "About $350,000."))
    assert ("Priya", "Priya's budget for the flat is about $350,000.") in facts
    turns = [Turn(id="a", user_id="u1", thread_id="th1", role="user", speaker="Melanie",
                  content="How long have you been painting?", created_at=WHEN),
             Turn(id="b", user_id="u1", thread_id="th1", role="user", speaker="Caroline",
                  content="Since I was 19 or so. It keeps me sane.", created_at=WHEN)]
    (fact,) = [f for f in extract_facts(turns).facts if "painting" in f.text]
    assert fact.text == "Caroline has been painting since they were 19 or so."
    assert fact.evidence == ["b", "a"] and fact.subject == "Caroline"  # the answer, the question


@pytest.mark.parametrize(("question", "reply"), [
    ("Where are you moving to?", "Not sure yet."),  # no answer
    ("What's your budget?", "No clue."),
    ("How often do you go running?", "Not often, sadly."),
    ("How long have you known my brother?", "Since 2015."),  # "my" is the asker's
    ("Do you want to join us for dinner on Saturday?", "Sure!"),
    ("Could you share your monthly income?", "Sure!"),  # a request
    ("Gina, do you have any pets?", "Yes!"),  # put to someone else
])
def test_no_claim_from_a_non_answer_the_askers_words_a_request_or_another_addressee(
        question: str, reply: str) -> None:
    assert _facts(("Jon", question), ("Maria", reply)) == []


def test_a_did_question_and_its_answer_make_a_fact_in_the_past() -> None:
    """The assistant asks with "did", the user answers in a few words: the fact is in the
    past tense, with the irregular form where the verb has one."""
    assert _facts(("assistant", "When did you move to Leeds?"), ("Priya", "In 2021.")) == [
        ("Priya", "Priya moved to Leeds in 2021.")]
    assert _facts(("assistant", "Where did you meet your husband?"), ("Priya", "At uni.")) == [
        ("Priya", "Priya met their husband at uni.")]


def test_the_claim_is_spaced_and_keeps_a_place_name() -> None:
    assert _facts(("Jon", "What're you reading these days?"), ("Gina", "A mystery novel.")) == [
        ("Gina", "Gina is reading a mystery novel these days.")]
    assert _facts(("Jon", "Where are you moving to, Gina?"), ("Gina", "Portland.")) == [
        ("Gina", "Gina is moving to Portland.")]


def test_a_full_reply_a_command_or_a_name_called_out_is_no_short_answer() -> None:
    """A reply in a sentence of its own is read as said; a command or a name is no answer."""
    assert _facts(("Jon", "What do you do for work?"), ("Gina", "I'm a nurse at St. Mary's.")
                  ) == [("Gina", "Gina is a nurse at St. Mary's.")]
    assert _facts(("Jon", "What do you make of these?"), ("Gina", "Love the green jug!")) == []
    assert _facts(("Jon", "What's your plan for the summer?"), ("Gina", "Jonny!")) == []


async def test_a_short_answer_passes_the_grounding_check_with_its_question(memory) -> None:
    """The claim's words are the question's as much as the answer's: it cites both turns, the
    answer first, so the grounding check finds its words and its speaker (citing the answer
    alone, "budget" and "flat" were unsupported and the fact was refused)."""
    said = [("assistant", "How long have you been teaching?"),
            ("user", "Since 2010, mostly chemistry."),
            ("assistant", "What's your budget for the flat?"), ("user", "About $350,000.")]
    turns = [await memory.add_turn("kofi", "th1", role, text,
                                   created_at=WHEN + timedelta(minutes=i))
             for i, (role, text) in enumerate(said)]
    result = await memory.extract_facts("kofi", "th1")
    assert result.grounding_rejected == 0
    stored = {f.content: f.evidence for f in await memory.get_memories("kofi", kinds=["fact"])}
    assert stored == {
        "The user has been teaching since 2010, mostly chemistry.": [turns[1].id, turns[0].id],
        "The user's budget for the flat is about $350,000.": [turns[3].id, turns[2].id]}

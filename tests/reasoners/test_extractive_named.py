"""A thing the speaker named ("my cat Miso") is the speaker's when it is later read by name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.models import Turn
from agent_memory.reasoners.extractive.facts import extract_facts
from agent_memory.reasoners.extractive.named import named_things, owned

WHEN = datetime(2024, 3, 14, 9, 0, tzinfo=UTC)  # a Thursday


def _turns(*said: tuple[str, str]) -> list[Turn]:
    return [Turn(id=f"t{i}", user_id="u1", thread_id="th1",
                 role="assistant" if who == "assistant" else "user",
                 speaker=None if who == "assistant" else who, content=text,
                 created_at=WHEN + timedelta(minutes=i))
            for i, (who, text) in enumerate(said)]


@pytest.mark.parametrize(("sentence", "name", "noun"), [
    ("My cat Miso is 14.", "miso", "cat"),
    ("Our dog, Pip, ate my shoe.", "pip", "dog"),
    ("Miso, my cat, got sick.", "miso", "cat"),
    ("I adopted a cat named Miso last year.", "miso", "cat"),
    ("We got a puppy called Biscuit.", "biscuit", "puppy"),
    ("My daughter Ana starts school in May.", "ana", "daughter"),
])
def test_a_name_given_to_the_speakers_thing_is_read(sentence: str, name: str, noun: str) -> None:
    things = named_things({"t0": [sentence]}, {"t0": "Dana"}, frozenset({"dana", "sam"}))
    assert things == {"Dana": {name: (noun, "t0")}}


@pytest.mark.parametrize("sentence", [
    "My trip to Lisbon was great.",  # a place after a preposition
    "My birthday is in May.",  # a date
    "My friend Sam says hi.",  # a speaker's name
    "Her cat Miso is 14.",  # not the speaker's
])
def test_no_name_from_a_place_a_date_a_speaker_or_someone_elses_thing(sentence: str) -> None:
    assert named_things({"t0": [sentence]}, {"t0": "Dana"}, frozenset({"dana", "sam"})) == {}


def test_a_sentence_opening_with_the_name_is_written_with_the_owner() -> None:
    things = {"miso": ("cat", "t0")}
    assert owned("Miso died on Sunday.", things) == ("My cat Miso died on Sunday.", "t0")
    assert owned("Miso's vet was kind.", things) == ("My cat Miso's vet was kind.", "t0")
    assert owned("Sunday was hard for Miso.", things) is None  # not the opening word


def test_a_named_pet_read_again_by_name_gives_the_owners_fact_citing_both_turns() -> None:
    """"Miso died on Sunday." said after "my cat Miso" is Dana's news about their cat (before,
    it had no "I" or "my" and gave nothing); the fact cites the turn that said "cat" too."""
    turns = _turns(("Dana", "My cat Miso was 14 and so gentle."), ("Sam", "Aww, I remember."),
                   ("Dana", "Sad news. Miso died on Sunday."))
    (fact,) = [f for f in extract_facts(turns).facts if "died" in f.text]
    assert fact.text == "Dana's cat Miso died on Sunday 10 March 2024."
    assert fact.subject == "Dana" and fact.evidence == ["t2", "t0"]
    assert fact.occurred_at == "2024-03-10"


def test_another_speakers_named_thing_is_not_theirs() -> None:
    """Sam saying "Miso ..." about Dana's cat is no fact about Sam."""
    turns = _turns(("Dana", "My cat Miso got sick last month."),
                   ("Sam", "Ha, Miso always hid under the sofa."))
    assert [f.subject for f in extract_facts(turns).facts if "Miso" in f.text] == ["Dana"]


async def test_the_named_pet_fact_passes_the_grounding_check(memory) -> None:
    """Through the pipeline on a real SQLite file: "cat" is only in the naming turn, so the fact
    is stored because it cites that turn too."""
    said = ["My cat Miso is 14 and rules the house.", "Sad news. Miso died on Sunday."]
    turns = [await memory.add_turn("dana", "th1", "user", text,
                                   created_at=WHEN + timedelta(minutes=i))
             for i, text in enumerate(said)]
    result = await memory.extract_facts("dana", "th1")
    assert result.grounding_rejected == 0
    stored = {f.content: f.evidence for f in await memory.get_memories("dana", kinds=["fact"])}
    assert stored["The user's cat Miso died on Sunday 10 March 2024."] == [turns[1].id,
                                                                          turns[0].id]


async def test_a_window_is_read_with_the_turns_before_it(memory) -> None:
    """The job worker reads a thread in windows (``after_seq``). A reply whose question, or a
    sentence whose named pet, is in the window before is still read (the pipeline hands the
    reasoner the turns before as context); nothing comes again from those turns."""
    said = [("user", "My cat Miso is 14."),
            ("assistant", "How long have you lived in Leeds?"),
            ("user", "Since 2019."), ("user", "Sad news. Miso died on Sunday.")]
    turns = [await memory.add_turn("dana", "th1", role, text,
                                   created_at=WHEN + timedelta(minutes=i))
             for i, (role, text) in enumerate(said)]
    first = await memory.extract_facts("dana", "th1", after_seq=-1, upto_seq=turns[1].seq)
    assert {f.content for f in await memory.get_memories("dana", kinds=["fact"])} == {
        "The user's cat Miso is 14."}
    second = await memory.extract_facts("dana", "th1", after_seq=turns[1].seq)
    assert second.turns_read == 2 and second.grounding_rejected == 0
    stored = {f.content: f.evidence for f in await memory.get_memories("dana", kinds=["fact"])
              if f.id in second.written}
    assert stored == {
        "The user has lived in Leeds since 2019.": [turns[2].id, turns[1].id],
        "The user's cat Miso died on Sunday 10 March 2024.": [turns[3].id, turns[0].id]}
    assert first.written and not set(first.written) & set(second.written)


def test_context_turns_give_no_fact_of_their_own() -> None:
    before = _turns(("Dana", "My cat Miso is 14."), ("Dana", "I work as a nurse in Leeds."))
    after = [t.model_copy(update={"id": f"n{i}"}) for i, t in enumerate(
        _turns(("Dana", "Miso died on Sunday.")))]
    facts = extract_facts(after, context=before).facts
    assert [(f.text, f.evidence) for f in facts] == [
        ("Dana's cat Miso died on Sunday 10 March 2024.", ["n0", "t0"])]

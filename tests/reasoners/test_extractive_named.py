"""A thing the speaker named ("my cat Miso") is the speaker's when it is later read by name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.models import Turn
from agent_memory.reasoners.extractive.facts import extract_facts
from agent_memory.reasoners.extractive.named import named_things, owned
from agent_memory.text.names import names_thing, opening_names

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


@pytest.mark.parametrize(("naming", "later"), [
    ("I met a woman named Rose at the park.", "Rose is a retired teacher."),  # met, not owned
    ("I'm reading a book called Dune.", "Dune is one of the best novels ever."),
    ("My daughter Hope is six.", "Hope the weather holds up for the wedding."),  # no subject
    ("My dog Max is six.", "Max capacity at the gym is 50 people."),
    ("My cat Miso is 14.", "Miso, get off the table!"),  # a call to the cat
    ("My late husband Frank loved jazz.", "Frank Sinatra was his idol."),  # a longer name
    ("My therapist Dr Lee is great.", "Dr Patel thinks the scan is clear."),
])
def test_a_word_that_is_not_the_named_thing_gets_no_owner(naming: str, later: str) -> None:
    turns = _turns(("Dana", naming), ("Dana", later))
    assert not any(f.evidence[0] == "t1" and "Dana's" in f.text
                   for f in extract_facts(turns).facts)


def test_a_thing_named_only_after_the_mention_is_not_yet_known() -> None:
    turns = _turns(("Dana", "Miso died on Sunday."), ("Dana", "My cat Miso was 14."))
    assert [f.evidence for f in extract_facts(turns).facts] == [["t1"]]


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


async def test_the_turns_before_a_window_are_found_when_seqs_have_gaps(memory) -> None:
    """Seqs given by the caller leave gaps: the turns before the window are the last ones at
    or below the watermark, not the ones within 8 seq numbers of it."""
    said = ["My cat Miso is 14.", "Work was busy.", "Sad news. Miso died on Sunday."]
    turns = [await memory.add_turn("dana", "th1", "user", text, seq=20 * i,
                                   created_at=WHEN + timedelta(minutes=i))
             for i, text in enumerate(said)]
    step = await memory.extract_facts("dana", "th1", after_seq=turns[1].seq)
    assert step.turns_read == 1
    facts = {f.content: f.evidence for f in await memory.get_memories("dana", kinds=["fact"])}
    assert facts == {"The user's cat Miso died on Sunday 10 March 2024.": [turns[2].id,
                                                                          turns[0].id]}


@pytest.mark.parametrize(("texts", "names", "not_names"), [
    (["Sad news. Miso died on Sunday."], {"Miso"}, set()),
    (["Pip is 3 now! The vet says he is fine. Thanks for asking."], {"Pip"}, {"The", "Thanks"}),
    (["Miso, get off the table!", "Dana went home."], set(), {"Miso", "Dana"}),  # a call; a
    (["Yesterday was long. Biscuit ate my shoe."], {"Biscuit"}, {"Yesterday"}),  # speaker
    (["Sad news: Bo died.", "Zoë's kidneys failed.", "Oh no. So it goes."], {"Bo", "Zoë"},
     {"Oh", "So"}),
])
def test_names_said_alone_are_the_sentence_openers_worth_a_search(texts, names,
                                                                  not_names) -> None:
    found = set(opening_names(texts, exclude={"dana"}))
    assert names <= found and not found & not_names


@pytest.mark.parametrize(("text", "named"), [
    ("My cat Miso is 14.", True), ("Our dog, Miso, ate my shoe.", True),
    ("We adopted a kitten named Miso.", True), ("My dog's name is Miso.", True),
    ("Miso, my cat, got sick.", True), ("I love miso soup.", False),
    ("Miso died on Sunday.", False), ("My Misophonia is bad.", False),
])
def test_a_naming_turn_is_found_by_its_pattern(text: str, named: bool) -> None:
    assert names_thing(text, "Miso") is named


async def test_a_thing_named_in_an_older_thread_is_read_by_name_in_a_new_one(memory) -> None:
    """The naming turn is in another thread: the pipeline finds it by one full-text search of
    the user's turns and hands it over as context. The fact cites both turns, belongs to the
    new thread and is dated by the new turn."""
    naming = await memory.add_turn("dana", "th1", "user", "My cat Miso is 14 and rules the house.",
                                   created_at=WHEN)
    await memory.extract_facts("dana", "th1")
    later = await memory.add_turn("dana", "th2", "user", "Sad news. Miso died on Sunday.",
                                  created_at=WHEN + timedelta(days=13))
    step = await memory.extract_facts("dana", "th2")
    assert step.grounding_rejected == 0
    [fact] = [f for f in await memory.get_memories("dana", kinds=["fact"])
              if f.id in step.written]
    assert fact.content == "The user's cat Miso died on Sunday 24 March 2024."
    assert fact.evidence == [later.id, naming.id]
    assert fact.thread_id == "th2" and fact.created_at == later.created_at


async def test_no_naming_turn_from_another_user_or_from_later(memory) -> None:
    """Another user's "my cat Miso" is never read for Dana; nor is a naming turn said after
    the sentence, nor one of the user's that names nothing."""
    await memory.add_turn("sam", "th1", "user", "My cat Miso is 14.", created_at=WHEN)
    await memory.add_turn("dana", "th1", "user", "I had miso soup for lunch.", created_at=WHEN)
    await memory.add_turn("dana", "th2", "user", "Sad news. Miso died on Sunday.",
                          created_at=WHEN + timedelta(days=13))
    await memory.add_turn("dana", "th3", "user", "My cat Miso was 14.",
                          created_at=WHEN + timedelta(days=20))
    step = await memory.extract_facts("dana", "th2")
    assert step.turns_read == 1 and step.written == [] and step.grounding_rejected == 0


async def test_a_pets_death_in_a_new_thread_retires_its_age(memory) -> None:
    """The walk from "my cat Miso is 14" to "Miso died" two weeks later, in another thread, on
    a real SQLite file: the death is read as the user's, and reconciliation retires the
    age; what happened before stays."""
    await memory.add_turn("dana", "th1", "user", "My cat Miso is 14. I adopted Miso in 2010.",
                          created_at=WHEN)
    await memory.extract_facts("dana", "th1")
    await memory.add_turn("dana", "th2", "user", "Sad news. Miso died on Sunday.",
                          created_at=WHEN + timedelta(days=13))
    await memory.extract_facts("dana", "th2")
    result = await memory.reconcile_memories("dana")
    facts = {f.content: f for f in await memory.get_memories("dana", kinds=["fact"],
                                                             include_superseded=True)}
    assert result.contradicted == 1
    died = facts["The user's cat Miso died on Sunday 24 March 2024."]
    assert died.active and facts["The user's cat Miso is 14."].superseded_by == died.id
    assert [f.active for text, f in facts.items() if "2010" in text] == [True]

"""What "it" and "this <noun>" stand for in the talk before a fact (real spaCy model)."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_memory.models import Turn
from agent_memory.reasoners.extractive.antecedents import Context, resolve_references
from agent_memory.reasoners.extractive.facts import extract_facts

WHEN = datetime(2024, 3, 14, 10, 0, tzinfo=UTC)


def said(*lines: tuple[str, str]) -> list[Turn]:
    return [Turn(id=f"t{n}", user_id="u1", thread_id="th1", role="user", speaker=speaker,
                 content=text, created_at=WHEN)
            for n, (speaker, text) in enumerate(lines)]


def facts(*lines: tuple[str, str]) -> list[str]:
    return [f.text for f in extract_facts(said(*lines)).facts]


def test_it_is_the_thing_the_listener_asked_about():
    assert facts(("Sam", "That teapot is lovely! Did you make it?"),
                 ("Dana", "Yes, I made it in my ceramics class on Saturday.")) == [
        "Dana made the teapot in their ceramics class on Saturday 9 March 2024."]


def test_it_is_the_one_thing_named_in_the_sentence_before():
    assert resolve_references("My aunt sewed it for my tenth birthday", [
        Context("I still treasure my patchwork quilt.", own=True)]) == (
        "My aunt sewed my patchwork quilt for my tenth birthday")


def test_the_speakers_thing_named_by_the_listener_is_theirs():
    assert resolve_references("I borrowed it for the weekend", [
        Context("Is your old bike still working?", own=False)]) == (
        "I borrowed my old bike for the weekend")


def test_a_pet_or_a_band_can_be_it_a_person_cannot():
    assert resolve_references("I adopted it from a shelter in 2019", [
        Context("My cat is doing fine.", own=True)]) == (
        "I adopted my cat from a shelter in 2019")
    assert resolve_references("I started it with my cousin", [
        Context("Our band is doing well.", own=True)]) == (
        "I started our band with my cousin")
    assert resolve_references("I called it on Sunday", [
        Context("My sister is in Lisbon.", own=True)]) == "I called it on Sunday"


def test_it_in_a_joined_clause_is_the_object_of_the_clause_before():
    """Parallel clauses keep their objects: "I bought a bike and I ride it every day"."""
    assert facts(("Ines", "I bought a bike and I ride it every day.")) == [
        "Ines bought a bike.", "Ines rides the bike every day."]
    assert facts(("Ines", "I adopted a puppy in May, and I walk it twice a day.")) == [
        "Ines adopted a puppy in May 2023.", "Ines walks the puppy twice a day."]
    # resolved before the clause is judged, so a change of taste is kept ("now I love it"
    # was no candidate: one content word); a bare noun stays bare
    assert facts(("Ines", "I used to hate cilantro but now I love it.")) == [
        "Ines used to hate cilantro.", "Now Ines loves cilantro."]
    # two objects before: left as it is
    assert facts(("Ines", "I bought a bike and a helmet and I use it every day."))[-1] == (
        "Ines uses it every day.")


def test_it_stays_when_what_it_stands_for_is_not_clear():
    two = [Context("My new sofa and my big mirror came today.", own=True)]
    assert resolve_references("I carried it home on the bus", two) == (
        "I carried it home on the bus")
    # two subjects or objects, the one pointed at among them
    for before in ("My garden gave a huge pumpkin.", "My tutor set a long essay."):
        assert resolve_references("I finished it on Sunday", [
            Context(before, own=True)]) == "I finished it on Sunday"
    # a thing not pointed at ("a", "the") or only the place of something
    assert resolve_references("I cooked it for two hours", [
        Context("I put the stew in the oven.", own=True)]) == "I cooked it for two hours"
    likeness = [Context("Wow, it looks like a real waterfall!", own=False)]
    assert resolve_references("I painted it after my trip to Norway", likeness) == (
        "I painted it after my trip to Norway")
    general = [Context("Where did that idea come from?", own=False)]
    assert resolve_references("I painted it in one evening", general) == (
        "I painted it in one evening")
    assert resolve_references("I painted it in one evening", []) == (
        "I painted it in one evening")


def test_a_demonstrative_becomes_the_speakers_possessive_when_the_talk_says_so():
    assert resolve_references("I planted this garden with my dad", [
        Context("Your garden looks amazing!", own=False)]) == (
        "I planted my garden with my dad")
    assert resolve_references("I finished this puzzle in two days", [
        Context("What a picture!", own=False)]) == (
        "I finished this puzzle in two days")
    assert resolve_references("I learned to cook in this way", [
        Context("My way is slower.", own=True)]) == "I learned to cook in this way"
    # a time or a described new thing is no reference
    assert resolve_references("I met this amazing potter at the fair", [
        Context("How was the fair?", own=False)]) == (
        "I met this amazing potter at the fair")


def test_a_bare_this_as_object_is_resolved_as_it_is():
    assert resolve_references("I painted this after my trip to the coast", [
        Context("That seascape is stunning!", own=False)]) == (
        "I painted the seascape after my trip to the coast")
    # as a subject it mostly stands for an event
    assert resolve_references("That was the best part of my week", [
        Context("How was the concert?", own=False)]) == (
        "That was the best part of my week")


def test_phrases_that_name_nothing_and_set_phrases_are_left_alone():
    no_thing = [Context("Did you bake that bread by any chance?", own=False)]
    assert resolve_references("I loved it", [Context("No prob!", own=True)]) == "I loved it"
    assert resolve_references("I shared it with my neighbours", no_thing) == (
        "I shared the bread with my neighbours")
    assert resolve_references("I entered it in the county fair", [
        Context("That is a huge deal.", own=True)]) == "I entered it in the county fair"
    assert resolve_references("We gave it everything at the regional final", [
        Context("The match was tough.", own=True)]) == (
        "We gave it everything at the regional final")
    assert resolve_references("Honestly its been a long road for me", [
        Context("The contest took months.", own=True)]) == (
        "Honestly its been a long road for me")


def test_the_listeners_own_news_is_not_what_it_stands_for():
    assert resolve_references("I tried it at the new café", [
        Context("I baked an apple pie last night.", own=False)]) == (
        "I tried it at the new café")


def test_a_bare_go_takes_the_activity_just_named():
    """"I go three mornings a week" after "I love running" is about running ("Dana goes three
    mornings a week." before); a "go" that says where, or two activities before, stays."""
    assert facts(("Dana", ("Funny thing: I actually love running now. I go three mornings a "
                           "week."))) == [
        "Dana actually loves running now.", "Dana goes running three mornings a week."]
    assert facts(("Dana", "I started swimming in May and I go twice a week.")) == [
        "Dana started swimming in May 2023.", "Dana goes swimming twice a week."]
    assert facts(("Dana", "I love climbing. I go there every week."))[-1] == (
        "Dana goes there every week.")
    assert facts(("Dana", "I love running and hiking. I go every Saturday."))[-1] == (
        "Dana goes every Saturday.")

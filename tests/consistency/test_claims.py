"""Fact sentences read as claims (reasoners/extractive/claims.py): what an ending verb ended,
the onset that "now" marks, coordinated subjects and closing contrasts."""

from __future__ import annotations

import pytest

from agent_memory.reasoners.extractive.claims import parse_claim


@pytest.mark.parametrize(("text", "predicate"), [
    # what ended keeps its destination and what a plan was for
    ("Ines cancelled her trip to Lima.", "her trip to Lima"),
    ("Ines gave up her plan to cycle across Chile.", "her plan to cycle across Chile"),
    ("Ines abandoned her bid to buy the bakery.", "her bid to buy the bakery"),
    # a purpose or a second clause is no part of what ended
    ("Ines quit her job to travel the world.", "her job"),
    ("Ines sold her car and bought a bike.", "her car"),
    ("Ines left the choir because of her back.", "the choir"),
])
def test_an_ending_verb_denies_its_whole_object(text, predicate) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None
    assert (claim.predicate, claim.positive, claim.change) == (predicate, False, "end")


@pytest.mark.parametrize(("text", "predicate"), [
    ("Ines is now the head chef at Casa Verde.", "is the head chef at Casa Verde"),
    ("Ines's rent is £700 now.", "rent is £700"),
    ("Ines now teaches yoga.", "teaches yoga"),
])
def test_now_marks_the_onset_of_a_state(text, predicate) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None
    assert (claim.predicate, claim.positive, claim.change) == (predicate, True, "begin")


@pytest.mark.parametrize("text", [
    "Ines has lived in Quito until now.",
    "Ines is calmer now that the exams are over.",
    "Ines teaches yoga and now also runs a studio.",
    "Ines teaches yoga.",
])
def test_now_of_another_clause_or_a_span_is_no_onset(text) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None and claim.change == ""


@pytest.mark.parametrize(("text", "predicate"), [
    ("Ines and her husband want to buy a flat.", "want to buy a flat"),
    ("Ines and her best friend opened a bakery.", "opened a bakery"),
    # not a relation: the coordinated phrase stays in the predicate
    ("Ines and her new bike are inseparable.", "and her new bike are inseparable"),
])
def test_a_relation_coordinated_with_the_subject_leaves_the_claim_to_the_subject(
        text, predicate) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None
    assert (claim.subject, claim.predicate) == ("ines", predicate)


def test_a_closing_contrast_denies_its_words() -> None:
    claim = parse_claim("Ines drinks green tea, not coffee.", "Ines")
    assert claim is not None
    assert (claim.predicate, claim.positive) == ("drinks green tea", True)
    assert claim.denied == frozenset({"coff"})  # stemmed, as the terms are
    plain = parse_claim("Ines drinks green tea.", "Ines")
    assert plain is not None and plain.denied == frozenset()


@pytest.mark.parametrize(("text", "predicate", "when"), [
    ("The week before 3 July 2023 Ines went to a street festival.", "went to a street festival",
     "2023-07-03"),
    ("Ines went to a street festival on Friday 11 August 2023.", "went to a street festival",
     "2023-08-11"),
    ("On Friday 14 July 2023 Ines took the kids to the zoo.", "took the kids to the zoo",
     "2023-07-14"),
    ("Ines went camping a few weeks before 13 September 2023.", "went camping", "2023-09-13"),
])
def test_time_phrases_as_facts_are_written_are_times_not_numbers(text, predicate, when) -> None:
    """The dates a fact carries ("the week before 3 July 2023") say when, not how many: two
    outings on different days do not differ in a number."""
    claim = parse_claim(text, "Ines")
    assert claim is not None
    assert (claim.subject, claim.predicate, claim.numbers) == ("ines", predicate, frozenset())
    assert claim.when == when


def test_a_denied_cessation_goes_on_and_one_more_thing_finished_ends_nothing() -> None:
    kept = parse_claim("Ines won't quit painting.", "Ines")
    assert kept is not None and (kept.positive, kept.change) == (True, "")
    never = parse_claim("Ines never stopped running.", "Ines")
    assert never is not None and (never.positive, never.change) == (True, "")
    another = parse_claim("Ines finished another quilt.", "Ines")
    assert another is not None and (another.positive, another.change) == (True, "")
    # finishing the thing itself still ends it
    degree = parse_claim("Ines finished her degree.", "Ines")
    assert degree is not None and (degree.positive, degree.change) == (False, "end")
    quit_ = parse_claim("Ines quit smoking.", "Ines")
    assert quit_ is not None and (quit_.positive, quit_.change) == (False, "end")


@pytest.mark.parametrize(("text", "change"), [
    ("Ines took up rowing.", "begin"), ("Ines took over the bakery.", "begin"),
    ("Ines has taken out a loan.", "begin"), ("Ines took in a stray cat.", "begin"),
    ("Ines took the kids to the zoo.", ""), ("Ines took a trip to Lisbon.", ""),
    ("Ines took a staff nurse job at the clinic.", "begin"),
    ("Ines took the kids to their new school.", ""),
])
def test_took_begins_a_state_only_with_its_particle(text, change) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None and claim.change == change


def test_a_passive_taken_is_no_onset() -> None:
    claim = parse_claim("Ines was taken in by a scam.", "Ines")
    assert claim is not None and claim.change == ""


@pytest.mark.parametrize(("text", "predicate", "positive", "change", "head"), [
    # a named relative or pet: the verb after the name is read, the name stays
    ("Ines's sister Ivy quit her job at the bakery.", "Ivy her job at the bakery", False, "end",
     "job"),
    ("Ines's son Oliver moved to York in May.", "Oliver moved to York", True, "begin", "mov"),
    ("Ines's dog Ted is 5.", "Ted is 5", True, "", ""),
    ("Ines's cat Miso no longer sleeps on the bed.", "Miso sleeps on the bed", False, "end",
     "sleep"),
    # a verb and a capitalised object are no name
    ("Ines's sister quit Google to travel.", "Google", False, "end", "googl"),
])
def test_a_name_leading_the_predicate_is_not_its_verb(text, predicate, positive, change,
                                                      head) -> None:
    claim = parse_claim(text, "Ines")
    assert claim is not None and not claim.past
    assert (claim.predicate, claim.positive, claim.change, claim.head) == (
        predicate, positive, change, head)

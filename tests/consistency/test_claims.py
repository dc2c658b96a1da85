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

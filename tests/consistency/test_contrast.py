"""Claim structure and structural contrasts, on sentences outside the labelled pairs."""

from __future__ import annotations

import pytest

from agent_memory.reasoners.extractive.claims import numbers_in, parse_claim
from agent_memory.reasoners.extractive.contrast import (
    counts_differ,
    minimal_pair,
    same_time,
    swapped_comparison,
)

from .conftest import relation


def test_cessation_verbs_that_need_a_particle() -> None:
    birth = parse_claim("Lena gave birth to twins.", "Lena")
    assert birth is not None and birth.positive and birth.change == ""
    rent = parse_claim("Lena pays 900 euros in rent.", "Lena")
    assert rent is not None and rent.positive
    away = parse_claim("Lena gave her old bike away.", "Lena")
    assert away is not None and away.change == "end" and away.predicate == "her old bike"


def test_cessation_object_stops_at_its_clause() -> None:
    left = parse_claim("Omid left Siemens to join Bosch.", "Omid")
    assert left is not None and left.change == "end" and left.predicate == "Siemens"
    lost = parse_claim("Omid lost his job at the brewery.", "Omid")
    assert lost is not None and not lost.positive and lost.predicate == "his job at the brewery"
    owns = parse_claim("Omid no longer owns his boat because he sold it.", "Omid")
    assert owns is not None and not owns.positive and owns.predicate == "owns his boat"


def test_onset_of_a_gerund_and_origin_of_a_move() -> None:
    gym = parse_claim("Edda started going to yoga classes.", "Edda")
    assert gym is not None and gym.change == "begin" and gym.predicate == "going to yoga classes"
    moved = parse_claim("Edda moved from Graz to Linz.", "Edda")
    assert moved is not None and moved.predicate == "moved to Linz"


def test_compound_number_words_and_masked_subject() -> None:
    assert numbers_in("Edda is forty-two") == {"42"}
    claim = parse_claim("Baking is Lina's way to unwind.", "Lina")
    assert claim is not None and claim.subject == "lina" and "Lina" not in claim.predicate


def test_intentions_are_irrealis() -> None:
    plan = parse_claim("Sven plans to sell his boat.", "Sven")
    assert plan is not None and plan.irrealis
    done = parse_claim("Sven sells boats.", "Sven")
    assert done is not None and not done.irrealis


def test_structural_contrasts() -> None:
    assert minimal_pair(frozenset({"own", "boat"}), frozenset({"rent", "boat"}))
    assert not minimal_pair(frozenset({"own", "boat"}), frozenset({"rent", "car"}))
    assert swapped_comparison("prefers cats to dogs", "prefers dogs to cats")
    assert counts_differ("has two bikes, a road bike and a gravel bike", "has three bikes")
    assert not counts_differ("earns 40,000 euros a year", "spends 40 euros a week")
    assert same_time("on 5 June", "on June 5") and not same_time("on 5 June", "on 6 June")


@pytest.mark.parametrize(("a", "b", "subject"), [
    ("Omar prefers cats to dogs.", "Omar prefers dogs to cats.", "Omar"),
    ("Noor loves sushi.", "Noor hates sushi.", "Noor"),
    ("Iris has two bikes, a road bike and a gravel bike.", "Iris has three bikes.", "Iris"),
    ("Tom does not go swimming.", "Tom started going swimming.", "Tom"),
    ("Ada plays chess at the club.", "Ada gave up chess after her exams.", "Ada"),
    ("Ada owes 3,000 dollars on her car loan.", "Ada paid off all her car loan.", "Ada"),
])
def test_contradictions_from_structure(local_embedder, attributes, a, b, subject) -> None:
    assert relation(local_embedder, attributes, a, b, subject) == "contradiction"


@pytest.mark.parametrize(("a", "b", "subject"), [
    ("Ida sold her boat.", "Ida no longer owns her boat because she sold it.", "Ida"),
    ("Noor enjoys sushi.", "Noor likes sushi.", "Noor"),
    ("Pia adopted a rabbit named Fig.", "Pia has a rabbit named Fig.", "Pia"),
    ("Hugo is forty-one.", "Hugo is 41 years old.", "Hugo"),
    ("Hugo flies to Oslo on 5 June.", "Hugo's flight to Oslo is on June 5.", "Hugo"),
])
def test_duplicates_from_structure(local_embedder, attributes, a, b, subject) -> None:
    assert relation(local_embedder, attributes, a, b, subject) == "duplicate"


@pytest.mark.parametrize(("a", "b", "subject"), [
    ("Sven plans to sell his boat.", "Sven sold his boat.", "Sven"),
    ("Omar prefers cats to dogs.", "Omar prefers dogs to cats.", "Omar"),
    ("Lea owns her flat.", "Lea rents her flat.", "Lea"),
    ("Lea lives with her sister.", "Lea works with her sister.", "Lea"),
])
def test_no_merge_of_contrasting_claims(local_embedder, attributes, a, b, subject) -> None:
    assert relation(local_embedder, attributes, a, b, subject) != "duplicate"


def test_shared_value_word_is_not_a_changed_value(local_embedder, attributes) -> None:
    assert relation(local_embedder, attributes, "Lea lives with her sister.",
                    "Lea works with her sister.", "Lea") != "contradiction"

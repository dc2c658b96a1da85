"""The claim reader and the extractive reconciler on sentences not in the labelled data."""

from __future__ import annotations

import pytest

from agent_memory.reasoners.extractive.claims import numbers_in, parse_claim

from .conftest import relation


def test_cessation_denies_its_object() -> None:
    claim = parse_claim("Marta sold her motorbike.", "Marta")
    assert claim is not None and not claim.positive and claim.change == "end"
    assert claim.predicate == "her motorbike"
    paid = parse_claim("Marta has paid off her student loan.", "Marta")
    assert paid is not None and paid.change == "end" and paid.predicate == "her student loan"
    moved = parse_claim("Marta has moved to Leeds.", "Marta")
    assert moved is not None and moved.positive and moved.change == "begin"


def test_numbers_are_normalised() -> None:
    assert numbers_in("a $12,500 loan and two cats") == {"12500", "2"}
    assert numbers_in("saved 8k") == {"8000"}


@pytest.mark.parametrize(("a", "b"), [
    ("Kenji owns his apartment.", "Kenji rents his apartment."),
    ("Bruno bought a motorbike.", "Bruno sold his motorbike."),
    ("Lucia loves opera.", "Lucia hates opera."),
    ("Theo has saved $4,000.", "Theo has saved $9,000."),
    ("Ines drinks tea.", "Ines never drinks tea."),
    ("Ravi has three cats.", "Ravi has four cats."),
    ("Ana is friends with Tom.", "Ana fell out with Tom."),
    ("Ana volunteers at the shelter.", "Ana used to volunteer at the shelter."),
    ("Ana plays for the city team.", "Ana was dropped from the city team."),
    ("Ana lives in Paris.", "Ana lived in Paris until 2020."),
    ("Ana rents a flat in Leeds.", "Ana bought a flat in Leeds."),
    ("Ana fell off her bike.", "Ana rides her bike to work."),
    ("Priya is a retired nurse.", "Priya is a nurse."),
    ("Priya is a smoker.", "Priya is a non-smoker."),
    ("Tom is Priya's husband.", "Tom is Priya's ex-husband."),
    ("Priya is married to Tom.", "Priya was married to Tom."),
    ("Priya is an aspiring writer.", "Priya is a writer."),
    ("Ana's rent went up.", "Ana's rent went down."),
    ("Ana has a cat.", "Ana had a cat."),
    ("Lena runs twice a week.", "Lena runs every day."),
    ("Lena goes to the gym in the morning.", "Lena goes to the gym in the evening."),
    ("Sam is on a diet.", "Sam is off his diet."),
    ("Sam is in debt.", "Sam is out of debt."),
    ("Sam is for the new policy.", "Sam is against the new policy."),
    ("Sam earns 50,000 dollars a year.", "Sam earns 50,000 euros a year."),
    ("Sam lives 5 miles from work.", "Sam lives 5 kilometres from work."),
    ("Sam's flat is on the first floor.", "Sam's flat is on the fifth floor."),
])
def test_disagreeing_facts_are_never_merged(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) != "duplicate"


@pytest.mark.parametrize(("a", "b"), [
    ("Ines drinks tea.", "Ines no longer drinks tea."),
    ("Ravi has three cats.", "Ravi has four cats."),
    ("Kenji has a car loan.", "Kenji paid off his car loan."),
    ("Marta owns a motorbike.", "Marta sold her motorbike."),
    ("Oskar lives in Bergen.", "Oskar relocated to Oslo."),
    ("Theo is 51 years old.", "Theo turned 53."),
    ("Bea goes climbing.", "Bea gave up climbing."),
    ("Ana works for Acme.", "Ana resigned from Acme."),
    ("Ana works at Google.", "Ana retired from Google."),
    ("Ana is a member of the choir.", "Ana withdrew from the choir."),
    ("Ana volunteers at the shelter.", "Ana used to volunteer at the shelter."),
    ("Ana lives in Paris.", "Ana lived in Paris until 2020."),
])
def test_contradictions_on_new_sentences(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) == "contradiction"


@pytest.mark.parametrize(("a", "b"), [
    ("Oskar lives in Bergen.", "Oskar resides in Bergen."),
    ("Theo has saved $4,000.", "Theo has saved 4000 dollars."),
    ("Ines does not drink tea.", "Ines doesn't drink tea."),
    ("Bea works as a plumber.", "Bea is a plumber."),
    ("Ravi has three cats.", "Ravi has 3 cats."),
    ("Giorgio weighs 92 kg.", "Giorgio weighs 92 kilograms."),
    ("Lucia enjoys sailing on weekends.", "Lucia likes sailing on weekends."),
])
def test_duplicates_on_new_sentences(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) == "duplicate"


@pytest.mark.parametrize(("a", "b"), [
    ("Oskar lives in Bergen.", "Oskar's brother lives in Oslo."),
    ("Oskar lives in Bergen.", "Oskar grew up in Tromso."),
    ("Lucia plays the cello.", "Lucia plays chess."),
    ("Theo is 51 years old.", "Theo has 51 records."),
    ("Bea visited Rome in 2019.", "Bea visited Rome in 2022."),
    ("Ines does not drink tea.", "Ines does not eat fish."),
])
def test_unrelated_on_new_sentences(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) == "unrelated"


def test_denials_and_endings_read_from_their_wording() -> None:
    none_left = parse_claim("Pavel has no savings left.", "Pavel")
    assert none_left is not None and not none_left.positive
    assert none_left.terms == {"saving"}  # "left" is a remainder, not a leaving
    former = parse_claim("Jamal is a former smoker.", "Jamal")
    assert former is not None and not former.positive and former.change == "end"
    expecting = parse_claim("Tara is expecting her second child.", "Tara")
    assert expecting is not None and expecting.positive  # "ex" inside a word is no prefix
    church = parse_claim("Mei stopped going to church.", "Mei")
    assert church is not None and church.change == "end" and church.terms == {"church"}
    no_longer = parse_claim("Mei no longer attends church.", "Mei")
    assert no_longer is not None and no_longer.change == "end"
    stand = parse_claim("Luis can't stand jazz.", "Luis")
    assert stand is not None and not stand.positive and stand.predicate == "likes jazz"


@pytest.mark.parametrize(("a", "b"), [
    ("Ada plans to sell her flat.", "Ada sold her flat."),
    ("Ben is looking for a job.", "Ben found a job at a bakery."),
    ("Cleo is hoping to get into art school.", "Cleo was rejected by the art school."),
])
def test_a_later_outcome_settles_an_intention(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) == "contradiction"


@pytest.mark.parametrize(("a", "b"), [
    ("Ana graduated from MIT in 2015.", "Ana works at Google."),
    ("Ana used to live in Rome.", "Ana lives in Paris."),
    ("Ana divorced her first husband.", "Ana is married to Tom."),
    ("Ana lived in Paris until 2020.", "Ana lives in Rome."),
    ("Ana fell off her bike.", "Ana rides her bike to work."),
])
def test_ended_states_do_not_contradict_other_states(local_embedder, attributes, a, b) -> None:
    assert relation(local_embedder, attributes, a, b) == "unrelated"


def test_an_object_less_ending_is_a_state() -> None:
    retired = parse_claim("Marta has retired.", "Marta")
    assert retired is not None and retired.positive and retired.terms == {"retir"}


def test_an_earlier_outcome_does_not_settle_a_later_intention(local_embedder,
                                                             attributes) -> None:
    assert relation(local_embedder, attributes, "Ben found a job at a bakery.",
                    "Ben is looking for a job.") != "contradiction"

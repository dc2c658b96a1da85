"""The one number reader (``agent_memory.text.numbers``) that the reconciler and the grounding
check share: one quantity written in digits or in words reads as one value."""

from __future__ import annotations

import pytest

from agent_memory.grounding.support import unsupported_numbers
from agent_memory.text.numbers import numbers_in, word_value


@pytest.mark.parametrize(("digits", "words"), [
    ("Ignatius pays £900 a month in rent.", "Ignatius's rent is nine hundred pounds per month."),
    ("Anatol has 10,000 followers.", "Anatol has ten thousand subscribers."),
    ("The renovation cost £15,000.", "He spent fifteen thousand pounds on it."),
    ("The flight lasts 22 hours.", "The flight takes twenty-two hours."),
    ("The car is 10 years old.", "The car is a decade old."),
    ("The commute is 45 minutes.", "The commute is three quarters of an hour."),
    ("The walk is 15 minutes.", "The walk is a quarter of an hour."),
    ("The commute takes 60 minutes.", "The commute takes an hour."),
    ("She bought 12 eggs.", "She bought a dozen eggs."),
    ("He has been there 1 time.", "He has been there once."),
    ("The budget is $3,000.", "The budget is 3k."),
])
def test_one_quantity_reads_as_one_value(digits: str, words: str) -> None:
    assert numbers_in(digits) == numbers_in(words)


@pytest.mark.parametrize(("text", "values"), [
    ("2.5 million people", {"2500000"}),  # the scale word is read with its digits, once
    ("two dozen", {"24"}),
    ("nine hundred and five", {"905"}),
    ("a one-year contract", {"1"}),  # "a" counts only before a scale word
    ("over the last decade", set()),  # "last" is no count
    ("twelve paintings, then twenty", {"12", "20"}),
    ("many hours", set()),
    ("no number here", set()),
])
def test_values(text: str, values: set[str]) -> None:
    assert numbers_in(text) == values


def test_word_value_composes_groups_and_scales() -> None:
    assert word_value("three thousand two hundred and one") == 3201
    assert word_value("a million") == 1_000_000
    assert word_value("ninety-nine") == 99
    assert word_value("several") is None


def test_grounding_reads_number_words_in_the_evidence() -> None:
    """A claim in digits is supported by evidence in words, and a wrong number still is not."""
    evidence = "I pay nine hundred pounds a month for the flat."
    assert unsupported_numbers("Ignatius pays £900 a month.", evidence) == []
    assert unsupported_numbers("Ignatius pays £950 a month.", evidence) == ["£950"]

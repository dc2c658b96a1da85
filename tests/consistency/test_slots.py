"""The offline slot parser and the extractive reconciler on single pairs."""

from __future__ import annotations

import pytest

from agent_memory.reasoners.extractive.slots import compare, parse_slot


@pytest.mark.parametrize(("a", "b", "relation"), [
    ("Ana lives in Lisbon.", "Ana lives in Porto.", "conflict"),
    ("Ana lives in Lisbon.", "Ana moved to Porto.", "conflict"),
    ("Ana lives in Lisbon.", "Ana lives in Lisbon, Portugal.", "same"),
    ("Ana lives in Lisbon.", "Ana works as a nurse.", None),
    ("Ana lives in Lisbon.", "Ana's sister lives in Porto.", None),
    ("Ana plays the guitar.", "Ana no longer plays the guitar.", "conflict"),
    ("Ana smokes.", "Ana quit smoking.", "conflict"),
    ("Ana likes jazz.", "Ana hates jazz music.", "conflict"),
    ("Ana likes jazz.", "Ana likes hiking.", None),
    ("Ana is vegetarian.", "Ana does not eat meat.", "same"),
    ("Ana is 34 years old.", "Ana is 35.", "conflict"),
    ("Ana has two kids.", "Ana has 2 children.", "same"),
    ("Ana moved to Berlin in 2019.", "Ana moved to Munich in 2022.", None),
    ("Ana went to a concert on 3 June 2023.", "Ana went to a concert on 9 June 2023.", None),
    ("Ana's favorite color is green.", "Ana's favourite colour is blue.", "conflict"),
    ("Ana owns a car.", "Ana does not own a car.", "conflict"),
])
def test_compare(a: str, b: str, relation: str | None) -> None:
    sa, sb = parse_slot(a, "Ana"), parse_slot(b, "Ana")
    assert sa is not None and sb is not None
    assert compare(sa, sb) == relation
    assert compare(sb, sa) == relation


def test_unparseable_text_gives_no_slot() -> None:
    assert parse_slot("") is None
    assert parse_slot("where does Ana live?") is None

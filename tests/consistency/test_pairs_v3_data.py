"""The check set data/reconcile_pairs_v3.jsonl: format, balance, and independence from the
earlier sets (no id or text shared with them, no person named in the LoCoMo dev set).

The earlier sets' texts are read here only to compare them with the check set's.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from .conftest import assert_sides, load_pairs, load_rows

LABELS = ("duplicate", "contradiction", "unrelated")


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    return load_rows("reconcile_pairs_v3.jsonl")


def test_every_pair_has_the_format(pairs) -> None:
    for pair in pairs:
        assert set(pair) == {"id", "label", "source", "note", "a", "b"}, pair["id"]
        assert re.fullmatch(r"v3-\d{3}", pair["id"]), pair["id"]
        assert pair["label"] in LABELS
        assert pair["source"] == "written", pair["id"]
        assert pair["note"].strip(), pair["id"]
        assert_sides(pair)


def test_counts_per_label_and_unique_ids(pairs) -> None:
    assert len(pairs) == 150
    assert Counter(p["label"] for p in pairs) == {label: 50 for label in LABELS}
    ids = [p["id"] for p in pairs]
    assert ids == [f"v3-{k:03d}" for k in range(1, 151)]
    keys = [frozenset((p["a"]["text"], p["b"]["text"])) for p in pairs]
    assert len(keys) == len(set(keys)), "no pair appears twice"


def test_nothing_is_shared_with_the_earlier_sets(pairs) -> None:
    old = load_pairs("reconcile_pairs.jsonl") + load_pairs("reconcile_pairs_v2.jsonl")
    assert not {p["id"] for p in pairs} & {p["id"] for p in old}
    old_texts = {p[s]["text"].strip().lower() for p in old for s in ("a", "b")}
    new_texts = {p[s]["text"].strip().lower() for p in pairs for s in ("a", "b")}
    shared = new_texts & old_texts
    assert not shared, f"{len(shared)} texts also occur in an earlier set"


def test_no_subject_is_named_in_locomo(pairs, locomo_path) -> None:
    words = set(re.findall(r"[A-Za-z]+", locomo_path.read_text()))
    subjects = {p[s]["subject"] for p in pairs for s in ("a", "b")}
    named = subjects & words
    assert not named, f"named in LoCoMo: {sorted(named)}"

"""The labelled fact pairs of data/reconcile_pairs_v2.jsonl: format, balance, split, provenance.

The split rule checked here is the one documented in data/README.md: inside each stratum
(label x source kind, ``locomo`` or ``written``) the pairs are ranked by the SHA-256 hex digest
of their id; even ranks are ``tune``, odd ranks ``heldout``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.eval import reconcile_pairs

from .conftest import DATA, assert_sides, load_pairs, load_rows

LABELS = {"duplicate", "contradiction", "unrelated"}
SOURCE = re.compile(r"^(written|locomo:(conv-\d+):(\d+)(?:-(\d+))?)$")


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    return load_rows("reconcile_pairs_v2.jsonl")


def kind(pair: dict) -> str:
    return pair["source"].split(":")[0]


def test_every_pair_has_the_format(pairs) -> None:
    for pair in pairs:
        assert set(pair) == {"id", "label", "source", "split", "note", "a", "b"}, pair["id"]
        assert pair["label"] in LABELS
        assert pair["split"] in {"tune", "heldout"}
        assert SOURCE.match(pair["source"]), pair["source"]
        assert_sides(pair)


def test_counts_per_label_source_and_split(pairs) -> None:
    assert len(pairs) >= 300
    labels = Counter(p["label"] for p in pairs)
    for label in LABELS:  # about a third each
        assert len(pairs) / 4 < labels[label] < len(pairs) / 2.5, labels
    kinds = Counter(kind(p) for p in pairs)
    assert kinds["locomo"] >= 90 and kinds["written"] >= 180, kinds
    strata = Counter((p["label"], kind(p), p["split"]) for p in pairs)
    for label in LABELS:
        for source in ("locomo", "written"):
            tune, heldout = strata[(label, source, "tune")], strata[(label, source, "heldout")]
            assert tune > 0 and 0 <= tune - heldout <= 1, (label, source, tune, heldout)


def test_split_is_the_documented_hash_rule(pairs) -> None:
    strata: dict[tuple[str, str], list[dict]] = {}
    for pair in pairs:
        strata.setdefault((pair["label"], kind(pair)), []).append(pair)
    for members in strata.values():
        ranked = sorted(members, key=lambda p: hashlib.sha256(p["id"].encode()).hexdigest())
        for rank, pair in enumerate(ranked):
            assert pair["split"] == ("tune" if rank % 2 == 0 else "heldout"), pair["id"]


def test_nothing_is_shared_with_the_first_set(pairs) -> None:
    old = load_pairs("reconcile_pairs.jsonl")
    ids = [p["id"] for p in pairs]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {p["id"] for p in old}
    old_texts = {p[s]["text"].strip().lower() for p in old for s in ("a", "b")}
    new_texts = {p[s]["text"].strip().lower() for p in pairs for s in ("a", "b")}
    assert not new_texts & old_texts
    keys = [frozenset((p["a"]["text"], p["b"]["text"])) for p in pairs]
    assert len(keys) == len(set(keys)), "no pair appears twice"


def test_locomo_pairs_name_real_sessions_and_speakers(pairs, locomo_path) -> None:
    samples = {s["sample_id"]: s for s in json.loads(locomo_path.read_text())}
    for pair in (p for p in pairs if kind(p) == "locomo"):
        sample_id, first, last = SOURCE.match(pair["source"]).groups()[1:]
        sample = samples[sample_id]
        conversation = sample["conversation"]
        speakers = {conversation["speaker_a"], conversation["speaker_b"]}
        assert pair["a"]["subject"] in speakers, pair["id"]
        for session in filter(None, (first, last)):
            assert f"session_{session}_observation" in sample["observation"], pair["id"]


# The loader (agent_memory.eval.reconcile_pairs): splits by person, typed errors.

def test_written_pairs_gather_every_written_set_split_by_person() -> None:
    written = reconcile_pairs.written_pairs()
    rows = [r for name in reconcile_pairs.WRITTEN_FILES if (DATA / name).exists()
            for r in load_rows(name) if r.get("source", "written") == "written"]
    assert [p.id for p in written] == [r["id"] for r in rows]
    splits: dict[str, set[str]] = {}
    for pair in written:
        assert pair.written and pair.person == pair.a.subject == pair.b.subject
        splits.setdefault(reconcile_pairs.normalise_person(pair.person), set()).add(pair.split)
    assert all(len(s) == 1 for s in splits.values()), "a person is in one split only"
    for pair in written:
        expected = ("check" if pair.set == "reconcile_pairs_v3"
                    else reconcile_pairs.hash_split(pair.person))
        assert pair.split == expected, pair.id
    by_split = {s: reconcile_pairs.written_pairs(split=s) for s in reconcile_pairs.SPLITS}
    assert sum(len(v) for v in by_split.values()) == len(written)
    assert not by_split["locomo"]
    assert {p.set for p in by_split["check"]} == {"reconcile_pairs_v3"}


def test_hash_split_is_the_documented_rule() -> None:
    for name in ("Maya", " maya ", "MAYA", "Zoë", "Ana"):
        digest = hashlib.sha256(name.strip().casefold().encode()).hexdigest()
        bucket = int(digest[:8], 16) % 10
        assert reconcile_pairs.hash_split(name) == (
            "train" if bucket < 6 else "tune" if bucket < 8 else "heldout")


def test_bad_input_is_a_typed_error(tmp_path) -> None:
    with pytest.raises(InvalidInputError, match="split must be"):
        reconcile_pairs.written_pairs(split="test")
    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"id": "x1", "label": "duplicate"\n')
    with pytest.raises(InvalidInputError, match="not JSON"):
        reconcile_pairs.load_pairs(bad)
    bad.write_text(json.dumps({"id": "x1", "label": "same", "a": {}, "b": {}}) + "\n")
    with pytest.raises(InvalidInputError, match="x1"):
        reconcile_pairs.load_pairs(bad)


def test_locomo_pairs_are_omitted_with_a_reason_when_the_dataset_is_absent(
        tmp_path, caplog) -> None:
    rows = load_rows("reconcile_pairs_v2.jsonl")
    referenced = [r for r in rows if "ref" in r["a"]]
    if not referenced:
        pytest.skip("no LoCoMo-referenced pair stored as a reference yet")
    loaded = reconcile_pairs.load_pairs(DATA / "reconcile_pairs_v2.jsonl", datasets_dir=tmp_path)
    assert len(loaded) == len(rows) - len(referenced)
    assert all(p.written for p in loaded)
    assert "LoCoMo dev set not found" in caplog.text

"""The labelled fact pairs of data/: format, counts, the split by person, and licence.

The rules checked here are the ones documented in data/README.md and in
:mod:`agent_memory.eval.reconcile_pairs`: every written person is split by the SHA-256 of the
normalised name (60/20/20 train/tune/heldout), the check set's persons are ``check``, the
LoCoMo-referenced pairs are ``locomo`` (evaluation only) and their text is never stored here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.eval import reconcile_pairs

from .conftest import DATA, assert_sides, load_rows

LABELS = {"duplicate", "contradiction", "unrelated"}
FILES = {"reconcile_pairs.jsonl": r"p\d{3}", "reconcile_pairs_v2.jsonl": r"v2-\d{3}",
         "reconcile_pairs_v3.jsonl": r"v3-\d{3}", "reconcile_pairs_v4.jsonl": r"v4-\d{3}",
         "reconcile_pairs_v5.jsonl": r"v5-\d{3}"}
SOURCE = re.compile(r"^(written|locomo:(conv-\d+):(\d+)(?:-(\d+))?)$")
REF_KEYS = {"sample_id", "session", "speaker", "index", "dia_id"}


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict]]:
    return {name: load_rows(name) for name in FILES}


@pytest.fixture(scope="module")
def written() -> list[reconcile_pairs.LabelledPair]:
    return reconcile_pairs.written_pairs()


def test_every_row_has_the_format(rows) -> None:
    for name, pattern in FILES.items():
        for row in rows[name]:
            keys = {"id", "label", "note", "a", "b"} | (set() if name == "reconcile_pairs.jsonl"
                                                          else {"source"})
            assert set(row) == keys, (name, row["id"])
            assert re.fullmatch(pattern, row["id"]), row["id"]
            assert row["label"] in LABELS and row["note"].strip(), row["id"]
            assert SOURCE.match(row.get("source", "written")), row["id"]
            if row.get("source", "written") == "written":
                if row["id"] != "p107":  # on purpose: one subject, the other's fact
                    assert_sides(row)
                continue
            for side in ("a", "b"):
                assert set(row[side]) == {"ref", "subject", "created_at", "confidence"}
                assert REF_KEYS <= set(row[side]["ref"]) <= REF_KEYS | {"span"}, row["id"]


def test_ids_and_pairs_are_unique_over_every_set(rows) -> None:
    ids = [row["id"] for name in FILES for row in rows[name]]
    assert len(ids) == len(set(ids))
    written_rows = [r for name in FILES for r in rows[name] if "text" in r["a"]]
    keys = [frozenset((r["a"]["text"].lower(), r["b"]["text"].lower())) for r in written_rows]
    assert len(keys) == len(set(keys)), "no pair appears twice"
    first = {r[s]["text"].strip().lower() for r in rows["reconcile_pairs.jsonl"] for s in "ab"}
    later = {r[s]["text"].strip().lower() for name in list(FILES)[1:] for r in rows[name]
             if "text" in r["a"] for s in "ab"}
    assert not first & later, "the later sets share no text with the first"


def test_counts_per_label_split_and_source(written, rows) -> None:
    assert len(written) >= 1000
    new = rows["reconcile_pairs_v4.jsonl"]
    assert len(new) >= 450
    for pairs in (written, new):
        labels = Counter(p.label if hasattr(p, "label") else p["label"] for p in pairs)
        for label in LABELS:  # about a third each
            assert len(pairs) * 0.28 < labels[label] < len(pairs) * 0.39, labels
    by_split = Counter((p.split, p.label) for p in written)
    for split in ("train", "tune", "heldout", "check"):
        for label in LABELS:
            assert by_split[(split, label)] >= 40, (split, label, by_split)
    locomo = [r for r in rows["reconcile_pairs_v2.jsonl"] if r["source"] != "written"]
    assert len(locomo) == 56


def test_split_is_by_person_with_the_documented_rule(written) -> None:
    splits: dict[str, set[str]] = {}
    for pair in written:
        assert pair.written and pair.person == pair.a.subject == pair.b.subject
        splits.setdefault(reconcile_pairs.normalise_person(pair.person), set()).add(pair.split)
        expected = ("check" if pair.set == "reconcile_pairs_v3"
                    else reconcile_pairs.hash_split(pair.person))
        assert pair.split == expected, pair.id
    assert all(len(s) == 1 for s in splits.values()), "no person is in two splits"
    hashed = Counter(s.pop() for s in splits.values())
    hashed.pop("check")
    total = sum(hashed.values())
    assert 0.5 < hashed["train"] / total < 0.7 and 0.12 < hashed["heldout"] / total < 0.28, hashed
    for name in ("Maya", " maya ", "MAYA", "Zoë", "Ana"):
        digest = hashlib.sha256(name.strip().casefold().encode()).hexdigest()
        bucket = int(digest[:8], 16) % 10
        assert reconcile_pairs.hash_split(name) == (
            "train" if bucket < 6 else "tune" if bucket < 8 else "heldout")


def test_written_pairs_gather_every_written_set(written, rows) -> None:
    stored = [r["id"] for name in FILES for r in rows[name]
              if r.get("source", "written") == "written"
              and name not in reconcile_pairs.EVALUATION_FILES]
    assert [p.id for p in written] == stored
    by_split = {s: reconcile_pairs.written_pairs(split=s) for s in reconcile_pairs.SPLITS}
    assert sum(len(v) for v in by_split.values()) == len(written)
    assert not by_split["locomo"], "LoCoMo-referenced pairs are never among the written"
    assert {p.set for p in by_split["check"]} == {"reconcile_pairs_v3"}


@pytest.mark.parametrize(("name", "persons"), [("reconcile_pairs_v4.jsonl", 80),
                                              ("reconcile_pairs_v5.jsonl", 25)])
def test_each_new_person_is_new_and_has_several_pairs(rows, locomo_path, name: str,
                                                      persons: int) -> None:
    new = Counter(r["a"]["subject"] for r in rows[name])
    assert len(new) >= persons and min(new.values()) >= 4, new.most_common()[-3:]
    earlier = {r["a"]["subject"] for other in list(FILES)[:list(FILES).index(name)]
               for r in rows[other]}
    assert not set(new) & earlier
    words = set(re.findall(r"[A-Za-z]+", locomo_path.read_text()))
    assert not set(new) & words, sorted(set(new) & words)


def test_the_evaluation_set_is_never_trained_on(rows) -> None:
    """The fifth set (ends of life, of pregnancies and engagements, dislikes beside an
    activity stopped) measures the shipped reconciler: it is not gathered with the written
    sets, the training script does not name it, and its persons are in no other file."""
    name = "reconcile_pairs_v5.jsonl"
    assert name in reconcile_pairs.EVALUATION_FILES and name not in reconcile_pairs.WRITTEN_FILES
    assert name not in (DATA.parent / "bench" / "train_reconcile.py").read_text()
    persons = {r["a"]["subject"] for r in rows[name]}
    others = {side["subject"] for path in DATA.glob("reconcile_*.jsonl") if path.name != name
              for line in path.read_text().splitlines() if line.strip()
              for row in [json.loads(line)] for side in (row.get("a"), row.get("b"))
              if isinstance(side, dict) and "subject" in side}
    assert not persons & others
    loaded = reconcile_pairs.load_pairs(DATA / name)
    assert len(loaded) == len(rows[name]) and {p.label for p in loaded} == LABELS


TRAINING_ONLY = sorted(p.name for p in DATA.glob("reconcile_pairs*.jsonl") if p.name not in FILES)
"""Every other pairs file: written only to train the decision (``bench/train_reconcile.py``)."""


def test_training_only_pairs_are_about_training_and_tuning_people_only(rows) -> None:
    """The pairs written only to train the decision never reach a held-out or check person,
    and no id is used twice over every file."""
    scored = {p.person for p in reconcile_pairs.written_pairs()
              if p.split in ("heldout", "check")}
    ids = [row["id"] for name in FILES for row in rows[name]]
    assert TRAINING_ONLY, "no training-only pairs file found"
    for name in TRAINING_ONLY:
        pairs = reconcile_pairs.load_pairs(DATA / name)
        assert pairs and all(p.written for p in pairs), name
        assert {p.split for p in pairs} <= {"train", "tune"}, name
        assert not {p.person for p in pairs} & scored, name
        assert {p.label for p in pairs} == LABELS, name
        ids += [p.id for p in pairs]
    assert len(ids) == len(set(ids))


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
    side = {"text": "Ana lives in Lisbon.", "subject": "Ana",
            "created_at": "2024-01-02T00:00:00+00:00", "confidence": 0.8}
    later = {**side, "text": "Ana lives in Porto.", "created_at": "2024-03-02T00:00:00+00:00"}
    for a, b, message in ((later, side, "created after"),
                          (side, {**later, "subject": "Ben"}, "different subjects")):
        bad.write_text(json.dumps({"id": "x2", "label": "contradiction", "note": "n",
                                   "a": a, "b": b}) + "\n")
        with pytest.raises(InvalidInputError, match=message):
            reconcile_pairs.load_pairs(bad)
    bad.write_text(json.dumps({"id": "x3", "label": "contradiction", "note": "n",
                               "a": side, "b": later}) + "\n")
    assert [p.split for p in reconcile_pairs.load_pairs(bad)] == [
        reconcile_pairs.hash_split("Ana")]


def test_locomo_pairs_are_omitted_with_a_reason_when_the_dataset_is_absent(
        tmp_path, caplog, rows) -> None:
    stored = rows["reconcile_pairs_v2.jsonl"]
    referenced = [r for r in stored if "ref" in r["a"]]
    assert referenced
    loaded = reconcile_pairs.load_pairs(DATA / "reconcile_pairs_v2.jsonl", datasets_dir=tmp_path)
    assert len(loaded) == len(stored) - len(referenced)
    assert all(p.written for p in loaded)
    assert "56 LoCoMo-referenced pairs omitted" in caplog.text
    assert "LoCoMo dev set not found" in caplog.text


def test_locomo_pairs_rebuild_from_the_dataset(locomo_path, rows) -> None:
    pairs = reconcile_pairs.load_pairs(DATA / "reconcile_pairs_v2.jsonl", split="locomo",
                                       datasets_dir=locomo_path.parents[1])
    stored = {r["id"]: r for r in rows["reconcile_pairs_v2.jsonl"]}
    assert len(pairs) == 56
    for pair in pairs:
        row = stored[pair.id]
        sample_id, first, last = SOURCE.match(pair.source).groups()[1:]
        refs = [row[s]["ref"] for s in ("a", "b")]
        assert [r["sample_id"] for r in refs] == [sample_id] * 2
        assert [r["session"] for r in refs] == [int(first), int(last or first)]
        assert all(r["speaker"] == pair.person for r in refs)
        assert_sides({"id": pair.id, **pair.model_dump(mode="json", include={"a", "b"})})


def test_no_locomo_text_is_stored_in_data(locomo_path) -> None:
    """No run of 6 words of any LoCoMo string (turns, observations, summaries, questions)
    occurs in any file of data/ (the shortest shared run today is 5 words: "is planning a
    trip to")."""
    def strings(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict | list):
            for value in node.values() if isinstance(node, dict) else node:
                yield from strings(value)

    def runs(text: str, n: int = 6) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[k:k + n]) for k in range(len(words) - n + 1)}

    locomo: set[tuple[str, ...]] = set()
    for text in strings(json.loads(locomo_path.read_text())):
        locomo |= runs(text)
    for path in sorted(DATA.iterdir()):
        text = path.read_text()
        if path.suffix == ".jsonl":
            text = "\n".join(s for line in text.splitlines() if line.strip()
                             for s in strings(json.loads(line)))
        shared = runs(text) & locomo
        assert not shared, f"{path.name} holds LoCoMo text: {sorted(shared)[:3]}"

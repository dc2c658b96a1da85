"""The labelled fact pools of data/: format, split by person, pair expansion, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.eval import reconcile_pairs
from agent_memory.eval.reconcile_pools import POOLS_FILE, load_pools, pool_pairs


@pytest.fixture(scope="module")
def pools():
    return load_pools()


def test_the_written_pools_are_shipped_and_sized(pools) -> None:
    assert POOLS_FILE.exists()
    assert len(pools) >= 20
    for pool in pools:
        assert 15 <= len(pool.facts) <= 40, pool.person
        assert pool.contradictions and pool.duplicates, pool.person
        assert all(pool.person in f.text for f in pool.facts), pool.person


def test_a_pool_is_split_as_its_person_and_never_shares_a_person_with_the_pairs(pools) -> None:
    pair_people = {reconcile_pairs.normalise_person(p.person)
                   for p in reconcile_pairs.written_pairs()}
    splits = {p.split for p in pools}
    assert {"train", "tune", "heldout"} <= splits
    for pool in load_pools(POOLS_FILE):
        assert pool.split == reconcile_pairs.split_of(pool.person)
        assert reconcile_pairs.normalise_person(pool.person) not in pair_people


def test_pool_pairs_label_every_pair_once_older_side_first(pools) -> None:
    pool = pools[0]
    pairs = pool_pairs(pool)
    n = len(pool.facts)
    assert len(pairs) == n * (n - 1) // 2
    labels = [p.label for p in pairs]
    assert labels.count("contradiction") == len(pool.contradictions)
    assert labels.count("duplicate") == len(pool.duplicates)
    assert all(p.a.created_at <= p.b.created_at for p in pairs)
    retired = {p.id.split(":")[1].split("-")[0] for p in pairs if p.label == "contradiction"}
    assert retired == set(pool.retired())


def _write(tmp_path: Path, row: dict) -> Path:
    path = tmp_path / "pools.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


GOOD = {"person": "Testperson", "facts": [
    {"id": "f1", "text": "Testperson lives in Leeds.", "created_at": "2024-01-01T10:00:00+00:00"},
    {"id": "f2", "text": "Testperson moved to York.", "created_at": "2024-06-01T10:00:00+00:00"}],
    "duplicates": [], "contradictions": [["f1", "f2"]]}


def test_a_valid_file_loads_and_bad_pools_are_refused_with_the_line(tmp_path) -> None:
    (pool,) = load_pools(_write(tmp_path, GOOD))
    assert pool.label("f2", "f1") == "contradiction"
    bad = [
        {**GOOD, "contradictions": [["f2", "f1"]]},       # the newer fact first
        {**GOOD, "duplicates": [["f1", "f9"]]},           # a missing fact
        {**GOOD, "facts": GOOD["facts"] + [GOOD["facts"][0]]},  # ids repeat
        {**GOOD, "facts": [{**GOOD["facts"][0], "id": "f-1"}, GOOD["facts"][1]],
         "contradictions": []},                           # an id with "-"
    ]
    for row in bad:
        with pytest.raises(InvalidInputError, match="pools.jsonl:1"):
            load_pools(_write(tmp_path, row))
    with pytest.raises(InvalidInputError, match="split"):
        load_pools(_write(tmp_path, GOOD), split="nope")


def test_fact_ids_read_a_pool_pair_id_back(pools) -> None:
    from agent_memory.eval.reconcile_pools import fact_ids

    pair = pool_pairs(pools[0])[0]
    assert fact_ids(pair.id) == (pair.id.split(":")[1].split("-")[0],
                                 pair.id.split(":")[1].split("-")[1])
    with pytest.raises(InvalidInputError, match="pool pair id"):
        fact_ids("v4-001")


def test_the_check_pools_are_all_check_and_never_share_a_person() -> None:
    """The pools written apart (``*_check.jsonl``) are evaluation only: every one of them is in
    the ``check`` split whatever its person's hash, and no person of theirs has a training
    pool or a written pair."""
    from agent_memory.eval.reconcile_pools import CHECK_POOLS_FILE

    if not CHECK_POOLS_FILE.exists():
        pytest.skip("no check pools in data/")
    check = load_pools(CHECK_POOLS_FILE)
    assert len(check) >= 10 and {p.split for p in check} == {"check"}
    assert {p.person for p in load_pools(split="check")} >= {p.person for p in check}
    people = {reconcile_pairs.normalise_person(p.person) for p in load_pools(POOLS_FILE)}
    people |= {reconcile_pairs.normalise_person(p.person)
               for p in reconcile_pairs.written_pairs()}
    for pool in check:
        assert reconcile_pairs.normalise_person(pool.person) not in people, pool.person
        assert 30 <= len(pool.facts) <= 40 and pool.contradictions and pool.duplicates


def test_a_file_named_check_puts_every_pool_in_check(tmp_path) -> None:
    plain = _write(tmp_path, GOOD)
    check = plain.with_name("more_check.jsonl")
    check.write_text(plain.read_text(encoding="utf-8"), encoding="utf-8")
    (hashed,) = load_pools(plain)
    (checked,) = load_pools(check)
    assert hashed.split == reconcile_pairs.split_of("Testperson") != "check"
    assert checked.split == "check"
    assert load_pools(check, split="train") == []

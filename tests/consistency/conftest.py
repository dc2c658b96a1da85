"""Shared by the reconciler tests: the attribute index over the real local embedder, and
the relation the offline reconciler finds between two facts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_memory.eval import reconcile_pairs
from agent_memory.models import Fact
from agent_memory.reasoners.extractive.attributes import AttributeIndex
from agent_memory.reasoners.extractive.reconcile import reconcile_facts


@pytest.fixture(scope="module")
def attributes(local_embedder) -> AttributeIndex:
    return AttributeIndex(local_embedder.embed_sync)


def relation(local_embedder, attributes, a: str, b: str, subject: str | None = None,
             lexicon=None) -> str:
    """``"contradiction"``, ``"duplicate"`` or ``"unrelated"`` for fact ``a`` (older) and
    fact ``b`` about ``subject`` (default: the first word of ``a``, possessive dropped), with
    WordNet relations when ``lexicon`` is given."""
    subject = subject or a.split()[0].removesuffix("'s")
    facts = [Fact(id=k, user_id="u", content=text, subject=subject,
                  created_at=datetime(2024, 1, day, tzinfo=UTC))
             for k, text, day in (("a", a, 1), ("b", b, 2))]
    decision = reconcile_facts(facts, local_embedder.embed_sync([a, b]), attributes=attributes,
                               lexicon=lexicon)
    if decision.contradictions:
        return "contradiction"
    return "duplicate" if decision.duplicates else "unrelated"


DATA = Path(__file__).resolve().parents[2] / "data"
SIDE_KEYS = {"text", "subject", "created_at", "confidence"}


def load_rows(name: str) -> list[dict]:
    """The raw JSON objects of ``data/<name>``, as stored (LoCoMo-referenced sides carry a
    ``ref`` and no ``text``)."""
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def load_pairs(name: str) -> list[dict]:
    """The labelled pairs of ``data/<name>`` as :func:`agent_memory.eval.reconcile_pairs.
    load_pairs` reads them (LoCoMo texts rebuilt, omitted when the dataset is absent), as
    dicts with ``split``, ``person``, ``set`` and ``source``."""
    return [p.model_dump(mode="json") for p in reconcile_pairs.load_pairs(DATA / name)]


def assert_sides(pair: dict) -> None:
    """The two facts of a pair: the side fields, each naming its subject, one subject, two
    texts, and side ``b`` strictly later (timezone-aware)."""
    for side in ("a", "b"):
        assert set(pair[side]) == SIDE_KEYS, pair["id"]
        assert pair[side]["subject"] in pair[side]["text"], f"{pair['id']}{side}: names its subject"
        assert 0.0 < pair[side]["confidence"] <= 1.0
    assert pair["a"]["subject"] == pair["b"]["subject"], "pairs are about one person"
    assert pair["a"]["text"] != pair["b"]["text"]
    a, b = (datetime.fromisoformat(pair[s]["created_at"]) for s in ("a", "b"))
    assert a.tzinfo is not None and a < b, f"{pair['id']}: side b is the later fact"


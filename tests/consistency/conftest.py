"""Shared by the reconciler tests: the attribute index over the real local embedder, and
the relation the offline reconciler finds between two facts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

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

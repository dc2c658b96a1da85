"""Offline reconciliation: duplicates by embedding clusters, contradictions by slots.

Given a pool of facts and their embeddings (rows L2-normalised, so a dot product is the
cosine similarity), two facts are:

- **a contradiction** when their slots (:mod:`.slots`) have the same subject and attribute and
  :func:`.slots.compare` finds them in conflict: a changed value of a single-valued attribute
  (lives in Lisbon / lives in Porto) or a negation (plays the guitar / no longer plays the
  guitar);
- **duplicates** when their slots agree (same subject, attribute, value, polarity), or, when the
  slots say nothing, when their cosine similarity is at least ``duplicate_threshold`` and their
  details agree: the same numbers and names, and the same negation words (facts opening
  with a pronoun of unknown referent, "It brings ...", are never merged this way). Duplicate groups are
  the connected components of that relation (single-linkage clustering); a component that holds
  a contradicting pair is not merged.

Wrongly retiring a fact is worse than missing a contradiction, so every rule errs towards "not
sure" (no decision). The merged text of a group is its most trustworthy member's text (highest
confidence, then newest, then longest), so nothing is invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...models import Fact
from ..reconcile_models import Contradiction, DuplicateGroup, ReconcileDecision
from .slots import Slot, compare, parse_slot

DUPLICATE_THRESHOLD = 0.9
"""Cosine similarity (all-MiniLM-L6-v2) from which two facts without comparable slots count
as duplicates, when their numbers, names and negations also agree. Chosen on
``data/reconcile_pairs.jsonl`` (see ``bench/reconcile_quality.py``)."""

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|nine|"
                     r"ten|eleven|twelve)\b", re.IGNORECASE)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\b")
_NEG = re.compile(r"\b(?:not|never|no longer|no|none|nothing|stopped|quit|anymore)\b|n't\b",
                  re.IGNORECASE)


_VAGUE = re.compile(r"^\s*(?:it|that|this|they|these|those|there)\b", re.IGNORECASE)
"""Facts opening with a pronoun whose referent is unknown are never merged by similarity."""


def _details(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """Numbers, capitalised names (not sentence-initial) and whether a negation occurs."""
    return (frozenset(_NUMBER.findall(text)), frozenset(_NAME.findall(text)),
            bool(_NEG.search(text)))


def _rank(fact: Fact) -> tuple[float, float, int]:
    return (fact.confidence, fact.created_at.timestamp(), len(fact.content))


def reconcile_facts(
    facts: Sequence[Fact],
    vectors: np.ndarray | None,
    *,
    duplicate_threshold: float = DUPLICATE_THRESHOLD,
) -> ReconcileDecision:
    """Find duplicate groups and contradicting pairs in ``facts``.

    Args:
        facts: the pool (any order).
        vectors: float32 array of shape ``(len(facts), dim)``, L2-normalised rows (the facts'
            embeddings), or ``None`` to rely on slots alone.
        duplicate_threshold: cosine similarity for slot-less duplicates (0-1).

    Returns:
        The decision; ids are the facts' ids.

    Raises:
        ValueError: ``vectors`` does not have one row per fact.
    """
    n = len(facts)
    if vectors is not None and len(vectors) != n:
        raise ValueError(f"got {len(vectors)} vectors for {n} facts")
    slots: list[Slot | None] = [parse_slot(f.content, f.subject) for f in facts]
    details = [_details(f.content) for f in facts]
    sims = vectors @ vectors.T if vectors is not None and n else None
    same: list[tuple[int, int, str]] = []
    conflicts: list[tuple[int, int, str]] = []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = slots[i], slots[j]
            relation = compare(a, b) if a is not None and b is not None else None
            if relation == "conflict":
                assert a is not None and b is not None
                shown = f"{a.value or ('yes' if a.positive else 'no')} vs " \
                        f"{b.value or ('yes' if b.positive else 'no')}"
                conflicts.append((i, j, f"slot conflict on {a.subject} / {a.attribute}: {shown}"))
            elif relation == "same":
                assert a is not None
                same.append((i, j, f"same slot {a.subject} / {a.attribute}"))
            elif (
                sims is not None
                and not (_VAGUE.match(facts[i].content) or _VAGUE.match(facts[j].content))
                and sims[i, j] >= duplicate_threshold
                and details[i] == details[j]
                and not (a is not None and b is not None and a.subject != b.subject)
            ):
                same.append((i, j, f"cosine {sims[i, j]:.3f}, same numbers, names and negation"))
    return ReconcileDecision(
        duplicates=_groups(facts, same, conflicts),
        contradictions=[
            Contradiction(first_id=facts[i].id, second_id=facts[j].id, rationale=why)
            for i, j, why in conflicts
        ],
    )


def _groups(facts: Sequence[Fact], same: list[tuple[int, int, str]],
            conflicts: list[tuple[int, int, str]]) -> list[DuplicateGroup]:
    """Connected components of the duplicate relation, minus those holding a conflict."""
    parent = list(range(len(facts)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in same:
        parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(len(facts)):
        members.setdefault(root(i), []).append(i)
    reasons: dict[int, list[str]] = {}
    for i, _, why in same:
        reasons.setdefault(root(i), []).append(why)
    blocked = {root(i) for i, j, _ in conflicts if root(i) == root(j)}
    groups = []
    for key, idx in members.items():
        if len(idx) < 2 or key in blocked:
            continue
        best = max(idx, key=lambda k: _rank(facts[k]))
        groups.append(DuplicateGroup(
            fact_ids=[facts[k].id for k in idx],
            merged_text=facts[best].content,
            rationale="; ".join(dict.fromkeys(reasons.get(key, []))),
        ))
    return groups

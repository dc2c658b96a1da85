"""Single-valued attributes found by the embedding of the predicate.

A person lives in one place, is one age, has one occupation at a time; they may like or speak
many things. The attribute a predicate states is the one whose prototype phrases its embedding
(subject masked) is nearest: at least :data:`ATTRIBUTE_THRESHOLD`, and :data:`ATTRIBUTE_MARGIN`
above every other attribute ("resides in Lisbon", "relocated to Lisbon" -> ``residence``).
Possessive "<attribute> is <value>" predicates are keyed by the attribute phrase
(:func:`possessive`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

Embed = Callable[[list[str]], np.ndarray]
"""A synchronous embedder: texts -> float32 array ``(len(texts), dim)``, L2-normalised rows."""

PROTOTYPES: dict[str, tuple[str, ...]] = {
    "residence": ("lives in Paris", "lives in a small town", "moved to Chicago",
                  "has an apartment in the city centre"),
    "hometown": ("is originally from Brazil", "grew up in a village", "was born in Manila"),
    "occupation": ("works as an electrician", "is a dentist", "is a carpenter by trade",
                   "has a job as a cashier", "is a software tester"),
    "employer": ("works at Microsoft", "is employed by Walmart", "works for a bank"),
    "employment status": ("is out of work", "has retired from work", "has a full-time job"),
    "age": ("is 30 years old", "turned 40", "is 52"),
    "relationship status": ("is married to her husband", "is single and not dating",
                            "has a boyfriend", "is in a relationship"),
    "diet": ("follows a vegetarian diet", "eats meat", "is a vegan"),
    "vehicle": ("drives a Ford", "drives an old car"),
}
"""Prototype phrases per single-valued attribute (written as generic templates, not taken from
any labelled pair)."""

ATTRIBUTE_THRESHOLD = 0.45
"""Lowest cosine (all-MiniLM-L6-v2) between a predicate and its attribute's best prototype.
Chosen on ``data/reconcile_pairs.jsonl`` (``bench/reconcile_quality.py``)."""

ATTRIBUTE_MARGIN = 0.05
"""How much the best attribute must beat the runner-up (cosine)."""

_COPULA = re.compile(r"^(?P<attr>[\w ]+?)\s+(?:is|are|was)\s+(?P<value>.+)$", re.IGNORECASE)


def possessive(predicate: str) -> tuple[str, str] | None:
    """``(attribute, value)`` of ``"<attribute> is <value>"`` ("favorite food is sushi"), with
    British spellings folded; ``None`` for any other shape."""
    match = _COPULA.match(predicate)
    if not match or match.group("attr").split()[0].lower() in ("is", "has", "was"):
        return None
    attr = match.group("attr").lower().replace("favourite", "favorite").replace("colour",
                                                                                 "color")
    return attr, match.group("value")


class AttributeIndex:
    """The prototypes, embedded once per embedder.

    Args:
        embed: the synchronous embedder the prototypes and predicates are embedded with.
    """

    def __init__(self, embed: Embed) -> None:
        self.embed = embed
        self._names = list(PROTOTYPES)
        self._owner = np.array([k for k, phrases in enumerate(PROTOTYPES.values())
                                for _ in phrases])
        self._matrix = embed([p for phrases in PROTOTYPES.values() for p in phrases])

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """``(n, attributes)``: each predicate vector's best cosine to each attribute's
        prototypes, for ``(n, dim)`` L2-normalised predicate embeddings."""
        sims = vectors @ self._matrix.T
        return np.stack([sims[:, self._owner == k].max(axis=1)
                         for k in range(len(self._names))], axis=1)

    def assign(self, vectors: np.ndarray, best: np.ndarray | None = None) -> list[str | None]:
        """The single-valued attribute of each predicate vector, or ``None``.

        Args:
            vectors: ``(n, dim)`` L2-normalised predicate embeddings.
            best: their :meth:`scores`, when already computed.
        """
        if not len(vectors):
            return []
        best = self.scores(vectors) if best is None else best
        order = np.argsort(-best, axis=1, kind="stable")
        top, runner = np.take_along_axis(best, order[:, :2], axis=1).T
        ok = (top >= ATTRIBUTE_THRESHOLD) & (top - runner >= ATTRIBUTE_MARGIN)
        return [self._names[k] if good else None for k, good in zip(order[:, 0], ok,
                                                                      strict=True)]


def attributes_of(index: AttributeIndex | None, predicates: Sequence[str],
                  vectors: np.ndarray | None,
                  scores: np.ndarray | None = None) -> list[str | None]:
    """Attributes of ``predicates``: possessive attribute phrases first, then the embedding
    (``None`` everywhere when there is no index); ``scores`` are the vectors'
    :meth:`AttributeIndex.scores` when already computed."""
    found: list[str | None] = [None] * len(predicates)
    if index is not None and vectors is not None:
        found = index.assign(vectors, scores)
    for k, predicate in enumerate(predicates):
        if (owned := possessive(predicate)) is not None:
            found[k] = f"'s {owned[0]}"
    return found

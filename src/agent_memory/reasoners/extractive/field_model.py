"""Which profile field a fact belongs in, or none: a learned decision over local embeddings.

A multinomial logistic regression (scikit-learn at training time, numpy here) reads the
all-MiniLM-L6-v2 embedding of a fact with its subject written as "The person"
(:func:`as_generic`) and gives the probability of each field of the default profile
schema (:class:`agent_memory.profile_schema.PersonProfile`) and of ``none``: what a careful
person would leave out of a profile (a feeling of the moment, chatter, a trivial one-off
moment, a vague aim). "Sam works as a nurse" goes to *occupation*; "Sam went camping with
the kids" to *hobbies*; "Sam is so excited" and "Sam ate a sandwich at noon" to none.

The weights (``profile_fields.npz`` beside this module) are trained by
``bench/train_profile_fields.py`` on ``data/profile_statements.jsonl``,
``data/profile_statements_more.jsonl``, ``data/profile_statements_third.jsonl`` and
``data/profile_statements_changes.jsonl``:
statements written and labelled for this project, no
third-party text; the script reports accuracy on held-out folds.
The model knows the default schema's fields only: a schema with another field falls back to
the nearest-prototype rule of :class:`.profile.FieldIndex`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...profile_schema import PERSON, SchemaField, schema_fields
from ..base import FieldAssignment
from .attributes import Embed

WEIGHTS = Path(__file__).with_name("profile_fields.npz")
"""The shipped weights: ``classes`` (n,) field names and ``"none"``, ``coef`` (n, 384),
``intercept`` (n,)."""
NONE = "none"
"""The class of a fact that belongs in no field."""
MIN_PROBABILITY = 0.95
"""Lowest probability that a fact belongs in some field (1 - P(none)) for it to be filed, in
its most probable field; below it the fact stays out of the profile. A fact the model cannot
place between two fields ("Sam's daughter was born in January": family or age) is still
filed: only the doubt whether it is profile material at all keeps it out. Chosen on LoCoMo
facts labelled by a reader (``bench/profile_fields_locomo.py``, splits ``tune`` and ``dev``)."""


_CHANGE = re.compile(
    r"(?i)\s*\b(?:(?<!right )(?<!just )now|actually|these days|nowadays|lately)\b,?(?=\W|$)")
"""Words that tell a fact holds from now on ("loves running now", "actually enjoys",
"these days"): they say when, not what, so they do not decide the field. "right now" and
"just now" stay: they mark a moment ("is hungry right now")."""


def as_generic(text: str, subject: str | None) -> str:
    """``text`` as the model reads it: ``subject``'s name (whole or first name) written as
    :data:`PERSON`, and the words of change (:data:`_CHANGE`) left out."""
    text = _CHANGE.sub("", text).strip()
    if not subject:
        return text
    names = sorted({subject, subject.split()[0]}, key=len, reverse=True)
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b"
    return re.sub(pattern, PERSON, text)


@lru_cache(maxsize=1)
def _weights() -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    with np.load(WEIGHTS) as data:
        return (tuple(str(c) for c in data["classes"]), data["coef"].astype(np.float32),
                data["intercept"].astype(np.float32))


def covers(fields: Sequence[SchemaField]) -> bool:
    """Whether ``fields`` are fields of the default schema the model was trained for, each
    with its name, description and prototypes unchanged (a schema that reuses a name with
    another meaning is not covered), and the model knows them all."""
    known = set(schema_fields())
    classes = _weights()[0]
    return bool(fields) and all(f in known and f.name in classes and f.name != NONE
                                for f in fields)


def probabilities(vectors: np.ndarray, fields: Sequence[SchemaField]) -> np.ndarray:
    """``(len(vectors), len(fields) + 1)`` probabilities of each field and, last, of none,
    for embeddings ``vectors`` ``(n, 384)`` (L2-normalised all-MiniLM-L6-v2); the classes of
    fields not in the schema are left out before the softmax.

    Raises:
        ValueError: a field the model does not know (check :func:`covers` first).
    """
    classes, coef, intercept = _weights()
    keep = [classes.index(f.name) for f in fields] + [classes.index(NONE)]
    logits = np.asarray(vectors, dtype=np.float32) @ coef[keep].T + intercept[keep]
    logits -= logits.max(axis=1, keepdims=True)
    odds = np.exp(logits)
    return odds / odds.sum(axis=1, keepdims=True)


def assign(embed: Embed, texts: Sequence[str], subjects: Sequence[str | None],
           fields: Sequence[SchemaField]) -> list[FieldAssignment]:
    """The most probable field of each of ``texts`` about ``subjects``, scored by the
    probability that it belongs in some field (1 - P(none)); ``None`` (score 0) when that
    probability is under :data:`MIN_PROBABILITY`. ``embed`` must be the local
    all-MiniLM-L6-v2 the model was trained on.

    Raises:
        ValueError: ``fields`` holds a field the model does not know (see :func:`covers`).
        ModelUnavailableError: the local embedder cannot load.
    """
    if not texts:
        return []
    vectors = embed([as_generic(t, s) for t, s in zip(texts, subjects, strict=True)])
    out = []
    for row in probabilities(vectors, fields):
        worth = 1.0 - float(row[-1])
        filed = worth >= MIN_PROBABILITY
        out.append(FieldAssignment(field=fields[int(row[:-1].argmax())].name if filed else None,
                                   score=max(0.0, min(1.0, worth)) if filed else 0.0))
    return out

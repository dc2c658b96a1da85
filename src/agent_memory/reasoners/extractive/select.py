"""Which clauses are worth a fact: a learned decision over embeddings and parse features.

A logistic regression (scikit-learn at training time, numpy here) reads, for each clause of
:mod:`.parse`, the all-MiniLM-L6-v2 embedding of its words as spoken and a few parse features
(:func:`features`), and gives the probability that an annotator would keep it as a memory:
"I work as a pharmacist" yes; "I'm so proud of you", "Here's a pic of my new car", "It was so
fun" no. The weights (``clause_selector.npz`` beside this module) are trained by
``bench/train_clause_selector.py`` on ``data/fact_clauses*.jsonl`` (single clauses) and on the
clauses the extractor reads in the written chats of ``data/fact_chats.jsonl`` (labelled in
``data/fact_chat_labels.jsonl``): text written and labelled for this project, no third-party
text; the script reports accuracy and ROC AUC on held-out folds split by item and by chat.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...embedders.base import Embedder
from ...errors import ModelUnavailableError
from .lexicon import NAME_LABELS
from .parse import KINDS, Clause
from .person import YOU_WORDS
from .sentences import content_terms, word_set, words

WEIGHTS = Path(__file__).with_name("clause_selector.npz")
"""The shipped weights: ``coef`` (n_features,), ``intercept`` (1,)."""
_AMOUNT = word_set("CARDINAL QUANTITY MONEY PERCENT ORDINAL")
_TIME = frozenset(("DATE", "TIME"))
_TENSES = (("VBD", "VBN"), ("VBP", "VBZ"), ("MD",), ("VBG",))
PARSE_FEATURES = (*(f"kind_{k}" for k in KINDS), "past", "present", "modal", "gerund",
                  "negated", "named", "amount", "time", "question", "you", "log_words",
                  "log_nouns", "anaphora", "copular")
"""Names of the parse features, after the embedding, in order."""

_SHARED: list[Embedder] = []
_LOCK = threading.Lock()


def shared_embedder() -> Embedder:
    """The local all-MiniLM-L6-v2 shared by every extractive reasoner of the process.

    Raises:
        ModelUnavailableError: the local model cannot be loaded.
    """
    with _LOCK:
        if not _SHARED:
            from ...embedders.local import LocalEmbedder

            _SHARED.append(LocalEmbedder())
        return _SHARED[0]


def candidate(clause: Clause) -> bool:
    """Whether ``clause`` may become a fact at all, before the learned decision.

    It must be the speaker's own claim (kind not ``other``), a statement, free of the second
    person ("I'm so proud of you"), and concrete: at least two content terms and a noun or
    number outside dates ("I work as a pharmacist"), or, with "I" as subject, a verb of its
    own that needs none ("I injured myself last month", "I've been playing for a year now");
    or one content term and a noun, with no word pointing elsewhere ("I'm doing kickboxing",
    "We made pizza");
    or a self-description by "be" with at least one content term ("I'm vegetarian", "I'm 34",
    "I'm a nurse"), which says what the speaker is in a single word, and so does a change the
    speaker went through said in the passive ("I got engaged", "I was promoted") and a claim
    of the speaker's that names a place, a person or a work ("I was in Chicago").
    """
    if clause.kind == "other" or clause.question or YOU_WORDS.intersection(words(clause.text)):
        return False
    terms = content_terms(clause.text)
    if clause.copular and clause.kind == "self" or clause.kind == "self" and (
            clause.verb == "VBN" and not clause.negated
            or NAME_LABELS.intersection(clause.entities)):
        return bool(terms)  # "I'm vegetarian"; a change the speaker went through, in the
        # passive: "I got engaged", "I was promoted" (not "I tried"); "I was in Chicago"
    return len(terms) >= 2 and (clause.nouns > 0 or clause.kind == "self") or (
        len(terms) == 1 and clause.nouns > 0 and clause.kind in ("self", "group", "none")
        and not clause.anaphora)


def parse_features(clause: Clause) -> list[float]:
    """The :data:`PARSE_FEATURES` of one clause (0/1 flags and log(1 + words))."""
    words = clause.text.lower().split()
    tense = [float(clause.verb in tags) for tags in _TENSES]
    labels = set(clause.entities)
    return [*(float(clause.kind == k) for k in KINDS), *tense, float(clause.negated),
            float(bool(labels & NAME_LABELS)), float(bool(labels & _AMOUNT)),
            float(bool(labels & _TIME)), float(clause.question),
            float(any(w.strip(",.!?") in YOU_WORDS for w in words)), math.log1p(len(words)),
            math.log1p(clause.nouns), float(min(clause.anaphora, 3)), float(clause.copular)]


def embed_texts(texts: Sequence[str],
                embed: Callable[[list[str]], np.ndarray] | None = None) -> np.ndarray | None:
    """Embeddings ``(len(texts), 384)`` of ``texts`` by ``embed`` (default
    :func:`shared_embedder`), or ``None`` when the local model cannot load."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    try:
        return np.asarray((embed or shared_embedder().embed_sync)(list(texts)), dtype=np.float32)
    except ModelUnavailableError:
        return None


def features(clauses: Sequence[Clause],
             embed: Callable[[list[str]], np.ndarray] | None = None,
             vectors: np.ndarray | None = None) -> np.ndarray:
    """Feature rows ``(len(clauses), 384 + len(PARSE_FEATURES))``: the embedding of each
    clause's text (``vectors``, else computed by :func:`embed_texts`), then its parse
    features. When the local model cannot load, the embedding part is zeros (parse features
    alone)."""
    if not clauses:
        return np.zeros((0, 384 + len(PARSE_FEATURES)), dtype=np.float32)
    if vectors is None:
        vectors = embed_texts([c.text for c in clauses], embed)
    if vectors is None:
        vectors = np.zeros((len(clauses), 384), dtype=np.float32)
    parsed = np.array([parse_features(c) for c in clauses], dtype=np.float32)
    return np.hstack([np.asarray(vectors, dtype=np.float32), parsed])


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, float]:
    with np.load(WEIGHTS) as data:
        return data["coef"].astype(np.float32), float(data["intercept"][0])


def worth(clauses: Sequence[Clause],
          embed: Callable[[list[str]], np.ndarray] | None = None,
          vectors: np.ndarray | None = None) -> list[float]:
    """Probability (0-1) that each clause is worth a fact, in order (``vectors``: the clauses'
    embeddings when already computed, see :func:`features`)."""
    coef, intercept = _weights()
    logits = features(clauses, embed, vectors) @ coef + intercept
    return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]

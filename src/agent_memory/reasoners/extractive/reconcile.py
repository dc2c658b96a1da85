"""Offline reconciliation: a decision learned from features of each pair of facts.

Each fact is read as a claim (:mod:`.claims`). Every two facts about one subject, older first,
become :data:`FEATURES`: cosines of sentences, predicates and objects (local embeddings),
word overlap and qualifiers, WordNet relations between the differing words (:mod:`.lexical`),
claim structure (polarity, state change, intention, numbers, names, times) and the
single-valued attribute found by embedding (:mod:`.attributes`). A small model
(``reconcile_model.json``, written by ``bench/train_reconcile.py`` from pairs we wrote) gives
a probability per class; a pair is a contradiction or a duplicate only above the class's
threshold, chosen on the tuning split for precision, since wrongly retiring or merging a fact
is worse than missing one (a later event that changes nothing of an earlier state must pass
a higher one, :data:`STATE_EVENT_THRESHOLD`); two facts stored at the same time contradict
only when they do read in either order. Duplicate groups merge into one member's text
(:func:`_groups`). Rules stand above the model: the same text is a duplicate; a later death,
birth or wedding retires the state it ends (the one who died, the pregnancy, the
engagement: :func:`.claims.ended_by_life_event`), the birth also when it is told about
another subject of the person (:func:`_births`); and a dislike is never retired by the end
of the activity (:func:`.claims.disliked_then_ended`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...models import Fact
from ...text.numbers import numbers_in
from ..reconcile_models import Contradiction, DuplicateGroup, ReconcileDecision
from .attributes import AttributeIndex, attributes_of
from .claims import (
    Claim,
    content_words,
    disliked_then_ended,
    ended_by_birth,
    ended_by_life_event,
    parse_claim,
)
from .lexical import Lexicon, gloss_relations, lexical_cover, word_relations

MODEL_PATH = Path(__file__).with_name("reconcile_model.json")
LABELS = ("duplicate", "contradiction", "unrelated")
FEATURES = (
    "sentence_cos", "predicate_cos", "object_cos", "term_jaccard", "terms_equal",
    "terms_nested", "terms_differing", "head_same", "polarity_differs", "both_denied",
    "ended", "change_differs", "onset_newer", "intention_realised", "irrealis_differs",
    "past_differs", "numbers_differ", "numbers_same", "numbers_one_side", "names_differ",
    "names_shared", "when_differs", "when_one_side", "same_attribute", "attributes_differ",
    "attribute_one_side", "qualifiers_differ", "wordnet_same", "wordnet_entailed",
    "wordnet_opposite", "denial_overlap", "denial_cos", "attribute_other_value",
    "attribute_names_differ", "attribute_numbers_differ", "numbers_differ_overlap",
    "intention_overlap", "privative_differs", "attribute_value_disjoint", "denial_entailed",
    "opposite_overlap", "event_then_state", "state_then_event", "numbers_same_context",
    "numbers_other_context", "aligned_min", "aligned_mean", "gloss_cover", "gloss_denial",
    "wordnet_sibling", "differing_cos", "wordnet_cover", "events_only", "contrast_denies",
    "attribute_shared")
"""Names of the features, in the order of the model's weights."""

DISAGREEMENTS = ("polarity_differs", "change_differs", "irrealis_differs", "numbers_differ",
                 "names_differ", "when_differs", "privative_differs", "wordnet_opposite",
                 "contrast_denies")
"""Features of two facts that cannot be one claim: merging them would lose one of them."""
_VETO = [FEATURES.index(name) for name in DISAGREEMENTS]
_POLARITY, _GLOSS_DENIAL = FEATURES.index("polarity_differs"), FEATURES.index("gloss_denial")
_PREDICATE, _SAME_ATTRIBUTE = FEATURES.index("predicate_cos"), FEATURES.index("same_attribute")
_EVENTS, _JACCARD = FEATURES.index("events_only"), FEATURES.index("term_jaccard")
_NAME = re.compile(r"\b[A-Z][a-z]+\b")


class PairModel:
    """The learned decision, read with numpy, and its per-class thresholds: gradient-boosted
    regression trees, one per class and stage (Friedman, "Greedy function approximation: a
    gradient boosting machine", *Annals of Statistics* 29(5), 2001; multinomial deviance as
    scikit-learn's ``GradientBoostingClassifier``).

    Args:
        params: the JSON object written by ``bench/train_reconcile.py``: ``features`` (must
            equal :data:`FEATURES`), ``labels`` (:data:`LABELS`), ``thresholds``
            (``duplicate``, ``contradiction``), ``init`` (3 raw scores), ``learning_rate`` and
            ``trees`` (per stage, per class: node arrays ``feature``, ``threshold``, ``left``,
            ``right``, ``value``; a leaf has ``left`` -1).

    Raises:
        ValueError: the parameters were written for other features or labels.
    """

    def __init__(self, params: dict) -> None:
        if tuple(params["features"]) != FEATURES or tuple(params["labels"]) != LABELS:
            raise ValueError("reconcile model was trained for other features or labels")
        self.init = np.asarray(params["init"], dtype=np.float64)
        self.rate = float(params["learning_rate"])
        self.trees = [[{k: np.asarray(v) for k, v in tree.items()} for tree in stage]
                      for stage in params["trees"]]
        self.thresholds = {k: float(v) for k, v in params["thresholds"].items()}

    def with_thresholds(self, **thresholds: float) -> PairModel:
        """A copy deciding at other thresholds (``duplicate=``, ``contradiction=``), the
        trees shared."""
        other = copy.copy(self)
        other.thresholds = {**self.thresholds, **thresholds}
        return other

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities ``(n, 3)`` in :data:`LABELS` order for features ``(n, F)``."""
        x = np.asarray(x, dtype=np.float32)  # the trees split float32 values
        raw = np.tile(self.init, (len(x), 1))
        rows = np.arange(len(x))
        for stage in self.trees:
            for c, tree in enumerate(stage):
                node = np.zeros(len(x), dtype=np.int64)
                while (inner := tree["left"][node] >= 0).any():
                    go_left = x[rows, tree["feature"][node]] <= tree["threshold"][node]
                    step = np.where(go_left, tree["left"][node], tree["right"][node])
                    node = np.where(inner, step, node)
                raw[:, c] += self.rate * tree["value"][node]
        raw -= raw.max(axis=1, keepdims=True)
        e = np.exp(raw)
        return e / e.sum(axis=1, keepdims=True)

    @staticmethod
    def vetoed(x: np.ndarray) -> bool:
        """Whether a pair (its features ``x``) disagrees in one of :data:`DISAGREEMENTS`, a
        polarity that a denying gloss explains ("teetotal" / "never drinks") not counted."""
        return bool((x[_VETO].sum() - x[_POLARITY] * x[_GLOSS_DENIAL]) > 0)

    def decide(self, p: np.ndarray, x: np.ndarray | None = None) -> str:
        """``"contradiction"``, ``"duplicate"`` or ``"unrelated"`` for one probability row
        ``p``; with the pair's features ``x``, never ``"duplicate"`` for a pair that
        disagrees in one of :data:`DISAGREEMENTS` (a merge keeps one text only; a polarity
        that a denying gloss explains, "teetotal" / "never drinks", does not count), and never
        ``"contradiction"`` for a pair outside the candidates (:func:`is_candidate`), and
        for a state then an event that changes nothing of it (:func:`unchanged_by_event`) only
        at or above :data:`STATE_EVENT_THRESHOLD`."""
        rows = None if x is None else np.asarray(x)[None]
        return str(decide_rows(np.asarray(p)[None], rows, self.thresholds["duplicate"],
                               self.thresholds["contradiction"])[0])


CANDIDATE_COSINE = 0.4
"""Least cosine between two facts' predicates (subject left out) for the pair to be a
contradiction candidate, unless both state the same single-valued attribute."""


def is_candidate(x: np.ndarray) -> bool:
    """Whether a pair (its feature row ``x``) may be a contradiction at all: both facts state
    the same single-valued attribute, their predicates share a content word ("is majoring in
    economics" / "switched his major to computer science"), or their predicates are close
    (cosine >= :data:`CANDIDATE_COSINE`, chosen on the tuning split).

    Candidate selection before the decision, as systems that reconcile a new fact only
    against its nearest stored facts do: reconciliation compares every two facts of a person,
    and most of those pairs are about different things ("gets nervous when markets drop" /
    "moved to Portland"), unlike the labelled pairs, which share a topic by design.

    Two completed events neither of which changes a state ("went to a pride parade in June" /
    "went to a pride parade on 11 August") are never candidates: a later event does not undo
    an earlier one. Events are history; only states (and the changes that begin or end
    them: "moved to", "sold") have a time after which they stop holding. Among the labelled
    pairs and pools, 2 of 705 contradictions and 178 of 7,964 unrelated pairs are two such
    events.
    """
    if x[_EVENTS] > 0:
        return False
    return bool(x[_PREDICATE] >= CANDIDATE_COSINE or x[_SAME_ATTRIBUTE] > 0 or x[_JACCARD] > 0)


STATE_EVENT_THRESHOLD = 0.8
"""Least P(contradiction) for a later event to retire an earlier state when nothing in the pair
reads as a change (:func:`unchanged_by_event`), above the model's own threshold. Chosen on the
tuning split: the least value at which the LoCoMo tuning conversations (conv-26, conv-30) lose
the fewest true facts (4 decisions of 30 at the model's threshold alone, 2 at 0.7, 1 at 0.8 and
above), with the most contradiction recall on the tuning pairs (0.671 at 0.7, 0.658 at 0.8,
0.646 at 0.9)."""
_STATE_EVENT = FEATURES.index("state_then_event")
CHANGE_SIGNS = ("names_differ", "numbers_differ", "attribute_value_disjoint",
                "attribute_other_value", "attribute_names_differ", "attribute_numbers_differ",
                "ended", "polarity_differs", "wordnet_opposite", "contrast_denies",
                "privative_differs", "intention_realised")
"""Features that read a change of the earlier state in the pair: another value, name or number
of it, an ending, a denial, an opposite, a plan carried out."""
_CHANGES = [FEATURES.index(name) for name in CHANGE_SIGNS]


def unchanged_by_event(x: np.ndarray) -> bool:
    """Whether a pair (its features ``x``) is a state, then a completed event in which nothing
    reads as a change of the state (none of :data:`CHANGE_SIGNS`): "volunteers at the food
    bank" / "volunteered at the food bank on Saturday", "plays in a brass band" / "played with
    the brass band at the summer fair". In a chat most such pairs share a topic and hold
    together, so the event retires the state only at P(contradiction) >=
    :data:`STATE_EVENT_THRESHOLD`. Never retiring would miss changes the claim reader does not
    see ("called off", "made the final payment"); the higher bar keeps those the model is sure
    of."""
    return bool(x[_STATE_EVENT] > 0 and not any(x[k] > 0 for k in _CHANGES))


def decide_rows(probs: np.ndarray, x: np.ndarray | None, duplicate: float,
                contradiction: float) -> np.ndarray:
    """:meth:`PairModel.decide` over many pairs at given thresholds (the training script
    searches them): labels ``(n,)`` for probabilities ``(n, 3)`` and features ``(n, F)``
    (``None``: no candidate or disagreement check)."""
    candidate = (np.ones(len(probs), dtype=bool) if x is None
                 else np.array([is_candidate(row) for row in x], dtype=bool))
    veto = (np.zeros(len(probs), dtype=bool) if x is None
            else np.array([PairModel.vetoed(row) for row in x], dtype=bool))
    unchanged = (np.zeros(len(probs), dtype=bool) if x is None  # unchanged_by_event, all rows
                 else (x[:, _STATE_EVENT] > 0) & ~(x[:, _CHANGES] > 0).any(axis=1))
    least = np.where(unchanged, max(contradiction, STATE_EVENT_THRESHOLD), contradiction)
    contra = (probs[:, 1] >= least) & (probs[:, 1] >= probs[:, 0]) & candidate
    dup = ~contra & (probs[:, 0] >= duplicate) & ~veto
    return np.where(contra, "contradiction", np.where(dup, "duplicate", "unrelated"))


@lru_cache(maxsize=1)
def default_model() -> PairModel:
    """The shipped model (``reconcile_model.json`` beside this module)."""
    return PairModel(json.loads(MODEL_PATH.read_text()))


def claim_of(fact: Fact) -> Claim:
    """The fact's claim (:func:`.claims.parse_claim`), or its whole text as the predicate."""
    claim = parse_claim(fact.content, fact.subject)
    if claim is not None:
        return claim
    return Claim((fact.subject or "").lower(), fact.content, True, "", numbers_in(fact.content),
                 frozenset(content_words(fact.content)))


def aligned(a: Sequence[str], b: Sequence[str],
            words: dict[str, np.ndarray]) -> tuple[float, float]:
    """``(min, mean)`` over the words of each side missing from the other of the best cosine
    to a word of the other side (greedy word alignment by embedding, as BERTScore, Zhang et
    al., ICLR 2020); ``(1, 1)`` when no word differs, ``(0, 0)`` without word vectors."""
    best = [max((float(words[w] @ words[v]) for v in other if v in words), default=0.0)
            for side, other in ((a, b), (b, a)) for w in side if w not in other and w in words]
    if not words:
        return 0.0, 0.0
    return (min(best), sum(best) / len(best)) if best else (1.0, 1.0)


def differing_cosine(a: Sequence[str], b: Sequence[str],
                     words: dict[str, np.ndarray]) -> float:
    """Cosine of the mean embeddings of the words only in ``a`` and of those only in ``b``
    (a restatement swaps words close in meaning as a whole, "takes the train" / "commutes by
    train"); 1 when no word differs, -1 when only one side has words of its own or no word
    vectors are known."""
    only_a = [words[w] for w in a if w not in b and w in words]
    only_b = [words[w] for w in b if w not in a and w in words]
    if not only_a and not only_b:
        return 1.0 if words else -1.0
    if not only_a or not only_b:
        return -1.0
    va, vb = np.mean(only_a, axis=0), np.mean(only_b, axis=0)
    norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / norm if norm else -1.0


def pair_features(a: Claim, b: Claim, attr_a: str | None, attr_b: str | None,
                  cosines: tuple[float, float, float], lexicon: Lexicon | None,
                  words: dict[str, np.ndarray] | None = None,
                  shared: float = 0.0) -> list[float]:
    """The :data:`FEATURES` of claims ``a`` (older) and ``b`` (newer).

    Args:
        a, b: the claims.
        attr_a, attr_b: their single-valued attributes (:mod:`.attributes`), or ``None``.
        cosines: ``(sentence, predicate, object)`` cosine similarities, 0 when unknown.
        lexicon: WordNet relations, or ``None`` (those features are then 0).
        words: L2-normalised embeddings of the claims' words (:attr:`Claim.words`), or
            ``None`` (the alignment features are then 0).
        shared: how strongly both predicates state one single-valued attribute: the largest
            over attributes of the smaller of their two prototype cosines (0 unknown), a
            graded ``same_attribute`` that no threshold cuts.
    """
    ta, tb = a.terms, b.terms
    union = ta | tb
    jaccard = len(ta & tb) / len(union) if union else 0.0
    nested = float(bool(ta) and bool(tb) and (ta <= tb or tb <= ta))
    polarity = float(a.positive != b.positive)
    both_numbers = bool(a.numbers) and bool(b.numbers)
    numbers_differ = float(both_numbers and a.numbers != b.numbers)
    na, nb = (frozenset(_NAME.findall(c.predicate)) for c in (a, b))
    names_differ = float(bool(na) and bool(nb) and not (na <= nb or nb <= na))
    same_attr = float(attr_a is not None and attr_a == attr_b)
    same, entailed, opposite, siblings = word_relations(a.words, b.words, lexicon)
    sentence, predicate, obj = cosines
    intention = float(a.irrealis and not b.irrealis)
    ctx = a.context | b.context
    context = len(a.context & b.context) / len(ctx) if ctx else 1.0
    return [
        sentence, predicate, obj, jaccard, float(ta == tb and bool(ta)), nested,
        min(len(ta ^ tb), 6) / 6, float(a.head == b.head and bool(a.head)), polarity,
        float(not a.positive and not b.positive), float("end" in (a.change, b.change)),
        float(a.change != b.change), float(b.change == "begin" and a.change != "begin"),
        intention, float(a.irrealis != b.irrealis), float(a.past != b.past), numbers_differ,
        float(both_numbers and a.numbers == b.numbers), float(bool(a.numbers) != bool(b.numbers)),
        names_differ, float(bool(na & nb)), float(bool(a.when) and bool(b.when)
                                                  and a.when != b.when),
        float(bool(a.when) != bool(b.when)), same_attr,
        float(attr_a is not None and attr_b is not None and attr_a != attr_b),
        float((attr_a is None) != (attr_b is None)),
        float(a.qualifiers != b.qualifiers), float(same), float(entailed), float(opposite),
        polarity * max(nested, jaccard), polarity * predicate, same_attr * (1.0 - obj),
        same_attr * names_differ, same_attr * numbers_differ, numbers_differ * jaccard,
        intention * jaccard,
        float(bool((a.qualifiers ^ b.qualifiers) & {"former", "ex", "non", "almost"})),
        same_attr * float(bool(ta - tb) and bool(tb - ta)), polarity * float(entailed > 0),
        float(opposite > 0) * jaccard, float(a.done and not b.done and b.change != "end"),
        float(b.done and not a.done), numbers_differ * context, numbers_differ * (1 - context),
        *aligned(a.words, b.words, words or {}), *gloss_relations(a.words, b.words, lexicon),
        float(siblings), differing_cosine(a.words, b.words, words or {}),
        lexical_cover(a.words, b.words, lexicon),
        float(a.done and b.done and not a.change and not b.change),
        float(bool(a.denied & b.terms) or bool(b.denied & a.terms)), shared,
    ]


def read_pool(facts: Sequence[Fact], attributes: AttributeIndex | None) -> tuple:
    """Claims, single-valued attributes, predicate and object embeddings of ``facts``, the
    embeddings of their words (``{word: vector}``) and the predicates' attribute cosines
    (:meth:`.AttributeIndex.scores`, ``None`` without an index)."""
    claims = [claim_of(f) for f in facts]
    predicates = [c.predicate for c in claims]
    objects = [c.predicate.split(" ", 1)[-1] for c in claims]
    vocabulary = list(dict.fromkeys(w for c in claims for w in c.words))
    embedded = (attributes.embed(predicates + objects + vocabulary) if attributes and facts
                else None)
    n = len(facts)
    pred_vectors = embedded[:n] if embedded is not None else None
    obj_vectors = embedded[n: 2 * n] if embedded is not None else None
    words = dict(zip(vocabulary, embedded[2 * n:], strict=True)) if embedded is not None else {}
    scores = (attributes.scores(pred_vectors) if attributes and pred_vectors is not None
              else None)
    return (claims, attributes_of(attributes, predicates, pred_vectors, scores), pred_vectors,
            obj_vectors, words, scores)


def pair_matrix(facts: Sequence[Fact], vectors: np.ndarray | None,
                pairs: Sequence[tuple[int, int]], *, attributes: AttributeIndex | None,
                lexicon: Lexicon | None, reading: tuple | None = None) -> np.ndarray:
    """Features ``(len(pairs), F)`` of index pairs ``(i, j)`` of ``facts``; each pair is read
    older first. ``vectors`` are the facts' L2-normalised embeddings ``(n, dim)`` or ``None``;
    predicates and objects are embedded with ``attributes``' embedder (cosines 0 without).
    ``reading`` is :func:`read_pool`'s result when already computed."""
    claims, found, pred_vectors, obj_vectors, words, scores = (reading
                                                               or read_pool(facts, attributes))
    rows = []
    for i, j in pairs:
        if facts[j].created_at < facts[i].created_at:
            i, j = j, i
        cos = tuple(float(v[i] @ v[j]) if v is not None else 0.0
                    for v in (vectors, pred_vectors, obj_vectors))
        shared = float(np.minimum(scores[i], scores[j]).max()) if scores is not None else 0.0
        rows.append(pair_features(claims[i], claims[j], found[i], found[j], cos, lexicon,
                                  words, shared))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))


def reconcile_facts(
    facts: Sequence[Fact],
    vectors: np.ndarray | None,
    *,
    attributes: AttributeIndex | None = None,
    lexicon: Lexicon | None = None,
    model: PairModel | None = None,
    reading: tuple | None = None,
) -> ReconcileDecision:
    """Find duplicate groups and contradicting pairs in ``facts``.

    Args:
        facts: the pool (any order).
        vectors: float32 array ``(len(facts), dim)``, L2-normalised rows, or ``None``.
        attributes: the prototype index whose embedder also embeds predicates and objects;
            ``None`` leaves every cosine at 0 (few pairs then pass a threshold).
        lexicon: WordNet relations (:mod:`.lexical`), or ``None``.
        model: the decision; the shipped one (:func:`default_model`) by default.
        reading: :func:`read_pool` of ``facts`` when already computed.

    Returns:
        The decision; ids are the facts' ids; rationales carry the class probability.

    Raises:
        ValueError: ``vectors`` does not have one row per fact.
    """
    n = len(facts)
    if vectors is not None and len(vectors) != n:
        raise ValueError(f"got {len(vectors)} vectors for {n} facts")
    model = model or default_model()
    reading = reading or read_pool(facts, attributes)
    claims, found = reading[0], reading[1]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if claims[i].subject == claims[j].subject]
    births = _births(facts, claims)
    if not pairs and not births:
        return ReconcileDecision()
    if not pairs:
        return ReconcileDecision(contradictions=[
            Contradiction(first_id=facts[i].id, second_id=facts[j].id, rationale=why)
            for i, j, why, _ in births])
    x = pair_matrix(facts, vectors, pairs, attributes=attributes, lexicon=lexicon,
                    reading=reading)
    probs = model.probabilities(x)
    ties = [k for k, (i, j) in enumerate(pairs) if facts[i].created_at == facts[j].created_at]
    if ties:  # no older side: a contradiction must hold read either way
        back = model.probabilities(pair_matrix(facts, vectors, [pairs[k][::-1] for k in ties],
                                               attributes=attributes, lexicon=lexicon,
                                               reading=reading))
        probs[ties, 1] = np.minimum(probs[ties, 1], back[:, 1])
    same: list[tuple[int, int, str]] = []
    conflicts: list[tuple[int, int, str, float]] = []
    labels = decide_rows(probs, x, model.thresholds["duplicate"],
                         model.thresholds["contradiction"])
    for (i, j), p, label in zip(pairs, probs, labels, strict=True):
        # the same text (content hash) is a restatement whatever the model says; a later
        # death, birth or wedding ends the state it ends whatever the model says
        older, newer = (i, j) if facts[i].created_at <= facts[j].created_at else (j, i)
        ended = (ended_by_life_event(claims[older], claims[newer])
                 if _after(facts[newer], facts[older]) else None)
        decision = ("duplicate" if facts[i].content_hash == facts[j].content_hash
                    else "contradiction" if ended else str(label))
        if decision == "contradiction" and not ended and disliked_then_ended(claims[older],
                                                                              claims[newer]):
            decision = "unrelated"  # "hates running" / "has stopped running": both hold
        about = (f"{found[i]} of {claims[i].subject}" if found[i] and found[i] == found[j]
                 else claims[i].subject)
        why = f"{about}: '{claims[i].predicate}' / '{claims[j].predicate}'"
        if decision == "contradiction" and ended:
            conflicts.append((i, j, f"{why}, {ended}", 1.0))
        elif decision == "contradiction":
            conflicts.append((i, j, f"{why}, P(contradiction) {p[1]:.2f}", float(p[1])))
        elif decision == "duplicate":
            same.append((i, j, f"{why}, P(duplicate) {p[0]:.2f}"))
    conflicts += births
    # most probable first: a fact several later facts contradict is retired by the likeliest
    conflicts.sort(key=lambda c: -c[3])
    return ReconcileDecision(
        duplicates=_groups(facts, same, [c[:3] for c in conflicts],
                           [frozenset(content_words(f.content)) | numbers_in(f.content)
                            for f in facts]),
        contradictions=[Contradiction(first_id=facts[i].id, second_id=facts[j].id,
                                      rationale=why) for i, j, why, _ in conflicts])


def _after(event: Fact, state: Fact) -> bool:
    """Whether ``event`` was said after ``state`` and is not true since before it (a birth
    "in 2019" ends no pregnancy told of in 2024): the life-event rules end only a state the
    event follows."""
    return (event.created_at > state.created_at
            and (event.valid_from or event.created_at) >= (state.valid_from or state.created_at))


def _births(facts: Sequence[Fact], claims: Sequence[Claim]
            ) -> list[tuple[int, int, str, float]]:
    """Pregnancies ended by a later birth told about another subject of the same person
    ("Bartek's wife Ewa is pregnant" / "Bartek's son Kuba was born"), which the pairs of one
    subject never meet (:func:`.claims.ended_by_birth`)."""
    found = []
    for i, a in enumerate(claims):
        if "pregnant" not in a.predicate and "expecting" not in a.predicate:
            continue
        for j, b in enumerate(claims):
            if a.subject != b.subject and _after(facts[j], facts[i]) and ended_by_birth(a, b):
                why = (f"{a.subject} / {b.subject}: '{a.predicate}' / '{b.predicate}', "
                       "the baby was born")
                found.append((i, j, why, 1.0))
    return found


def _rank(fact: Fact) -> tuple[float, float, int]:
    """How trustworthy a fact is: confidence, then newest, then longest."""
    return (fact.confidence, fact.created_at.timestamp(), len(fact.content))


def _groups(facts: Sequence[Fact], same: list[tuple[int, int, str]],
            conflicts: list[tuple[int, int, str]],
            words: Sequence[frozenset[str]]) -> list[DuplicateGroup]:
    """Connected components of the duplicate relation, minus those holding a conflict. The
    merged text is a member's (nothing invented): one whose ``words`` hold every other
    member's ("has a cat and a dog" over "has a cat"); among those, or when none does, the most
    trustworthy (:func:`_rank`)."""
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
        union = frozenset().union(*(words[k] for k in idx))
        best = max(idx, key=lambda k: (words[k] >= union, *_rank(facts[k])))
        groups.append(DuplicateGroup(fact_ids=[facts[k].id for k in idx],
                                     merged_text=facts[best].content,
                                     rationale="; ".join(dict.fromkeys(reasons.get(key, [])))))
    return groups

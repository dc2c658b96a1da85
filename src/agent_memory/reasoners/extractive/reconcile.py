"""Offline reconciliation: contradictions and duplicates from claims and their embeddings.

Each fact is read as a claim (:mod:`.claims`: subject, predicate with the subject masked,
polarity, state change, numbers) and its predicate is embedded; single-valued attributes are
found by that embedding (:mod:`.attributes`). Two facts about the same subject (dated events
at different times are never compared) are:

- **a contradiction** when one denies what the other affirms (negation or cessation: the
  denied predicate's terms lie within the affirmed one's, or the two predicates embed close
  and share a term), or when both affirm the same single-valued attribute with different
  values (other names, other numbers, or predicates not close enough to be one value), or when
  the same predicate carries a different number ("budget is 3000" / "budget is 5000");
- **duplicates** when they pass the disagreement check (same polarity, same state change,
  same numbers, same names, not a contradiction) and say the same thing: equal or nested
  terms, or predicates whose embeddings are at least :data:`PREDICATE_DUPLICATE` apart. Facts
  that do not read as claims fall back to the whole-sentence cosine
  (:data:`DUPLICATE_THRESHOLD`) with the same numbers, names and negation.

Before any cosine is trusted, the structure of the two predicates is read
(:mod:`.contrast`): a minimal pair (one content word swapped, where antonyms such as "owns" /
"rents" hide) merges only above :data:`PREDICATE_DUPLICATE`, a swapped comparison or a
different count of one noun is a contradiction, an intention ("plans to") never restates a
realised fact, and a value word shared beyond the head verb keeps a single-valued pair
undecided. Outside minimal pairs, a whole-sentence cosine of at least
:data:`SENTENCE_DUPLICATE` finds paraphrases that reword the predicate.

With a WordNet database (:mod:`.lexical`), the words where two facts differ are compared by
sense: a denial also covers more specific words ("does not have a dog" / "got a puppy"),
differing words of one sense make a duplicate ("author" / "writer"), and adjective or verb
antonyms in a one-word difference a contradiction ("employed" / "unemployed"). Facts are
compared oldest first, so a later realised fact settles an earlier intention ("plans to sell
the flat" / "sold the flat", :func:`_fulfils`).

A fact of two verb phrases ("runs a dance studio and no longer works in banking") is also read
as two claims; either may contradict the other fact, and two facts are duplicates only when
their verb phrases agree one by one (merging keeps one text, which must lose no phrase). Two
claims qualified differently (:func:`.contrast.qualifiers_differ`, or a noun modifier by
:func:`.lexical.compound_differs`) are never duplicates, whatever their cosine.

Comparing predicates rather than whole sentences matters: the shared subject lifts the cosine
of any two facts about one person ("Kenji owns his apartment" / "Kenji rents his apartment"
are 0.938 as sentences, 0.848 as predicates). Duplicate groups are the connected components of
the duplicate relation; a component that holds a contradicting pair is not merged. Wrongly
retiring or merging a fact is worse than missing one, so every rule errs towards "not sure".
The merged text of a group is one member's text, so nothing is invented: a member that holds
every other member's words when there is one (so no detail is lost), then the most
trustworthy (highest confidence, then newest, then longest).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...models import Fact
from ..reconcile_models import Contradiction, DuplicateGroup, ReconcileDecision
from .attributes import AttributeIndex, attributes_of, possessive
from .claims import (
    PRIVATIVE,
    Claim,
    conjoined_claims,
    content_words,
    intended,
    numbers_in,
    parse_claim,
    stem_term,
    terms_of,
)
from .contrast import (
    bounded,
    bounds_disagree,
    counts_differ,
    measures_differ,
    minimal_pair,
    opposite_direction,
    qualifiers_differ,
    same_time,
    swapped_comparison,
)
from .lexical import (
    Lexicon,
    compound_differs,
    covers,
    nested_claim,
    opposite_claims,
    other_referent,
    other_words,
    same_claim,
    unmatched_adjective,
)

DUPLICATE_THRESHOLD = 0.9
"""Cosine similarity (all-MiniLM-L6-v2) of whole fact sentences from which two facts that do
not read as claims count as duplicates, when their numbers, names and negations also agree."""

PREDICATE_DUPLICATE = 0.88
"""Cosine similarity (all-MiniLM-L6-v2) of two predicates (subject masked) from which they
say the same thing. Antonymous predicates score below it ("owns his apartment" / "rents his
apartment" 0.848, "loves jazz" / "hates jazz" 0.825); paraphrases above ("lives in Lisbon" /
"resides in Lisbon" 0.918). Chosen on ``data/reconcile_pairs.jsonl``."""

SAME_VALUE = 0.8
"""Cosine similarity of two predicates of one single-valued attribute below which they state
different values (a contradiction); between it and :data:`PREDICATE_DUPLICATE` the pair is
left undecided ("owns his apartment" / "rents his apartment", 0.848)."""

SENTENCE_DUPLICATE = 0.92
"""Cosine similarity (all-MiniLM-L6-v2) of two whole fact sentences from which two claims
that pass the disagreement check, are not a minimal pair (:func:`.contrast.minimal_pair`) and
whose predicates embed at least :data:`PARAPHRASE_PREDICATE` apart say the same thing: a
paraphrase that reorders or rewords the predicate ("has a passion for painting and pottery" /
"hobbies include painting and pottery"). Chosen on the tuning half of
``data/reconcile_pairs_v2.jsonl`` and on ``data/reconcile_pairs.jsonl``."""

PARAPHRASE_PREDICATE = 0.65
"""Lowest predicate cosine for a duplicate found by :data:`SENTENCE_DUPLICATE`."""

NUMBER_PARAPHRASE = 0.9
"""Cosine similarity (all-MiniLM-L6-v2) of two whole fact sentences from which two claims with
the same numbers that share a content word and are not a minimal pair say the same thing,
even when only one reads as a single-valued attribute ("pays 1,400 dollars a month in rent" /
"monthly rent is $1400"). The shared number pins the value; the cosine the rewording. Chosen
on the tuning half of ``data/reconcile_pairs_v2.jsonl`` and on ``data/reconcile_pairs.jsonl``."""

NEGATION_SIMILARITY = 0.7
"""Cosine similarity of an affirmed and a denied predicate that share a term, from which the
denial is about the same thing."""

_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_NEG = re.compile(r"\b(?:not|never|no longer|no|none|nothing|stopped|quit|anymore)\b|n't\b",
                  re.IGNORECASE)
_DATED = re.compile(r"\d|\b(?:since|until|ago|last|next|this|early|late|january|february|"
                    r"march|april|may|june|july|august|september|october|november|december|"
                    r"spring|summer|autumn|fall|winter)\b")
"""A ``when`` that dates the claim (as opposed to a time of day, a frequency or a time
relative to an event)."""
_RESULTS = frozenset(stem_term(w) for w in (
    "degree", "diploma", "certificate", "qualification", "licence", "license", "doctorate",
    "phd", "masters", "bachelors", "title", "medal", "award"))
"""What a completion earns and keeps ("finished her degree" / "has a degree"); a completed
contract or treatment is over."""
_HAS = re.compile(r"^(?:has|have|had|holds?|owns?)\b", re.IGNORECASE)
_VAGUE = re.compile(r"^\s*(?:it|that|this|they|these|those|there)\b", re.IGNORECASE)
"""Facts opening with a pronoun whose referent is unknown are never merged by similarity."""


def _details(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """Numbers, capitalised names (not sentence-initial) and whether a negation occurs."""
    names = frozenset(_NAME.findall(text[1:]))
    return numbers_in(text), names, bool(_NEG.search(text))


def _rank(fact: Fact) -> tuple[float, float, int]:
    return (fact.confidence, fact.created_at.timestamp(), len(fact.content))


def _names(claim: Claim) -> frozenset[str]:
    return frozenset(_NAME.findall(claim.predicate))


def _nested(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a) and bool(b) and (a <= b or b <= a)


def _contains(a: frozenset[str], b: frozenset[str]) -> bool:
    """One term set within the other, the extra terms holding no privative modifier."""
    return _nested(a, b) and not (a ^ b) & PRIVATIVE


OUTCOME_OVERLAP = 0.5
"""Least share of an intention's object terms ("plans to *retire*", "hopes to get the *summer
job*") a later realised claim must carry to settle it ("has retired", "was turned down for the
summer job")."""


def _fulfils(intention: Claim, outcome: Claim, lexicon: Lexicon | None) -> bool:
    """Whether ``outcome`` (newer, realised) settles ``intention`` (older, irrealis): what was
    planned, hoped or sought has happened or failed, so the intention no longer holds."""
    wanted = intended(intention)
    if not wanted or outcome.when and intention.when:
        return False
    names = _names(intention)
    if names and _names(outcome) and not names & _names(outcome):
        return False  # "plans to visit Japan" / "visited China": another place
    if unmatched_adjective(intention, outcome, lexicon):
        return False  # "is looking for a new flat" / "lives in a flat": not the new one
    return len(wanted & outcome.terms) >= OUTCOME_OVERLAP * len(wanted)


def relate(a: Claim, b: Claim, attr_a: str | None, attr_b: str | None,
           sim: float | None, sentence: float | None = None,
           lexicon: Lexicon | None = None) -> tuple[str | None, str]:
    """How two claims relate: ``("conflict" | "same" | None, why)``. Two claims qualified
    differently (:func:`.contrast.qualifiers_differ`: "lives near Paris" / "lives in Paris",
    "owns" / "owned") are never the same.

    Args:
        a, b: the claims.
        attr_a, attr_b: their single-valued attributes (:mod:`.attributes`), or ``None``.
        sim: cosine similarity of their predicates, or ``None`` without embeddings.
        sentence: cosine similarity of the whole fact sentences, or ``None``.
        lexicon: WordNet relations (:mod:`.lexical`), or ``None``.
    """
    relation, why = _relate(a, b, attr_a, attr_b, sim, sentence, lexicon)
    if relation == "same" and (qualifiers_differ(a.predicate, b.predicate)
                               or compound_differs(a, b, lexicon)
                               or other_words(a, b, lexicon)):
        return None, ""
    return relation, why


def _relate(a: Claim, b: Claim, attr_a: str | None, attr_b: str | None, sim: float | None,
            sentence: float | None, lexicon: Lexicon | None) -> tuple[str | None, str]:
    if a.subject != b.subject:
        return None, ""
    if a.when and b.when and not same_time(a.when, b.when):
        return None, ""  # events at different times may both be true
    if a.positive == b.positive and a.terms == b.terms and a.terms:
        order_a, order_b = content_words(a.predicate), content_words(b.predicate)
        if order_a != order_b:
            if swapped_comparison(a.predicate, b.predicate):
                return "conflict", f"{a.subject}: '{a.predicate}' vs '{b.predicate}' (swapped)"
            return None, ""  # same words in another order: roles may differ
    if a.positive and b.positive and counts_differ(a.predicate, b.predicate):
        return "conflict", f"{a.subject}: '{a.predicate}' vs '{b.predicate}' (counts)"
    close = sim is not None and sim >= PREDICATE_DUPLICATE
    if a.positive != b.positive:
        aff, den = (a, b) if a.positive else (b, a)
        if den.numbers and den.numbers != aff.numbers:
            return None, ""
        if den.completed and _HAS.match(aff.predicate) and aff.terms & _RESULTS:
            return None, ""  # "finished her degree" / "has a degree in biology": its result
        if other_referent(den, aff, lexicon):
            return None, ""  # "sold her old car" / "drives a new car": another car
        if den.when and not aff.when and den.change != "end" and not _DATED.search(den.when):
            return None, ""  # "never drinks coffee after noon" / "drinks coffee" (an ending's
            # time tells when it ended: "gave up chess after her exams")
        # a shared term beyond names: "used to live in Paris" / "visited Paris" share a place,
        # not a predicate
        shared = (den.terms & aff.terms - {stem_term(n.lower()) for n in _names(den) | _names(aff)}
                  - _verb(den) - _verb(aff))  # nor only the verb: "lived abroad" / "in Asia"
        if den.terms and (covers(den, aff, lexicon)
                          or (shared and sim is not None and sim >= NEGATION_SIMILARITY)):
            return "conflict", f"{a.subject}: '{aff.predicate}' denied"
        return None, ""
    if a.change == b.change and opposite_claims(a, b, lexicon):
        return "conflict", f"{a.subject}: '{a.predicate}' vs '{b.predicate}' (antonyms)"
    if opposite_direction(a.predicate, b.predicate):
        return "conflict", f"{a.subject}: '{a.predicate}' vs '{b.predicate}' (direction)"
    if ((a.terms ^ b.terms) & PRIVATIVE or a.past != b.past
            or measures_differ(a.predicate, b.predicate)):
        return None, ""  # "a former smoker" / "a smoker", "was married", "5 miles" / "5 km"
    names_differ = bool(_names(a)) and bool(_names(b)) and not _nested(_names(a), _names(b))
    numbers_differ = a.numbers != b.numbers
    lexically_same = same_claim(a, b, lexicon)
    same_attribute = attr_a is not None and attr_a == attr_b
    bounds = bounds_disagree(a.predicate, b.predicate) if numbers_differ else None
    if a.positive and same_attribute:
        if bounds:
            return "conflict", f"{attr_a} of {a.subject}: '{a.predicate}' vs '{b.predicate}'"
        if numbers_differ and (bounded(a.predicate) or bounded(b.predicate)):
            return None, ""  # "is between 30 and 40" / "is 30": a range holds its value
        value_a, value_b = _values(a, attr_a), _values(b, attr_b)
        agree = (not numbers_differ and not names_differ and "end" not in (a.change, b.change)
                 and a.irrealis == b.irrealis)
        if agree and (value_a == value_b or _contains(value_a, value_b)
                      or _nested(_names(a), _names(b)) or close):
            return "same", f"same {attr_a} of {a.subject}"
        if not numbers_differ and a.numbers:
            return None, ""  # same number, other words: not a changed value
        shared = (value_a - _head(a)) & (value_b - _head(b))  # values share a word: not sure
        if (numbers_differ or names_differ or (not shared and (
                sim is None or sim < SAME_VALUE))):
            return "conflict", f"{attr_a} of {a.subject}: '{a.predicate}' vs '{b.predicate}'"
        return None, ""  # close but not close enough to be one value: not sure
    if numbers_differ and a.numbers and b.numbers and a.positive:
        if a.terms == b.terms and a.terms and (bounds or not (bounded(a.predicate)
                                                              or bounded(b.predicate))):
            return "conflict", f"{a.subject}: '{a.predicate}' vs '{b.predicate}' (numbers)"
        return None, ""
    if a.irrealis and not b.irrealis and _fulfils(a, b, lexicon):
        return "conflict", f"{a.subject}: '{a.predicate}' overtaken by '{b.predicate}'"
    if numbers_differ or names_differ or a.irrealis != b.irrealis:
        return None, ""  # disagreement (or an intention against a fact): never merged
    if lexically_same and a.change == b.change:
        return "same", f"same claim about {a.subject} (same senses)"
    if a.terms == b.terms and (a.terms or a.numbers) and a.change == b.change:
        return "same", f"same claim about {a.subject}"
    if a.numbers and close:
        return "same", f"same claim about {a.subject}"  # "weighs 92 kg" / "weight is 92 kg"
    named = (bool(_names(a)) and _names(a) == _names(b) and sim is not None and sim >= SAME_VALUE
             and a.change == b.change)  # "rents a flat in Leeds" / "bought a flat in Leeds"
    if (a.numbers and a.terms & b.terms and a.change == b.change and sentence is not None
            and sentence >= NUMBER_PARAPHRASE and not minimal_pair(a.terms, b.terms)):
        return "same", f"same numbers about {a.subject}, sentence cosine {sentence:.3f}"
    if attr_a is not None and attr_b is not None and attr_a != attr_b:
        return None, ""  # two different single-valued attributes
    nested = _contains(a.terms, b.terms) or nested_claim(a, b, lexicon)
    if attr_a != attr_b and not (named or nested):
        return None, ""  # a single-valued attribute and a predicate of none
    if nested or close or named:
        return "same", f"same claim about {a.subject}"
    if _paraphrase(a, b, sim, sentence):
        return "same", f"paraphrase about {a.subject}, sentence cosine {sentence:.3f}"
    return None, ""


def _conjoined_conflict(rows_i: Sequence[int], rows_j: Sequence[int], swap: bool,
                        read: Sequence[tuple[int, Claim]], found: Sequence[str | None],
                        pred_sims: np.ndarray | None,
                        lexicon: Lexicon | None) -> tuple[str, str] | None:
    """A conflict between any verb phrase of one fact and any of the other ("Amara works as a
    pharmacist" / "Amara quit her pharmacy job and now teaches yoga"), or ``None``. Rows index
    ``read`` (every claim read) and ``found`` (their attributes); ``swap`` puts the second
    fact first (it is the older)."""
    for r in rows_i:
        for q in rows_j:
            if r == rows_i[0] and q == rows_j[0]:
                continue  # the first verb phrases: already compared
            if not read[r][1].terms & read[q][1].terms and (found[r] is None
                                                            or found[r] != found[q]):
                continue  # nothing shared, no common attribute: nothing to contradict
            x, y = (q, r) if swap else (r, q)
            sim = float(pred_sims[x, y]) if pred_sims is not None else None
            relation, why = relate(read[x][1], read[y][1], found[x], found[y], sim, None,
                                   lexicon)
            if relation == "conflict":
                return relation, why
    return None


_COORDINATION = re.compile(r"\bbut\b|;")


def _same_phrases(rows_i: Sequence[int], rows_j: Sequence[int],
                  read: Sequence[tuple[int, Claim]], found: Sequence[str | None],
                  pred_sims: np.ndarray | None, lexicon: Lexicon | None,
                  text_i: str, text_j: str) -> bool:
    """Whether two facts whose first verb phrases say the same also agree beyond them: as many
    contrasts ("but", ";"), and each further verb phrase the same as the other's in turn. A
    merge keeps one text, so a fact that says more must not be merged into one that says less
    ("works at a bank" / "works at a bank and runs a blog")."""
    if len(rows_i) != len(rows_j) or (len(_COORDINATION.findall(text_i))
                                      != len(_COORDINATION.findall(text_j))):
        return False
    for x, y in zip(rows_i, rows_j, strict=True):
        sim = float(pred_sims[x, y]) if pred_sims is not None else None
        if relate(read[x][1], read[y][1], found[x], found[y], sim, None, lexicon)[0] != "same":
            return False
    return True


def _paraphrase(a: Claim, b: Claim, sim: float | None, sentence: float | None) -> bool:
    """Whole sentences at least :data:`SENTENCE_DUPLICATE` apart, predicates at least
    :data:`PARAPHRASE_PREDICATE`, and not a minimal pair (where antonyms hide)."""
    return (sentence is not None and sentence >= SENTENCE_DUPLICATE and sim is not None
            and sim >= PARAPHRASE_PREDICATE and not minimal_pair(a.terms, b.terms))


def _verb(claim: Claim) -> frozenset[str]:
    """The first content word of the predicate as a term, past auxiliaries ("has lived
    abroad" -> ``{"liv"}``)."""
    words = content_words(claim.predicate)
    return frozenset(words[:1])


def _head(claim: Claim) -> frozenset[str]:
    """The predicate's head verb as a term ("works as a nurse" -> ``{"work"}``)."""
    return terms_of(claim.predicate.split(" ", 1)[0])


def _values(claim: Claim, attribute: str | None) -> frozenset[str]:
    owned = possessive(claim.predicate) if attribute and attribute.startswith("'s ") else None
    return terms_of(owned[1]) if owned is not None else claim.terms


def reconcile_facts(
    facts: Sequence[Fact],
    vectors: np.ndarray | None,
    *,
    attributes: AttributeIndex | None = None,
    lexicon: Lexicon | None = None,
    duplicate_threshold: float = DUPLICATE_THRESHOLD,
) -> ReconcileDecision:
    """Find duplicate groups and contradicting pairs in ``facts``.

    Args:
        facts: the pool (any order).
        vectors: float32 array of shape ``(len(facts), dim)``, L2-normalised rows (the facts'
            embeddings), or ``None``.
        attributes: the prototype index whose embedder also embeds the predicates; ``None``
            decides by terms alone (no attribute, no predicate similarity).
        lexicon: WordNet relations between the words two facts do not share
            (:mod:`.lexical`); ``None`` compares words by their stems only.
        duplicate_threshold: whole-sentence cosine for duplicates that do not read as claims.

    Returns:
        The decision; ids are the facts' ids.

    Raises:
        ValueError: ``vectors`` does not have one row per fact.
    """
    n = len(facts)
    if vectors is not None and len(vectors) != n:
        raise ValueError(f"got {len(vectors)} vectors for {n} facts")
    claims: list[Claim | None] = [parse_claim(f.content, f.subject) for f in facts]
    parsed = [k for k in range(n) if claims[k] is not None]
    more = {k: conjoined_claims(facts[k].content, facts[k].subject) for k in parsed}
    # every claim read: the first verb phrase of each fact, then the further ones
    read: list[tuple[int, Claim]] = [(k, claims[k]) for k in parsed]  # type: ignore[misc]
    read += [(k, c) for k in parsed for c in more[k]]
    predicates = [c.predicate for _, c in read]
    pred_vectors = attributes.embed(predicates) if attributes is not None and read else None
    found = attributes_of(attributes, predicates, pred_vectors)
    attr: dict[int, str | None] = dict(zip(parsed, found[:len(parsed)], strict=True))
    row = {k: r for r, k in enumerate(parsed)}
    extra: dict[int, list[int]] = {}
    for r in range(len(parsed), len(read)):
        extra.setdefault(read[r][0], []).append(r)
    pred_sims = pred_vectors @ pred_vectors.T if pred_vectors is not None else None
    details = [_details(f.content) for f in facts]
    sims = vectors @ vectors.T if vectors is not None and n else None
    same: list[tuple[int, int, str]] = []
    conflicts: list[tuple[int, int, str]] = []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = claims[i], claims[j]
            if facts[j].created_at < facts[i].created_at:
                a, b = b, a  # older first: a newer outcome settles an older intention
            if a is not None and b is not None:
                sim = float(pred_sims[row[i], row[j]]) if pred_sims is not None else None
                sentence = float(sims[i, j]) if sims is not None else None
                relation, why = relate(a, b, attr[i], attr[j], sim, sentence, lexicon)
                if relation != "conflict" and (extra.get(i) or extra.get(j)):
                    relation, why = _conjoined_conflict(
                        (row[i], *extra.get(i, [])), (row[j], *extra.get(j, [])),
                        facts[j].created_at < facts[i].created_at, read, found, pred_sims,
                        lexicon) or (relation, why)
                if relation == "same" and not _same_phrases(
                        extra.get(i, []), extra.get(j, []), read, found, pred_sims, lexicon,
                        facts[i].content, facts[j].content):
                    relation = None  # one says more ("teaches piano and now sings in a band")
                if relation == "conflict":
                    conflicts.append((i, j, why))
                elif relation == "same":
                    same.append((i, j, why + (f", predicate cosine {sim:.3f}" if sim else "")))
            elif (
                sims is not None
                and not (_VAGUE.match(facts[i].content) or _VAGUE.match(facts[j].content))
                and sims[i, j] >= duplicate_threshold
                and details[i] == details[j]
            ):
                same.append((i, j, f"cosine {sims[i, j]:.3f}, same numbers, names and negation"))
    return ReconcileDecision(
        duplicates=_groups(facts, same, conflicts,
                           [terms_of(f.content) | numbers_in(f.content) for f in facts]),
        contradictions=[
            Contradiction(first_id=facts[i].id, second_id=facts[j].id, rationale=why)
            for i, j, why in conflicts
        ],
    )


def _groups(facts: Sequence[Fact], same: list[tuple[int, int, str]],
            conflicts: list[tuple[int, int, str]],
            words: Sequence[frozenset[str]]) -> list[DuplicateGroup]:
    """Connected components of the duplicate relation, minus those holding a conflict. The
    merged text is a member whose ``words`` (stemmed content words and numbers) hold every
    other member's, so no detail is lost ("has a cat and a dog" over "has a cat"); among
    those, or when none does, the most trustworthy (:func:`_rank`)."""
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
        groups.append(DuplicateGroup(
            fact_ids=[facts[k].id for k in idx],
            merged_text=facts[best].content,
            rationale="; ".join(dict.fromkeys(reasons.get(key, []))),
        ))
    return groups

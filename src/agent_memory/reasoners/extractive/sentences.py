"""Sentence splitting, content terms and salience scores for the extractive reasoner.

Salience is centroid-based (Radev et al., "Centroid-based summarization of multiple documents",
2004, the MEAD system): each sentence is a TF-IDF vector over its content terms (Salton and
Buckley, "Term-weighting approaches in automatic text retrieval", 1988; every sentence counts as
a document), and a sentence scores its cosine similarity to the centroid of all of them, so
sentences about what the conversation is mostly about score high; :func:`salience` gives the
bonuses and the filler rule.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence


def word_set(words: str) -> frozenset[str]:
    """A frozenset of the whitespace-separated ``words`` (keeps long word lists readable)."""
    return frozenset(words.split())


_SPLIT = re.compile(
    r"(?<=[.!?])[\"'\u201d)\]]*\s+"
    r"|(?<=[\u2600-\u27bf\U0001f300-\U0001faff])\ufe0f?\s+(?=[A-Z])"  # an emoji ends one too
    r"|\s*\n+\s*"
)
_TITLES = word_set("mr mrs ms dr prof st mt jr sr")
_ABBREVIATIONS = word_set("vs etc e.g i.e approx dept est no fig a.m p.m")
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d+(?:[.,:]\d+)*")
_CAPITALIZED = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")
_NUMBER = re.compile(r"\d")
_REACTION = re.compile(
    r"^(?:wow|aw+|congrats|congratulations|thanks|thank you|omg|oh)\b"
    r"|\b(?:sounds?|looks?|seems?|is|was|'s)\s+(?:so\s+|really\s+|super\s+|very\s+)?"
    r"(?:great|awesome|amazing|cool|fun|nice|lovely|wonderful|fantastic|incredible|beautiful|"
    r"gorgeous|stunning|sweet|cute|inspiring)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|myself|we|our|us)\b", re.IGNORECASE
)

STOPWORDS = word_set(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
    having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
    i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor
    not of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves
    then there there's these they they'd they'll they're they've this those through to too under
    until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where
    where's which while who who's whom why why's with won't would wouldn't you you'd you'll
    you're you've your yours yourself yourselves will just also really still even ever much many
    one ones thing things something anything everything stuff lot lots way get got gets getting
    go going gone make made let like well back now new know think see say said would may might
    must shall us been u ur im ive id its dont cant"""
)
"""English function words and pronouns (lower-cased); never content terms."""

FILLER = word_set(
    """hi hey hello hiya thanks thank thx bye goodbye yeah yes yep yup nope no ok okay sure wow
    whoa cool awesome great amazing nice lovely wonderful fantastic incredible good glad happy
    haha lol omg aw aww awww oh ah hmm totally definitely absolutely agree exactly right true
    congrats congratulations sounds sound looks look seems seem feel feels pretty super so
    kinda gonna wanna gotta soon later talk catch chat care luck fun cute sweet
    beautiful appreciate proud inspiring"""
)
"""Conversational filler: greetings, thanks, reactions and intensifiers; not topical."""


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences.

    A sentence ends at ``.``, ``!`` or ``?`` (closing quotes/brackets included) followed by
    whitespace, at an emoji followed by a capital, or at a line break. Titles ("Dr.") and
    initials ("J.") never end a sentence, abbreviations ("p.m.", "e.g.") only before a capital;
    decimals and times ("3.5", "1:56") are never split.

    Returns:
        The non-empty sentences, stripped, in order.
    """
    pieces = [p.strip() for p in _SPLIT.split(text) if p and p.strip()]
    merged: list[str] = []
    for piece in pieces:
        if merged and _ends_with_abbreviation(merged[-1], piece):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


def _ends_with_abbreviation(sentence: str, following: str) -> bool:
    """True when the period ending ``sentence`` belongs to a title ("Dr."), an initial ("J.")
    or, when ``following`` goes on in lower case, an abbreviation ("p.m. today")."""
    match = _LAST_WORD.search(sentence)
    if not match:
        return False
    word = match.group(1).lower()
    if word in _TITLES or (len(word) == 1 and word.isalpha() and word != "i"):
        return True
    return word in _ABBREVIATIONS and not following[:1].isupper()


def _stem(word: str) -> str:
    """A light plural/possessive stripper ("kids" -> "kid", "parties" -> "party")."""
    if word.endswith(("'s", "\u2019s")):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lower-cased word and number tokens of ``text`` (apostrophes normalised to ``'``)."""
    return [w.replace("\u2019", "'").lower() for w in _WORD.findall(text)]


def content_terms(text: str, exclude: Iterable[str] = ()) -> list[str]:
    """Stemmed content terms: words that are neither stopwords nor filler nor in ``exclude``.

    Args:
        text: a sentence.
        exclude: lower-cased words to drop too (e.g. the speakers' names).
    """
    excluded = set(exclude)
    return [_stem(w) for w in words(text)
            if w not in STOPWORDS and w not in FILLER and w not in excluded and len(w) >= 2]


def is_filler(text: str, terms: Sequence[str]) -> bool:
    """True for greetings, thanks and bare reactions: fewer than two content terms that are
    words (numbers alone do not make "I 100% agree" informative)."""
    return sum(1 for t in terms if not t[0].isdigit()) < 2


def is_reaction(text: str) -> bool:
    """True for praise and reactions that carry a topic word ("That race sounds great!")."""
    return _REACTION.search(text) is not None


def entities(text: str, exclude: Iterable[str] = ()) -> list[str]:
    """Capitalised word runs not at the start of the sentence ("New York", "Melanie").

    ``exclude`` holds lower-cased names to ignore (speakers addressing each other).
    """
    excluded = set(exclude) | STOPWORDS
    start = len(text) - len(text.lstrip(" \"'(\u201c"))  # the first word's capital says nothing
    return [m.group(0) for m in _CAPITALIZED.finditer(text)
            if m.start() != start and m.group(0).lower() not in excluded]


def salience(
    sentences: Sequence[str],
    terms: Sequence[Sequence[str]] | None = None,
    names: Iterable[str] = (),
) -> list[float]:
    """Score each sentence's salience within the group (higher is more summary-worthy).

    score = cos(tfidf(sentence), centroid) x min(1, n_terms / 4)
            + 0.05 per number (at most 0.10) + 0.05 per named entity (at most 0.15)
            + 0.10 for a first-person disclosure; x 0.6 for a question;
            x 0.5 for a reaction (:func:`is_reaction`);
            -1 for filler (see :func:`is_filler`).

    Args:
        sentences: the sentences competing for a place in a summary.
        terms: their :func:`content_terms`, when already computed.
        names: lower-cased speaker names, not counted as entities or terms.

    Returns:
        One score per sentence, in input order; filler scores below 0, others in [0, ~1.4].
    """
    excluded = {n.lower() for n in names}
    if terms is None:
        terms = [content_terms(s, excluded) for s in sentences]
    n = len(sentences)
    if n == 0:
        return []
    document_frequency = Counter(t for sentence_terms in terms for t in set(sentence_terms))
    idf = {t: math.log((1 + n) / (1 + df)) + 1.0 for t, df in document_frequency.items()}
    vectors: list[dict[str, float]] = []
    centroid: Counter[str] = Counter()
    for sentence_terms in terms:
        vector = {t: c * idf[t] for t, c in Counter(sentence_terms).items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        vector = {t: v / norm for t, v in vector.items()}
        vectors.append(vector)
        centroid.update(vector)
    centroid_norm = math.sqrt(sum(v * v for v in centroid.values())) or 1.0
    scores = []
    for sentence, sentence_terms, vector in zip(sentences, terms, vectors, strict=True):
        if is_filler(sentence, sentence_terms):
            scores.append(-1.0)
            continue
        cosine = sum(v * centroid[t] for t, v in vector.items()) / centroid_norm
        score = cosine * min(1.0, len(sentence_terms) / 4)
        score += min(0.10, 0.05 * len(_NUMBER.findall(sentence)))
        score += min(0.15, 0.05 * len(entities(sentence, excluded)))
        if _FIRST_PERSON.search(sentence):
            score += 0.10
        if sentence.rstrip().endswith("?"):
            score *= 0.6
        if is_reaction(sentence):
            score *= 0.5
        scores.append(score)
    return scores


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard overlap of two term collections (0 when both are empty)."""
    set_a, set_b = set(a), set(b)
    union = set_a | set_b
    return len(set_a & set_b) / len(union) if union else 0.0

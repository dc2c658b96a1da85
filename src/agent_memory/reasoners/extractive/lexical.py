"""Lexical relations between two words, from WordNet: synonymy, entailment, antonymy.

Sentence embeddings place "owns a motorbike" near "owns a motorcycle" but also near "owns a
bicycle"; they cannot tell that a puppy is a dog, that Tokyo is in Japan or that full-time is
the opposite of part-time. The offline reconciler (:mod:`.reconcile`) asks this module about
the one or two words where two facts differ:

- :meth:`Lexicon.same` -- the words share a sense, or one is derived from the other
  ("allergic" / "allergy", "writer" / "author");
- :meth:`Lexicon.entails` -- a sense of the specific word reaches a sense of the general one
  through hypernyms, instance hypernyms or part holonyms ("puppy" -> "dog", "brother" ->
  "sibling", "Tokyo" -> "Japan"), so denying the general word denies the specific one;
- :meth:`Lexicon.opposite` -- the words are WordNet antonyms, directly or through the head
  adjective of a satellite ("full-time" / "part-time", "employed" / "unemployed").

On top of them, claims (:mod:`.claims`) are compared word by word where they differ:
:func:`covers` (a denial of the general word covers the specific one), :func:`same_claim` and
:func:`nested_claim` (duplicates by sense), :func:`opposite_claims` (a one-word antonym
difference).

Only the :data:`SENSES` most frequent senses of each word are consulted (WordNet lists senses
by frequency in its tagged corpus), so rare senses do not make unrelated words related
("bar" the counter / "bar" the profession). Lexical relations as evidence in recognising
textual entailment: Dagan, Roth, Sammons and Zanzotto, *Recognizing Textual Entailment*
(Morgan & Claypool, 2013), ch. 4.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import pairwise

from .claims import PRIVATIVE, Claim, content_words, stem_term
from .wordnet import Synset, WordNet

SENSES = 2
"""Senses per word (most frequent first) that take part in any relation."""

DEPTH = 6
"""Most hypernym / holonym steps from the specific word to the general one."""

_UP = frozenset({"@", "@i", "#p"})
"""Pointers that lead to a more general concept: hypernym, instance hypernym, part holonym."""


class Lexicon:
    """Word relations read from a :class:`~.wordnet.WordNet` database.

    Args:
        wordnet: the database.
        senses: senses per word consulted (:data:`SENSES`).
        depth: longest entailment chain (:data:`DEPTH`).

    Words are given in any inflection ("puppies", "allergic"); multi-word expressions with
    ``_``, ``-`` or spaces ("full-time").
    """

    def __init__(self, wordnet: WordNet, senses: int = SENSES, depth: int = DEPTH) -> None:
        self.wordnet = wordnet
        self.senses = senses
        self.depth = depth
        self._synsets = lru_cache(maxsize=65536)(self._find)
        self._general = lru_cache(maxsize=65536)(self._closure)
        self._forms = lru_cache(maxsize=65536)(self._base_forms)  # type: ignore[method-assign]
        self._firsts = lru_cache(maxsize=65536)(self._first_senses)  # type: ignore[method-assign]
        self.adjective = lru_cache(maxsize=65536)(self._adjective)  # cached :meth:`_adjective`

    def _find(self, word: str) -> tuple[Synset, ...]:
        word = word.lower().replace(" ", "_")
        out: list[Synset] = []
        for pos in ("n", "v", "a"):
            found = self.wordnet.senses(word, pos) or self.wordnet.senses(
                word.replace("-", "_"), pos)
            out.extend(found[: self.senses])
        return tuple(out)

    def _closure(self, word: str) -> frozenset[tuple[str, int]]:
        """Keys of the synsets ``word``'s senses reach upwards within :attr:`depth` steps."""
        seen: set[tuple[str, int]] = set()
        frontier = [s.key for s in self._synsets(word)]
        for _ in range(self.depth):
            step = []
            for key in frontier:
                for pointer in self.wordnet.synset(*key).pointers:
                    if pointer.symbol in _UP and pointer.target not in seen:
                        seen.add(pointer.target)
                        step.append(pointer.target)
            frontier = step
        return frozenset(seen)

    def _base_forms(self, word: str) -> frozenset[str]:
        """The base forms of ``word`` in the index, over nouns, verbs and adjectives."""
        word = word.lower().replace(" ", "_")
        return frozenset(f for pos in ("n", "v", "a") for f in self.wordnet.lemmas(word, pos))

    def _first_senses(self, word: str) -> frozenset[tuple[str, int]]:
        """Keys of ``word``'s most frequent sense per part of speech."""
        word = word.lower().replace(" ", "_")
        return frozenset(found[0].key for pos in ("n", "v", "a")
                         if (found := self.wordnet.senses(word, pos)))

    def _word_pointer(self, synsets: Iterable[Synset], forms: frozenset[str], symbol: str,
                      targets: frozenset[str]) -> bool:
        """Whether a ``symbol`` pointer leads from one of ``forms`` in ``synsets`` to one of
        ``targets``. Derivation and antonymy are pointers between words, not synsets
        (wndb(5WN)): the synset {bicycle, bike, cycle} derives "bike", not "motorcycle"."""
        for synset in synsets:
            for pointer in synset.pointers:
                if pointer.symbol != symbol:
                    continue
                if pointer.source_word and synset.words[pointer.source_word - 1] not in forms:
                    continue
                target = self.wordnet.synset(*pointer.target)
                words = ([target.words[pointer.target_word - 1]] if pointer.target_word
                         else target.words)
                if targets & set(words):
                    return True
        return False

    def same(self, a: str, b: str) -> bool:
        """Whether the most frequent sense of ``a`` is that of ``b`` ("writer" / "author";
        not "nurse" / "nanny", whose shared sense is the second of "nurse"), or one is derived
        from the other ("allergic" / "allergy")."""
        if a.lower() == b.lower():
            return True
        keys_a = {s.key for s in self._synsets(a)}
        keys_b = {s.key for s in self._synsets(b)}
        if keys_a & keys_b & self._firsts(a) & self._firsts(b):
            return True
        forms_a, forms_b = self._forms(a), self._forms(b)
        return (self._word_pointer(self._synsets(a), forms_a, "+", forms_b)
                or self._word_pointer(self._synsets(b), forms_b, "+", forms_a))

    def entails(self, specific: str, general: str) -> bool:
        """Whether a sense of ``specific`` is a kind, instance or part of a sense of
        ``general`` ("puppy" -> "dog", "Tokyo" -> "Japan")."""
        keys = {s.key for s in self._synsets(general)}
        return bool(keys) and bool(self._general(specific.lower()) & keys)

    def _adjective(self, word: str) -> bool:
        """Whether ``word`` is an adjective and no verb form (participles such as "moved" or
        "applied" are verbs, also where the database lacks its irregular-form lists)."""
        return (bool(self.wordnet.lemmas(word, "a")) and not self.wordnet.lemmas(word, "v")
                and not word.endswith(("ed", "ing")))

    def similar(self, a: str, b: str) -> bool:
        """Whether adjectives ``a`` and ``b`` share a head in WordNet's adjective clusters
        (satellites "similar to" one head: "big" / "huge", both near "large")."""
        synsets_a = tuple(s for s in self._synsets(a) if s.key[0] != "n")
        synsets_b = tuple(s for s in self._synsets(b) if s.key[0] != "n")
        heads_a = {s.key for s in synsets_a} | _similar(self.wordnet, synsets_a)
        heads_b = {s.key for s in synsets_b} | _similar(self.wordnet, synsets_b)
        return bool(heads_a & heads_b)

    def opposite(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are antonymous adjectives or verbs: a word-to-word antonym
        pointer, or one between the head adjectives the two words' satellites are similar to
        ("full-time" / "part-time"). Noun antonyms ("brother" / "sister", "day" / "night")
        name different things, not opposite states of one, so they do not count: "has a
        sister" and "has two brothers" hold together."""
        synsets_a = tuple(s for s in self._synsets(a) if s.key[0] != "n")
        synsets_b = tuple(s for s in self._synsets(b) if s.key[0] != "n")
        if self._word_pointer(synsets_a, self._forms(a), "!", self._forms(b)):
            return True
        heads_a = [self.wordnet.synset(*k) for k in _similar(self.wordnet, synsets_a)]
        heads_b = {s.key for s in synsets_b} | _similar(self.wordnet, synsets_b)
        return any(p.symbol == "!" and p.target in heads_b for h in heads_a for p in h.pointers)


def _similar(wordnet: WordNet, synsets: Iterable[Synset]) -> set[tuple[str, int]]:
    """Keys of the head adjectives the satellites among ``synsets`` are similar to."""
    return {p.target for s in synsets for p in s.pointers if p.symbol == "&"}


# -- claims compared word by word (used by :mod:`.reconcile`) ---------------------------------


def covers(general: Claim, specific: Claim, lexicon: Lexicon | None) -> bool:
    """Whether every content word of ``general`` is matched in ``specific``: the same term,
    or (with a lexicon) a word of the same sense or one that entails it ("puppy" covers
    "dog", "Tokyo" covers "Japan")."""
    if not general.terms:
        return False
    if general.terms <= specific.terms:
        return True
    if lexicon is None:
        return False
    return all(stem_term(w) in specific.terms or any(
        lexicon.same(v, w) or lexicon.entails(v, w) for v in specific.words)
        for w in general.words)


def same_claim(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether the words two claims do not share match one for one by sense (WordNet synonyms
    or derivations: "is a writer" / "is an author", "watches a film" / "watches a movie");
    entailment does not count, a hypernym says less ("owns a dog" / "owns an animal")."""
    if lexicon is None:
        return False
    verbs = {_change_verb(a), _change_verb(b)} if a.change == b.change else set()
    only_a = [w for w in a.words if stem_term(w) not in b.terms and w not in verbs]
    only_b = [w for w in b.words if stem_term(w) not in a.terms and w not in verbs]
    if not only_a or not only_b or not a.terms & b.terms and len(only_a) > 1:
        return False
    return (all(any(lexicon.same(x, y) for y in only_b) for x in only_a)
            and all(any(lexicon.same(x, y) for x in only_a) for y in only_b))


def _change_verb(claim: Claim) -> str:
    """The verb that marks an onset ("bought a motorbike" -> "bought"), or ``""`` (a
    cessation's predicate is already its object): two onsets compare what began, not how it
    is worded."""
    return claim.predicate.split(" ", 1)[0].lower() if claim.change == "begin" else ""


def nested_claim(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether every word of the claim with fewer terms is matched in the other by stem or
    sense ("her favourite writer is Tove Jansson" within "her favorite author is Tove Jansson,
    whom she reads"), with at least two terms shared and no privative modifier among the
    extra words."""
    if lexicon is None:
        return False
    small, large = (a, b) if len(a.terms) <= len(b.terms) else (b, a)
    if len(small.terms & large.terms) < 2 or (large.terms - small.terms) & PRIVATIVE:
        return False
    return all(stem_term(w) in large.terms or any(lexicon.same(w, v) for v in large.words)
               for w in small.words)


def opposite_claims(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether two claims differ in one word each (the rest shared, if any) and those words
    are antonyms ("is employed" / "is unemployed", "works full-time" / "works part-time")."""
    if lexicon is None or len(a.terms - b.terms) != 1 or len(b.terms - a.terms) != 1:
        return False
    only_a = _collocations(a, b.terms)
    only_b = _collocations(b, a.terms)
    return any(lexicon.opposite(x, y) for x in only_a for y in only_b)


def _collocations(claim: Claim, shared: frozenset[str]) -> list[str]:
    """The words of ``claim`` whose stems are not in ``shared``, each also joined to the
    shared word after it by a hyphen, as WordNet spells its collocations ("full time" ->
    "full-time", which is the antonym of "part-time")."""
    words = content_words(claim.predicate, stemmed=False)
    out = []
    for k, word in enumerate(words):
        if stem_term(word) in shared:
            continue
        out.append(word)
        if k + 1 < len(words) and stem_term(words[k + 1]) in shared:
            out.append(f"{word}-{words[k + 1]}")
    return out


def compound_differs(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether one predicate puts a noun modifier before a noun both share ("is the
    *assistant* manager" / "is the manager", "drinks *decaf* coffee" / "drinks coffee"): a
    noun compound names another kind of thing, where an adjective only describes it ("a
    *strict* vegetarian" is still a vegetarian). A word counts as a noun modifier when
    WordNet knows it as a noun and not as an adjective."""
    if lexicon is None:
        return False
    return _noun_modifier(a, b.terms, lexicon) or _noun_modifier(b, a.terms, lexicon)


def other_words(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether two claims differ in one word each, both adjectives to WordNet and not of one
    sense ("speaks *fluent* French" / "speaks *basic* French", "drives an *electric* car" /
    "a *diesel* car"): two modifiers of one thing are two values, however close their
    embeddings. ``False`` without a lexicon."""
    if lexicon is None or len(a.terms - b.terms) != 1 or len(b.terms - a.terms) != 1:
        return False
    only_a = [w for w in a.words if stem_term(w) not in b.terms]
    only_b = [w for w in b.words if stem_term(w) not in a.terms]
    if len(only_a) != 1 or len(only_b) != 1 or not a.terms & b.terms:
        return False
    x, y = only_a[0], only_b[0]
    return (lexicon.adjective(x) and lexicon.adjective(y) and not lexicon.same(x, y)
            and not lexicon.similar(x, y))


def other_referent(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether each claim has an adjective the other lacks, of no shared sense or cluster
    ("sold her *old* car" / "drives a *new* car"): the shared noun names two things, so a
    denial of one is not a denial of the other. ``False`` without a lexicon."""
    if lexicon is None:
        return False
    only_a = [w for w in a.words if stem_term(w) not in b.terms and lexicon.adjective(w)]
    only_b = [w for w in b.words if stem_term(w) not in a.terms and lexicon.adjective(w)]
    return any(not lexicon.same(x, y) and not lexicon.similar(x, y)
               for x in only_a for y in only_b)


def unmatched_adjective(a: Claim, b: Claim, lexicon: Lexicon | None) -> bool:
    """Whether ``a`` has an adjective that ``b`` does not carry ("a *new* flat" / "a flat"),
    so ``b`` may be about another thing. ``False`` without a lexicon."""
    return lexicon is not None and any(
        stem_term(w) not in b.terms and lexicon.adjective(w) for w in a.words)


def _noun_modifier(claim: Claim, shared: frozenset[str], lexicon: Lexicon) -> bool:
    """A word of ``claim`` outside ``shared``, written in lower case right before a word in
    ``shared``, that WordNet knows only as a noun."""
    words = claim.predicate.split()
    return any(
        word.isalpha() and word.islower() and stem_term(word) in claim.terms - shared
        and stem_term(after.lower().strip(",.")) in shared
        and lexicon.wordnet.lemmas(word, "n") and not lexicon.wordnet.lemmas(word, "a")
        and not lexicon.wordnet.lemmas(word, "v")
        for word, after in pairwise(words))


def open_lexicon(folder: str | None = None) -> Lexicon | None:
    """A :class:`Lexicon` over :func:`~.wordnet.find_wordnet`'s database, or ``None``.

    Raises:
        ConfigError: a folder was named but holds no WordNet database.
    """
    from .wordnet import find_wordnet

    wordnet = find_wordnet(folder)
    return Lexicon(wordnet) if wordnet is not None else None

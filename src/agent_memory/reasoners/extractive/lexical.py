"""Lexical relations between two words, from WordNet: synonymy, entailment, antonymy, glosses.

Sentence embeddings place "owns a motorbike" near "owns a bicycle" and cannot tell that a
puppy is a dog. :class:`Lexicon` reads these relations over the :data:`SENSES` most frequent
senses; :func:`word_relations` and :func:`gloss_relations` read them between the words where
two claims differ, as features of :mod:`.reconcile`. Dagan et al., *Recognizing Textual
Entailment* (Morgan & Claypool, 2013), ch. 4.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ..wordnet import Synset, WordNet
from .lexicon import STOP, WORD, stem, word_set

SENSES = 2
"""Senses per word (most frequent first) that take part in any relation."""

DEPTH = 6
"""Most hypernym / holonym steps from the specific word to the general one."""

PAIRS = 1 << 18
"""Word pairs (and words, for glosses) whose relations each :class:`Lexicon` remembers."""

KIN = 2
"""Most hypernym steps from each of two alternatives to their common kind ("son" -> "male
offspring" -> "offspring" <- "female offspring" <- "daughter")."""

_UP = frozenset({"@", "@i", "#p"})
"""Pointers that lead to a more general concept: hypernym, instance hypernym, part holonym."""


class Lexicon:
    """Word relations read from a :class:`~agent_memory.reasoners.wordnet.WordNet` database.

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
        self._kin = lru_cache(maxsize=65536)(self._parents)
        # a pool of facts asks about the same word pairs many times over
        for name in ("same", "similar", "entails", "opposite", "siblings", "gloss"):
            setattr(self, name, lru_cache(maxsize=PAIRS)(getattr(self, name)))

    def _find(self, word: str) -> tuple[Synset, ...]:
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
        return frozenset(f for pos in ("n", "v", "a") for f in self.wordnet.lemmas(word, pos))

    def _first_senses(self, word: str) -> frozenset[tuple[str, int]]:
        """Keys of ``word``'s most frequent sense per part of speech."""
        return frozenset(found[0].key for pos in ("n", "v", "a")
                         if (found := self.wordnet.senses(word, pos)))

    def _word_pointer(self, synsets: Iterable[Synset], forms: frozenset[str], symbol: str,
                      targets: frozenset[str]) -> bool:
        """Whether a ``symbol`` pointer leads from one of ``forms`` in ``synsets`` to one of
        ``targets``. Derivation and antonymy are pointers between words, not synsets
        (wndb(5WN)): the synset {bicycle, bike, cycle} derives "bike", not "motorcycle"."""
        for synset in synsets:
            for pointer in synset.pointers:
                if pointer.symbol != symbol or (
                        pointer.source_word and synset.words[pointer.source_word - 1] not in forms):
                    continue
                target = self.wordnet.synset(*pointer.target)
                words = ([target.words[pointer.target_word - 1]] if pointer.target_word
                         else target.words)
                if targets & set(words):
                    return True
        return False

    def gloss(self, word: str) -> tuple[frozenset[str], bool]:
        """Stemmed content words of the glosses of ``word``'s :attr:`senses` most frequent
        senses, and whether a gloss denies ("abstains", "no meat", "without"): world knowledge
        such as "teetotal" -> "abstinence from alcoholic beverages"."""
        text = " ".join(_EXAMPLE.sub("", s.gloss) for s in self._synsets(word)).lower()
        words = WORD.findall(text)
        return (frozenset(stem(w) for w in words if w not in STOP and len(w) > 2),
                bool(_DENIAL.intersection(words)))

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

    def _parents(self, word: str) -> frozenset[tuple[str, int]]:
        """Keys of the hypernyms up to :data:`KIN` steps above ``word``'s :attr:`senses` most
        frequent senses."""
        seen: set[tuple[str, int]] = set()
        frontier = [s.key for s in self._synsets(word)]
        for _ in range(KIN):
            frontier = [p.target for key in frontier for p in self.wordnet.synset(*key).pointers
                        if p.symbol in ("@", "@i")]
            seen.update(frontier)
        return frozenset(seen)

    def siblings(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are alternatives of one kind: senses with a common hypernym
        within :data:`KIN` steps of each, neither the same sense nor one a kind of the other
        ("son" / "daughter", "train" / "tram"). Restating a claim swaps a word for a synonym;
        swapping it for a sibling states another value."""
        if a.lower() == b.lower() or self.same(a, b) or self.entails(a, b) or self.entails(b, a):
            return False
        return bool(self._kin(a.lower()) & self._kin(b.lower()))

    def _heads(self, word: str) -> tuple[tuple[Synset, ...], set[tuple[str, int]]]:
        """``word``'s verb and adjective senses, and their keys with the heads they are
        similar to."""
        synsets = tuple(s for s in self._synsets(word) if s.key[0] != "n")
        return synsets, {s.key for s in synsets} | _similar(synsets)

    def similar(self, a: str, b: str) -> bool:
        """Whether adjectives ``a`` and ``b`` share a head in WordNet's adjective clusters
        (satellites "similar to" one head: "big" / "huge", both near "large")."""
        return bool(self._heads(a)[1] & self._heads(b)[1])

    def opposite(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are antonymous adjectives or verbs: a word-to-word antonym
        pointer, or one between the head adjectives the two words' satellites are similar to
        ("full-time" / "part-time"). Noun antonyms ("brother" / "sister", "day" / "night")
        name different things, not opposite states of one, so they do not count: "has a
        sister" and "has two brothers" hold together."""
        synsets_a, heads_a = self._heads(a)
        if self._word_pointer(synsets_a, self._forms(a), "!", self._forms(b)):
            return True
        heads_b = self._heads(b)[1]
        # a head adjective's antonym heads a cluster whose satellites oppose it too
        # ("married" / "divorced", a satellite of "unmarried"); either side may be the head
        return any(p.symbol == "!" and p.target in other
                   for mine, other in ((heads_a, heads_b), (heads_b, heads_a))
                   for k in mine for p in self.wordnet.synset(*k).pointers)


def _similar(synsets: Iterable[Synset]) -> set[tuple[str, int]]:
    """Keys of the head adjectives the satellites among ``synsets`` are similar to."""
    return {p.target for s in synsets for p in s.pointers if p.symbol == "&"}


WORDS = 4
"""Most differing words per side compared (the cost is their product)."""
_EXAMPLE = re.compile(r'"[^"]*"')
"""A usage example in a gloss (only the definition counts)."""
_DENIAL = word_set("no not without never abstains abstaining abstinence lacking free")


def _covers(terms: frozenset[str], word: str) -> bool:
    """Whether a stem of ``terms`` is ``word``'s stem or a prefix of 4+ letters of it (or the
    reverse): "alcohol" / "alcoholic"."""
    key = stem(word)
    return any(t == key or (min(len(t), len(key)) >= 4 and (t.startswith(key)
                                                            or key.startswith(t)))
               for t in terms)


def gloss_relations(a: Sequence[str], b: Sequence[str],
                    lexicon: Lexicon | None) -> tuple[float, float]:
    """``(cover, denial)``: the largest share of one side's differing words found in the
    glosses of the other side's differing words ("is teetotal" / "never drinks alcohol":
    "alcohol" in the gloss of "teetotal"), and whether a covering gloss denies. Zeros without
    a lexicon or differing words."""
    only_a = [w for w in dict.fromkeys(a) if w not in b][:WORDS]
    only_b = [w for w in dict.fromkeys(b) if w not in a][:WORDS]
    if lexicon is None or not only_a or not only_b:
        return 0.0, 0.0
    best, denial = 0.0, 0.0
    for source, target in ((only_a, only_b), (only_b, only_a)):
        glosses = [lexicon.gloss(w) for w in source]
        terms = frozenset().union(*(g[0] for g in glosses))
        cover = sum(_covers(terms, w) for w in target) / len(target)
        if cover > best:
            best, denial = cover, float(any(g[1] for g in glosses))
    return best, denial


def word_relations(a: Sequence[str], b: Sequence[str],
                   lexicon: Lexicon | None) -> tuple[int, int, int, int]:
    """``(same, entailed, opposite, siblings)``: how many of the words only in ``a`` have a
    word only in ``b`` of the same sense or adjective cluster (:meth:`Lexicon.same`,
    :meth:`Lexicon.similar`), in an entailment either way (:meth:`Lexicon.entails`),
    opposite (:meth:`Lexicon.opposite`), or an alternative of one kind
    (:meth:`Lexicon.siblings`). All zero without a lexicon. Words are compared as written
    (lower case)."""
    if lexicon is None:
        return 0, 0, 0, 0
    only_a = [w for w in dict.fromkeys(a) if w not in b][:WORDS]
    only_b = [w for w in dict.fromkeys(b) if w not in a][:WORDS]
    same = entailed = opposite = siblings = 0
    for x in only_a:
        same += any(lexicon.same(x, y) or lexicon.similar(x, y) for y in only_b)
        entailed += any(lexicon.entails(x, y) or lexicon.entails(y, x) for y in only_b)
        opposite += any(lexicon.opposite(x, y) for y in only_b)
        siblings += any(lexicon.siblings(x, y) for y in only_b)
    return same, entailed, opposite, siblings


def lexical_cover(a: Sequence[str], b: Sequence[str], lexicon: Lexicon | None) -> float:
    """The share of the words only in one side (both sides, :data:`WORDS` each) with a word
    only in the other of the same sense, adjective cluster or an entailment either way: 1
    when a restatement swapped related words only ("snowboards" / "snowboarder"), 0 without
    a lexicon or differing words."""
    only_a = [w for w in dict.fromkeys(a) if w not in b][:WORDS]
    only_b = [w for w in dict.fromkeys(b) if w not in a][:WORDS]
    if lexicon is None or not (only_a and only_b):
        return 0.0

    def related(x: str, y: str) -> bool:
        return (lexicon.same(x, y) or lexicon.similar(x, y) or lexicon.entails(x, y)
                or lexicon.entails(y, x))

    hits = sum(any(related(x, y) for y in only_b) for x in only_a)
    hits += sum(any(related(y, x) for x in only_a) for y in only_b)
    return hits / (len(only_a) + len(only_b))


def open_lexicon(folder: str | None = None) -> Lexicon | None:
    """A :class:`Lexicon` over the database :func:`~agent_memory.reasoners.wordnet.find_wordnet`
    finds, or ``None``.

    Raises:
        ConfigError: a folder was named but holds no WordNet database.
    """
    from ..wordnet import find_wordnet

    wordnet = find_wordnet(folder)
    return Lexicon(wordnet) if wordnet is not None else None

"""Structural contrasts between two predicates that embeddings do not see.

Sentence embeddings place antonyms and swapped arguments close together ("owns his apartment"
/ "rents his apartment" 0.848, "prefers tea over coffee" / "prefers coffee over tea" 0.995 with
all-MiniLM-L6-v2), so the reconciler (:mod:`.reconcile`) reads the structure of the two
predicates before it trusts their cosine:

- a **minimal pair** differs in exactly one content word on each side with the rest shared:
  the one place where an antonym ("owns" / "rents", "full time" / "part time") hides, so a
  minimal pair is merged only by the stricter predicate threshold, never by sentence cosine;
- a **swapped comparison** has the same content words in another order around a comparative
  ("over", "than", "rather than", "instead of", "to"): the arguments changed roles;
- **different counts of one thing**: the same head verb and the same counted noun with another
  number ("has two pets" / "has three pets");
- **opposite directions of one change**: the same words around "up" / "down" ("rent went up" /
  "rent went down", "increased" / "decreased");
- **the same time** written two ways ("on 3 March" / "on March 3").

Contrast sets and minimal pairs as probes of what a model distinguishes: Gardner et al.,
"Evaluating Models' Local Decision Boundaries via Contrast Sets", Findings of EMNLP 2020.
"""

from __future__ import annotations

import re

from .claims import content_words, numbers_in, stem_term

_COMPARATIVE = re.compile(r"\b(?:over|than|rather than|instead of|to)\b", re.IGNORECASE)
_COUNTED = re.compile(r"(?:\$?\d[\d,]*(?:\.\d+)?|\b(?:no|zero|one|two|three|four|five|six|"
                      r"seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty)\b)"
                      r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?\s+"
                      r"(?:(?:more|new|young|old|little|small|big|adult)\s+)?([a-z]+)",
                      re.IGNORECASE)
_TIME_WORD = re.compile(r"[a-z]+|\d+")


def minimal_pair(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two term sets differ in exactly one term each, sharing at least one."""
    return len(a - b) == 1 and len(b - a) == 1 and bool(a & b)


def swapped_comparison(a: str, b: str) -> bool:
    """Whether two predicates with the same content words in another order compare them
    ("prefers tea over coffee" / "prefers coffee over tea")."""
    return bool(_COMPARATIVE.search(a) and _COMPARATIVE.search(b)) and (
        content_words(a) != content_words(b))


def _counts(predicate: str) -> dict[str, frozenset[str]]:
    """Counted noun (stemmed) -> its numbers, e.g. ``{"pet": {"2"}}`` for "has two pets"."""
    out: dict[str, set[str]] = {}
    for match in _COUNTED.finditer(predicate):
        number = numbers_in(match.group(0).rsplit(" ", 1)[0]) or frozenset({"0"})
        out.setdefault(stem_term(match.group(1).lower()), set()).update(number)
    return {noun: frozenset(numbers) for noun, numbers in out.items()}


def counts_differ(a: str, b: str) -> bool:
    """Whether two predicates with the same head verb count one noun differently ("has two
    pets, a dog and a cat" / "has three pets")."""
    head_a, head_b = a.split()[:1], b.split()[:1]
    if not head_a or not head_b or head_a[0].lower() != head_b[0].lower():
        return False
    counts_a, counts_b = _counts(a), _counts(b)
    return any(noun in counts_b and counts_a[noun] != counts_b[noun] for noun in counts_a)


_UP = frozenset({"up", "rose", "risen", "rises", "increased", "increases", "higher", "more"})
_DOWN = frozenset({"down", "fell", "fallen", "falls", "decreased", "decreases", "lower",
                   "less"})
"""Words of the direction of a change (a closed class)."""


def opposite_direction(a: str, b: str) -> bool:
    """Whether two predicates state one change in opposite directions: one has a word of
    :data:`_UP` and the other of :data:`_DOWN`, and their content words are otherwise the
    same ("rent went up" / "rent went down")."""
    words_a, words_b = set(_TIME_WORD.findall(a.lower())), set(_TIME_WORD.findall(b.lower()))
    if not ((words_a & _UP and words_b & _DOWN) or (words_a & _DOWN and words_b & _UP)):
        return False
    direction = _UP | _DOWN
    return set(content_words(a)) - direction == set(content_words(b)) - direction


def same_time(a: str, b: str) -> bool:
    """Whether two time expressions name the same time (same words and numbers, any order)."""
    return set(_TIME_WORD.findall(a.lower())) == set(_TIME_WORD.findall(b.lower()))

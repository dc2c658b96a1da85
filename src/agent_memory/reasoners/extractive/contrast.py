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
  "rent went down", "increased" / "decreased"), or opposite particles after a copula ("is in
  debt" / "is out of debt");
- **other units or ordinals**: "50,000 dollars" / "50,000 euros", "first floor" / "fifth floor"
  are not the same value;
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


_OPPOSITE_PARTICLES = (("in", "out"), ("on", "off"), ("for", "against"))
"""Prepositions of opposite state after a copula ("is in debt" / "is out of debt", "is on a
diet" / "is off his diet", "is for the plan" / "is against the plan")."""
_COPULA = re.compile(r"^(?:is|are|was|were|am)\s+(\w+)", re.IGNORECASE)


def opposite_direction(a: str, b: str) -> bool:
    """Whether two predicates state one change or state in opposite directions: one has a
    word of :data:`_UP` and the other of :data:`_DOWN` ("rent went up" / "rent went down"),
    or they open with a copula and opposite particles (:data:`_OPPOSITE_PARTICLES`), their
    content words otherwise the same."""
    words_a, words_b = set(_TIME_WORD.findall(a.lower())), set(_TIME_WORD.findall(b.lower()))
    direction = _UP | _DOWN
    if (words_a & _UP and words_b & _DOWN) or (words_a & _DOWN and words_b & _UP):
        return set(content_words(a)) - direction == set(content_words(b)) - direction
    first_a, first_b = _COPULA.match(a), _COPULA.match(b)
    if not first_a or not first_b:
        return False
    pair = {first_a.group(1).lower(), first_b.group(1).lower()}
    particles = {w for both in _OPPOSITE_PARTICLES for w in both}
    return (any(pair == {x, y} for x, y in _OPPOSITE_PARTICLES)
            and set(content_words(a)) - particles == set(content_words(b)) - particles)


_MEASURE_UNITS = {
    "currency": {"dollar": ("$", "dollar", "dollars", "usd", "bucks"),
                 "euro": ("€", "euro", "euros", "eur"), "pound": ("£", "pound", "pounds", "gbp"),
                 "yen": ("yen",), "rupee": ("rupee", "rupees")},
    "distance": {"mile": ("mile", "miles"),
                 "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
                 "m": ("metre", "metres", "meter", "meters"), "foot": ("foot", "feet"),
                 "yard": ("yard", "yards")},
    "weight": {"kg": ("kg", "kilo", "kilos", "kilogram", "kilograms"),
               "lb": ("lb", "lbs"), "stone": ("stone",)},
    "duration": {"minute": ("minute", "minutes", "min", "mins"), "hour": ("hour", "hours"),
                 "day": ("day", "days"), "week": ("week", "weeks"),
                 "month": ("month", "months"), "year": ("year", "years")},
}
"""Units of measure by dimension, each with its spellings (a closed class): "50,000 dollars"
and "50,000 euros" are other amounts, "5 miles" and "5 kilometres" other distances, while
"92 kg" and "92 kilograms" are one weight."""
_UNIT_OF = {spelling: (dim, unit) for dim, units in _MEASURE_UNITS.items()
            for unit, spellings in units.items() for spelling in spellings}
_MEASURE = re.compile(r"([$€£])\s?\d|\b\d[\d,.]*\s*(?:k\s+)?([a-z]+)|\b(?:one|two|three|four|"
                      r"five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|"
                      r"hundred|thousand)\s+([a-z]+)", re.IGNORECASE)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                      r"eleventh|twelfth|\d+(?:st|nd|rd|th))\b", re.IGNORECASE)


def _measures(predicate: str) -> dict[str, set[str]]:
    """Dimension -> the units a number in ``predicate`` is measured in."""
    out: dict[str, set[str]] = {}
    for match in _MEASURE.finditer(predicate):
        spelling = (match.group(1) or match.group(2) or match.group(3) or "").lower()
        if spelling in _UNIT_OF:
            dimension, unit = _UNIT_OF[spelling]
            out.setdefault(dimension, set()).add(unit)
    return out


def measures_differ(a: str, b: str) -> bool:
    """Whether two predicates measure in other units of one dimension ("50,000 dollars" /
    "50,000 euros", "5 miles" / "5 kilometres"), or name other ordinals ("first floor" /
    "fifth floor")."""
    units_a, units_b = _measures(a), _measures(b)
    if any(dim in units_b and not units_a[dim] & units_b[dim] for dim in units_a):
        return True
    ordinals_a = {m.lower() for m in _ORDINAL.findall(a)}
    ordinals_b = {m.lower() for m in _ORDINAL.findall(b)}
    return bool(ordinals_a) and bool(ordinals_b) and ordinals_a != ordinals_b


def same_time(a: str, b: str) -> bool:
    """Whether two time expressions name the same time (same words and numbers, any order)."""
    return set(_TIME_WORD.findall(a.lower())) == set(_TIME_WORD.findall(b.lower()))

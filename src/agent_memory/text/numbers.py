"""Numbers in English text, read as values: one reader for the reconciler and the grounding
check, so that "£900", "nine hundred pounds" and "900" are one number everywhere.

What is read:

- digits, with a currency sign, thousands commas, decimals and a scale suffix or word:
  ``"$3,000"`` -> 3000, ``"5k"`` -> 5000, ``"2.5 million"`` -> 2500000;
- number words composed the usual way (units, teens, tens, hyphenated tens, and the scales
  hundred / thousand / million / billion): ``"twenty-two"`` -> 22, ``"nine hundred"`` -> 900,
  ``"fifteen thousand"`` -> 15000, ``"a hundred"`` -> 100;
- multiplicatives and collective numerals: ``"once"`` -> 1, ``"twice"`` -> 2,
  ``"a dozen"`` -> 12, ``"a decade"`` -> 10 (years), ``"a century"`` -> 100 (years);
- hours as minutes, so that one duration reads as one number: ``"an hour"``,
  ``"60 minutes"`` -> 60; ``"half an hour"`` -> 30; ``"three quarters of an hour"`` -> 45;
  ``"22 hours"`` -> 1320.

Values are returned as canonical strings (``"3000"``, ``"2.5"``) so that sets of them compare.
"""

from __future__ import annotations

import re

UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
         "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
         "eighteen": 18, "nineteen": 19}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
ONCE = {"once": 1, "twice": 2, "thrice": 3}
COLLECTIVES = {"dozen": 12, "decade": 10, "century": 100}
"""Nouns that name a count: "a dozen eggs" is 12, "a decade" 10 years."""
NUMBER_WORDS = {**UNITS, **TENS}
"""Every simple cardinal word and its value (scales excluded)."""

_CARDINAL = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_SCALE = "|".join(SCALES)
_WORDS = re.compile(
    rf"\b(?:(?:an?\s+)?(?:{_SCALE})|{_CARDINAL})(?:[\s-]+(?:{_CARDINAL}|{_SCALE})"
    rf"|(?:(?<=hundred)|(?<=thousand))\s+and\s+(?:{_CARDINAL}))*\b", re.IGNORECASE)
_DIGITS = re.compile(r"[$£€]?(\d[\d,]*(?:\.\d+)?)(?:\s*(k|m|bn|thousand|million|billion)\b)?",
                     re.IGNORECASE)
_SUFFIX = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000, **SCALES}
_OTHER = re.compile(rf"\b(?:({'|'.join(ONCE)})|(?:an?\s+|(\w+)[\s-]+)?"
                    rf"({'|'.join(COLLECTIVES)})s?)\b", re.IGNORECASE)
_HOURS = re.compile(r"\b(?:(half\s+an?|(?:a|one)\s+quarter\s+of\s+an?|three[\s-]+quarters\s+of"
                    r"\s+an?)|(an?|\d+(?:\.\d+)?|[a-z]+(?:-[a-z]+)?))\s+hours?\b",
                    re.IGNORECASE)
_FRACTIONS = {"half": 30, "three": 45, "quarter": 15}  # "three quarters" before "quarter"


def word_value(words: str) -> int | None:
    """The value of a run of number words (``"nine hundred and five"`` -> 905,
    ``"twenty-two"`` -> 22, ``"a thousand"`` -> 1000), or ``None`` when it holds none.

    The standard reading: units and tens add up into a group, ``hundred`` multiplies the
    group, a larger scale multiplies the group and closes it into the total.
    """
    total = group = 0
    seen = False
    for word in re.split(r"[\s-]+", words.lower().strip()):
        if word in ("a", "an"):  # only before a scale: "a hundred"
            group = 1
        elif word in NUMBER_WORDS:
            group += NUMBER_WORDS[word]
            seen = True
        elif word == "hundred":
            group, seen = (group or 1) * 100, True
        elif word in SCALES:
            total, group, seen = total + (group or 1) * SCALES[word], 0, True
        elif word != "and":
            return None
    return total + group if seen else None


def _canonical(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _hours(match: re.Match[str]) -> str:
    fraction, count = match.group(1), match.group(2)
    if fraction:
        key = next(k for k in _FRACTIONS if k in fraction.lower().split())
        return f"{_FRACTIONS[key]} minutes"
    if count[0].isdigit():
        hours: float | None = float(count)
    else:
        hours = 1 if count.lower() in ("a", "an") else word_value(count)
    return match.group(0) if hours is None else f"{_canonical(hours * 60)} minutes"


def numbers_in(text: str) -> frozenset[str]:
    """The numbers of ``text`` as canonical strings (module docstring: what is read).

    Example: ``numbers_in("Ignatius pays nine hundred pounds for 1.5k sq ft")`` ->
    ``{"900", "1500"}``.
    """
    text = _HOURS.sub(_hours, text)
    out: set[str] = set()

    def digits(match: re.Match[str]) -> str:
        try:
            value = float(match.group(1).replace(",", ""))
        except ValueError:  # "1,,2" and the like: not a number
            return " "
        out.add(_canonical(value * _SUFFIX.get((match.group(2) or "").lower(), 1)))
        return " "

    def other(match: re.Match[str]) -> str:
        once, count, collective = match.groups()
        if once:
            out.add(str(ONCE[once.lower()]))
            return " "
        times = 1 if count is None else NUMBER_WORDS.get(count.lower())
        if times is None:  # "the last decade": the count word is not a number
            return match.group(0)
        out.add(str(times * COLLECTIVES[collective.lower()]))
        return " "

    # each number is read once: digits and collectives are taken out before number words
    text = _OTHER.sub(other, _DIGITS.sub(digits, text))
    for match in _WORDS.finditer(text):
        value = word_value(match.group(0))
        if value is not None:
            out.add(_canonical(value))
    return frozenset(out)

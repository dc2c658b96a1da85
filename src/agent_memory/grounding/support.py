"""How well a claim is supported by the text of its evidence turns, without a model.

- :func:`lexical_support`: the share of the claim's content words found in the evidence (a word
  is found when an evidence word shares its first :data:`PREFIX` letters, a light stemmer that
  matches "painted"/"painting", "kids"/"kid"); speaker names are left out.
- :func:`unsupported_numbers`: numbers of the claim absent from the evidence. "$28,000",
  "28000", "28k" and "28 thousand" are one number; number words up to twenty match digits; a
  date (``7 May 2023``, ``May 2023``, ``2023-05-07``, a year) is supported when it lies within
  :data:`DATE_WINDOW_DAYS` of an evidence turn's time (relative dates are resolved by the
  reasoner: "yesterday" becomes a date that is in no turn's text).
- :func:`unsupported_names`: capitalised words of the claim (names of people, places,
  organisations) found neither in the evidence text nor among the thread's speakers.
- :class:`SpeakerRoster`: who a claim is about, among the thread's speakers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from ..text.numbers import TENS, UNITS, numbers_in
from ..text.terms import STOP_WORDS

if TYPE_CHECKING:
    from ..models import Turn

PREFIX = 5
"""Letters two words must share to match (stemming by prefix)."""

DATE_WINDOW_DAYS = 400
"""A date in a claim is supported by a turn said at most this many days away ("last year")."""

CLOCK_WINDOW_MINUTES = 180
"""A clock time in a claim ("at 1:56 pm") is supported by a turn said within this many minutes
of it (the turns' own times, which a summary may state)."""
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_NUMBER = re.compile(r"[$£€]?\d[\d,]*(?:\.\d+)?\s*(?:k\b|thousand\b|million\b|m\b|%)?",
                     re.IGNORECASE)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+\d{4}\b"
    r"|\b" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b"
    r"|\b" + _MONTH + r",?\s+\d{4}\b"
    r"|\b(?:19|20)\d{2}s?\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = {**UNITS, **TENS, "hundred": 100}
_CALENDAR = frozenset((*_MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday",
                       "saturday", "sunday"))
_NOT_NAMES = frozenset((
    *_CALENDAR,
    "i", "i'm", "i've", "i'd", "i'll", "mr", "mrs", "ms", "dr", "the", "user",
)) | STOP_WORDS
CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019-]*")
"""A capitalised word: a name candidate (:func:`unsupported_names`)."""


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` that are not stop words, possessives stripped."""
    out = []
    for word in _WORD.findall(text.lower().replace("\u2019", "'")):
        word = word.removesuffix("'s")
        if word not in STOP_WORDS and len(word) > 1:
            out.append(word)
    return out


def stem(word: str) -> str:
    """The first :data:`PREFIX` letters of ``word`` once a plural or third-person ``-s`` is
    dropped (:func:`word_key`): a crude stem that matches inflections ("savings" / "saving",
    "wants" / "want", "billionaire" / "billionaires"; "saved" / "save" do not)."""
    return word_key(word)[:PREFIX]


def word_stems(words: Iterable[str]) -> set[str]:
    """The :func:`stem` of each word."""
    return {stem(w) for w in words}


_AGE_UNIT = re.compile(r"(?<=\d)[\s-]+(?:years?|yrs?)[\s-]+old\b", re.IGNORECASE)
"""The unit of an age after its number ("34 years old", "34-year-old")."""


def lexical_support(claim: str, evidence: str, names: Iterable[str] = ()) -> float:
    """Share (0-1) of the distinct content words of ``claim`` present in ``evidence``.

    Args:
        claim: the proposed record's text.
        evidence: the evidence turns' text, joined.
        names: speaker names, left out of the count (a fact names its speaker, which says
            nothing about its content; names are checked by :func:`unsupported_names`);
            ``user`` always is (insights say "the user"). Month and weekday names are left
            out too: dates are checked by :func:`unsupported_numbers` (a resolved "next
            month" says "May 2025", which no turn says), and so is "years old" after an age
            ("is 34 years old" for "I'm 34": the number is checked).

    Returns:
        1.0 for a claim without content words other than names.
    """
    excluded = word_stems(w for n in [*names, "user"] for w in content_words(n))
    claim = _AGE_UNIT.sub(" ", claim)
    words = {w for w in content_words(claim) if stem(w) not in excluded and w not in _CALENDAR}
    if not words:
        return 1.0
    found = word_stems(content_words(evidence))
    return sum(1 for w in words if stem(w) in found) / len(words)


def _numbers(text: str) -> set[str]:
    """Numbers of ``text``, normalised (``"$28,000"``, ``"28k"`` -> ``"28000"``)."""
    out = set()
    for match in _NUMBER.finditer(text):
        raw = match.group(0).lower().lstrip("$£€").replace(",", "").strip()
        scale = 1
        for suffix, factor in (("thousand", 1_000), ("million", 1_000_000), ("k", 1_000),
                               ("m", 1_000_000), ("%", 1)):
            if raw.endswith(suffix):
                raw, scale = raw[: -len(suffix)].strip(), factor
                break
        try:
            value = float(raw) * scale
        except ValueError:
            continue
        out.add(f"{value:g}" if value != int(value) else str(int(value)))
    for word in _WORD.findall(text.lower()):
        if word in _NUMBER_WORDS:
            out.add(str(_NUMBER_WORDS[word]))
    return out


_YEARS_AGO = re.compile(r"\b(?:an?\s+(?:couple\s+of\s+)?years?\s+ago|(\d+|[a-z]+)\s+years?\s+"
                        r"ago|(last|previous)\s+year)\b", re.IGNORECASE)
_YEARS_AHEAD = re.compile(r"\b(?:in\s+(?:about\s+|around\s+|roughly\s+)?(?:(\d+|[a-z]+)\s+"
                          r"years?|a\s+(?:couple\s+of\s+)?years?)|(next)\s+year)\b",
                          re.IGNORECASE)


def _years_back(evidence: str) -> set[int]:
    """How many years back the evidence's relative expressions reach ("three years ago" ->
    3, "last year" -> 1, "a couple of years ago" -> 2; ahead as negative counts: "in three
    years" -> -3, "next year" -> -1): a year that far from a turn's own year is supported
    (the reasoner resolved the expression)."""
    back: set[int] = set()
    for match in _YEARS_AGO.finditer(evidence):
        count, last = match.group(1), match.group(2)
        text = match.group(0).lower()
        if last:
            back.add(1)
        elif count is None:
            back.add(2 if "couple" in text else 1)
        elif count.isdigit():
            back.add(int(count))
        elif count.lower() in _NUMBER_WORDS:
            back.add(_NUMBER_WORDS[count.lower()])
    for match in _YEARS_AHEAD.finditer(evidence):  # "in three years" -> 3 years ahead
        count, following = match.group(1), match.group(2)
        if following:
            back.add(-1)
        elif count is None:
            back.add(-2 if "couple" in match.group(0).lower() else -1)
        elif count.isdigit():
            back.add(-int(count))
        elif count.lower() in _NUMBER_WORDS:
            back.add(-_NUMBER_WORDS[count.lower()])
    return back


def _clock_near(match: re.Match[str], moments: Sequence[datetime]) -> bool:
    """Whether a clock time ("1:56 pm", "13:56") is within :data:`CLOCK_WINDOW_MINUTES` of
    the time of day of one of ``moments``."""
    hour, minute = int(match.group(1)), int(match.group(2))
    half = (match.group(3) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    said = hour * 60 + minute
    return any(abs(t.hour * 60 + t.minute - said) <= CLOCK_WINDOW_MINUTES for t in moments)


def _parse_date(text: str) -> date | None:
    clean = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text.strip().rstrip("s")).replace(",", "")
    clean = re.sub(r"\bof\s+", "", clean).replace(".", "")
    for fmt in ("%Y-%m-%d", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y", "%B %Y", "%b %Y",
                "%Y"):
        try:
            return datetime.strptime(clean, fmt).date()
        except ValueError:
            continue
    return None


def unsupported_numbers(claim: str, evidence: str, when: Iterable[datetime] = ()) -> list[str]:
    """Numbers (and dates) in ``claim`` that ``evidence`` does not support.

    Args:
        claim: the proposed record's text.
        evidence: the evidence turns' text, joined.
        when: the evidence turns' times; a date in the claim within :data:`DATE_WINDOW_DAYS`
            of one of them, a year as many years before one's year as the evidence says
            ("three years ago": 2020 for a turn of 2023), and a clock time within
            :data:`CLOCK_WINDOW_MINUTES` of one's time of day, are supported.

    Returns:
        The unsupported numbers or dates as written in ``claim`` (empty when all are found).
    """
    moments = list(when)
    times = [t.date() for t in moments]
    missing: list[str] = []
    rest = claim
    for match in _CLOCK.finditer(claim):  # "at 1:56 pm": the time a turn was said
        if _clock_near(match, moments):
            rest = rest.replace(match.group(0), " ")
    back = _years_back(evidence)
    for match in _DATES.finditer(claim):
        found = _parse_date(match.group(0))
        near = found is not None and any(abs((found - t).days) <= DATE_WINDOW_DAYS
                                         for t in times)
        if found is not None and re.fullmatch(r"(?:19|20)\d{2}", match.group(0)):
            near = near or any(t.year - found.year in back for t in times)
        if near or match.group(0).lower() in evidence.lower():
            rest = rest.replace(match.group(0), " ")
    known = _numbers(evidence) | numbers_in(evidence)  # "nine hundred" supports "900"
    for match in _NUMBER.finditer(rest):
        value = _numbers(match.group(0))
        if value and not value <= known:
            missing.append(match.group(0).strip())
    for word in _WORD.findall(rest.lower()):
        if word in _NUMBER_WORDS and _NUMBER_WORDS[word] > 1 \
                and str(_NUMBER_WORDS[word]) not in known:
            missing.append(word)
    return missing


def unsupported_names(claim: str, evidence: str, speakers: Iterable[str] = ()) -> list[str]:
    """Capitalised words of ``claim`` found neither in ``evidence`` nor among ``speakers``.

    The first word of a sentence is not read as a name (its capital says nothing: "Running
    has helped ..."), nor a stop word, a month or a weekday; a word found in the evidence in
    any case is supported.
    """
    known = set(content_words(evidence)) | {w for s in speakers for w in content_words(s)}
    stems = word_stems(known)
    missing = []
    claim = claim.replace("\u2019", "'")
    for match in CAPITALISED.finditer(claim):
        before = claim[: match.start()].rstrip(" \"'(\u201c")
        if not before or before[-1] in ".!?:\n":
            continue
        word = match.group(0).lower().removesuffix("'s").strip("'-")
        if not word or word in _NOT_NAMES or word in known or stem(word) in stems:
            continue
        missing.append(match.group(0).removesuffix("'s"))
    return missing


_NEGATION = re.compile(r"\b(?:not|never|no|none|nothing|nobody|neither|nor|no\s+longer|"
                       r"without)\b|n['\u2019]t\b", re.IGNORECASE)
"""Negation cues (a closed class)."""


def unsupported_negation(claim: str, evidence: str) -> bool:
    """Whether ``claim`` denies something (a negation cue, :data:`_NEGATION`) while
    ``evidence`` denies nothing: "Priya has no student loans" is not supported by "I still
    have $12,000 of student loans", however many words they share."""
    return bool(_NEGATION.search(claim)) and not _NEGATION.search(evidence)


def word_key(word: str) -> str:
    """A whole word, lower case, a plural ``-s`` / ``-es`` dropped: the unit of
    :func:`~agent_memory.grounding.steps.tainted_words` ("millionaire" is not "million")."""
    word = word.lower()
    if word.endswith("es") and len(word) > 4 and word[-3] in "sxz":
        return word[:-2]
    return word[:-1] if word.endswith("s") and len(word) > 3 and not word.endswith("ss") else word


_USER_WORDS = re.compile(r"\b(?:the\s+)?(?:user|client|customer)\b", re.IGNORECASE)
"""How insights and prompts name the user-side speaker."""


@dataclass(frozen=True)
class ClaimSubject:
    """Whom a claim is about (:meth:`SpeakerRoster.about`).

    Attributes:
        names: the thread's speakers it is about (empty: none of them, or unknown).
        assistant: it is about an assistant-side speaker (one with only assistant turns in a
            thread that has user turns).
    """

    names: frozenset[str]
    assistant: bool = False


class SpeakerRoster:
    """The speakers of a thread by side: who says user turns, who only assistant turns.

    Args:
        turns: the thread's turns.
    """

    def __init__(self, turns: Iterable[Turn]) -> None:
        roles: dict[str, set[str]] = {}
        for turn in turns:
            if turn.speaker:
                roles.setdefault(turn.speaker, set()).add(turn.role.value)
        self.names = frozenset(roles)
        self.users = frozenset(s for s, r in roles.items() if "user" in r)
        self.assistants = frozenset(s for s, r in roles.items() if r == {"assistant"}) \
            if self.users else frozenset()
        self._first = {s: s.split()[0].lower() for s in roles if s.split()}

    def about(self, subject: str | None, text: str) -> ClaimSubject:
        """Whom a claim is about: its ``subject`` when it names a speaker (``user`` / ``the
        client``: the user-side speakers), else the first speaker named in ``text`` (a
        speaker's first name counts; "the user" names the user side).

        Returns:
            The speakers; empty names when the claim is about no speaker (a third person) or
            none can be told.
        """
        if subject and subject.strip():
            found = self._match(subject.strip())
            if found is not None:
                return found
            if subject.strip().split()[0].lower() not in ("he", "she", "they", "it", "i"):
                return ClaimSubject(frozenset())
        best: tuple[int, ClaimSubject] | None = None
        lowered = text.lower()
        for speaker, first in self._first.items():
            match = re.search(rf"\b{re.escape(first)}\b", lowered)
            if match and (best is None or match.start() < best[0]):
                best = (match.start(), self._side({speaker}))
        user = _USER_WORDS.search(text)
        if user and self.users and (best is None or user.start() < best[0]):
            best = (user.start(), ClaimSubject(self.users))
        return best[1] if best else ClaimSubject(frozenset())

    def _match(self, subject: str) -> ClaimSubject | None:
        clean = re.sub(r"^(?:the|my|our)\s+", "", subject.lower()).strip()
        if _USER_WORDS.fullmatch(clean) and self.users:
            return ClaimSubject(self.users)
        word = clean.split()[0] if clean.split() else ""
        hits = {s for s, first in self._first.items() if s.lower() == clean or first == word}
        return self._side(hits) if hits else None

    def _side(self, speakers: set[str]) -> ClaimSubject:
        return ClaimSubject(frozenset(speakers), bool(speakers) and speakers <= self.assistants)

"""Relative date resolution: "yesterday" said on 8 May 2023 becomes "on 7 May 2023".

Pure functions, no I/O, no third-party parser (dateparser is too slow for the ingest bar).
:func:`resolve_dates` scans a text once with one precompiled pattern and rewrites every
relative expression it can anchor to the reference date (the turn's ``created_at``) into an
absolute phrase, returning the rewritten text and the dates found.

Expressions and their rewrites (reference: Monday 8 May 2023)::

    yesterday / today / tomorrow          on 7 May 2023 / on 8 May 2023 / on 9 May 2023
    tonight, last night, this morning     on the night of 8 May 2023, on the night of 7 May ...
    last / this / next week               the week before / the week of / the week after 8 May 2023
    last / next weekend                   the weekend before / the weekend after 8 May 2023
    this weekend                          past tense: the weekend before 8 May 2023;
                                          otherwise: on the weekend of 13 May 2023
    last / this / next month              in April 2023 / in May 2023 / in June 2023
    last / this / next year               in 2022 / in 2023 / in 2024
    last / this / next March              in March 2023 / in March 2023 / in March 2024
    in / since / until ... March          in March 2023 (past tense, "since") / in March 2024
    last / this / next Friday             on Friday 5 May 2023 / (tense-dependent) / on Friday 12 May 2023
    last Fri, last Tues                   on Friday 5 May 2023, on Tuesday 2 May 2023 (capitalised)
    on Friday, on Saturday night          as "this Friday", by the tense of its own sentence:
                                          past on Friday 5 May 2023, otherwise on Friday 12 May
                                          2023; on the night of ...; the "on" is kept (a habit
                                          or a range stays: "on Fridays", "usually on Friday",
                                          "on Monday nights", "on Monday to Friday")
    3 days ago, a couple of days ago      on 5 May 2023, on 6 May 2023
    a week ago, two weeks ago             the week before 8 May 2023, two weeks before 8 May 2023
    a month ago, 3 months ago, a year ago in April 2023, in February 2023, in 2022
    in 2 days, in two weeks, in a month   on 10 May 2023, two weeks after 8 May 2023, in June 2023
    a few days ago, in a few weeks        a few days before 8 May 2023, a few weeks after 8 May 2023
    about 2 years ago, in over a month    around 2021, over a month after May 2023
    nearly a year ago, in about 2 weeks   nearly a year before 2023, about two weeks after 8 May 2023
    the other day                         a few days before 8 May 2023 (no date: too vague)

"recently" and other vague words are left as they are. A leading "on"/"in" is dropped after a
preposition ("since last year" -> "since 2022"). Explicit dates ("May 5, 2023", "5th of May",
"in 2019") are not rewritten but give a date (the reference year when none is stated).

Ambiguities are settled one way, documented here: "next Friday" is the first Friday after the
reference day; "this Friday" and "this weekend" look back when the text is in the past tense;
"a few" counts as 3 and "a couple" as 2 when a date is needed; a month named without a year
after a preposition ("in May", "since early March") or "last" / "this" / "next" gets the year
that puts it in the past for past-tense text and "since", in the future otherwise (the
reference month itself counts as both); month names count only capitalised ("I may go");
"in three days" in past-tense text is a duration and stays as said ("I did six pieces in
three days").

The tense is the date's own clause's (up to a comma, a dash or a conjunction): "The exam is in
May and it's harder than I expected" puts the exam ahead, "She had her baby in October, so
I'll be on aunt duty" the birth behind. The clause decides when it shows a past form, a word
of the future ("will", "'ll", "going to", "next" but not "next to") or a word of the present
("is", "'s", "can", "hope", "she starts"); a clause with none of them ("On Saturday, I went to
the lake") takes its sentence's tense. A past form after "be" or "get" is an adjective ("I'm
booked out until January" is not past), "I've got" is a present "have", and a verb whose past
is its present ("quit", "shut", "read") counts as past right after its subject pronoun. A past
verb of arranging still puts the event it arranges in the past ("I signed up for a race in
October", said in August, is read as last October): a known limit (BENCHMARKS.md, ninth
round)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .numbers import UNITS

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_INDEX = {name.lower(): i + 1 for i, name in enumerate(MONTHS)}
_MONTH_INDEX.update({name.lower()[:3]: i + 1 for i, name in enumerate(MONTHS)})
_MONTH_INDEX["sept"] = 9
_WEEKDAY_INDEX = {name.lower(): i for i, name in enumerate(WEEKDAYS)}
_WEEKDAY_INDEX.update({name.lower()[:3]: i for i, name in enumerate(WEEKDAYS)})
_WEEKDAY_INDEX.update(tues=1, thur=3, thurs=3)

_NUMBER_WORDS = {"a": 1, "an": 1, **{w: v for w, v in UNITS.items() if 1 <= v <= 12}}
_VAGUE_COUNTS = {"a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3}
_COUNT_WORDS = {v: w for w, v in UNITS.items() if 1 <= v <= 12}

_NUM = (r"(?:a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|an?|one|two|three|four|five|six|"
        r"seven|eight|nine|ten|eleven|twelve|\d{1,3})")
_UNIT = r"(?:day|week|month|year)s?"
_ABOUT = frozenset(("about", "around", "roughly", "approximately", "some"))
"""Approximations that centre on the count: a year so approximated reads "around 2028"."""
_APPROX = (r"(?:about|around|roughly|approximately|nearly|almost|some|(?:just\s+)?(?:over|under)|"
           r"more\s+than|less\s+than)")
_WEEKDAY = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
            r"|(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b)")
_PART = r"(?:morning|afternoon|evening|night)"
_MONTH_NAME = (r"(?-i:January|February|March|April|May|June|July|August|September|October|"
               r"November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)")
_NOT_POSSESSIVE = r"(?!['\u2019]s\b)"

_PATTERN = re.compile(
    r"\b(?:"
    rf"(?P<ago>(?:(?P<ago_approx>{_APPROX})\s+)?(?P<ago_n>{_NUM})\s+(?P<ago_unit>{_UNIT})\s+ago)"
    rf"|(?P<inn>in\s+(?:(?P<in_approx>{_APPROX})\s+)?(?P<in_n>{_NUM})\s+(?P<in_unit>{_UNIT}))"
    rf"|(?P<mon>(?P<mon_pre>(?:(?:last|this|next)|(?:in|since|until|till|by|during|from|"
    rf"before|after)(?:\s+(?:early|late|mid))?)\s+)(?P<mon_name>{_MONTH_NAME})\b"
    r"(?!\.?\s*\d|,?\s+(?:of\s+)?(?:19|20)\d\d))"
    rf"|(?<!\bthe\s)(?P<rel>(?P<rel_mod>last|this|next)\s+"
    rf"(?P<rel_unit>weekend|week|month|year|{_WEEKDAY}|{_PART}))"
    rf"|(?<=\bon\s)(?P<wd>(?P<wd_name>{_WEEKDAY})(?:\s+(?P<wd_part>{_PART}))?+"
    rf"(?!s\b|'s\b|,?\s*(?:\d|{_MONTH_NAME})|\s+{_PART}s\b|,?\s+the\s+\d"
    rf"|\s+(?:(?:last|next|this)\s+)?week\b"
    rf"|\.?\s*(?:[-\u2013\u2014/&+,]|and\b|or\b|to\b|through\b|thru\b|till\b|until\b)"
    rf"\s*(?:and\s+|or\s+)?{_WEEKDAY}))"
    rf"|(?P<day>(?P<day_word>yesterday|today|tonight|tomorrow)(?:\s+(?P<day_part>{_PART}))?)"
    r"|(?P<other>the\s+other\s+day)"
    rf"|(?P<md>(?P<md_month>{_MONTH_NAME})\.?\s+(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?:,?\s+(?P<md_year>(?:19|20)\d\d))?)"
    rf"|(?P<dm>(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_month>{_MONTH_NAME})\b"
    r"(?:,?\s+(?P<dm_year>(?:19|20)\d\d))?)"
    r"|(?P<yr>(?<=\bin\s)(?P<yr_value>(?:19|20)\d\d))"
    rf")\b{_NOT_POSSESSIVE}",
    re.IGNORECASE,
)
_FULL_DAY = (rf"(?:(?-i:{'|'.join(WEEKDAYS)})\s+)?\d{{1,2}}\s+(?-i:{'|'.join(MONTHS)})"
             r"\s+(?:19|20)\d\d")
_TIME_PREPOSITION = r"(?:just\s+)?(?:on|in|since|by|until|from|during|around|about|before|after)"
WRITTEN_TIME = re.compile(
    rf"(?:\b{_TIME_PREPOSITION}\s+)?"
    r"(?:\b(?:the\s+)?(?:week|weekend|night|morning|afternoon|evening)\s+(?:before|of|after)\s+"
    rf"|\b{_NUM}\s+{_UNIT}\s+(?:before|after)\s+)?\b{_FULL_DAY}\b"
    rf"|\b{_TIME_PREPOSITION}\s+(?:(?-i:{'|'.join(MONTHS)})\s+)?(?:19|20)\d\d\b",
    re.IGNORECASE,
)
"""A time phrase as :func:`resolve_dates` writes it, with its preposition: "on Friday 14 July
2023", "the week before 3 July 2023", "a few weeks before 13 September 2023", "in May 2025",
"since 2019" (a bare year or month and year only after a preposition). Readers of written
facts strip it to compare what the facts say apart from when
(:mod:`agent_memory.reasoners.extractive.claims`)."""
_PREPOSITIONS = frozenset((
    "on", "in", "since", "by", "until", "till", "from", "before", "after", "during", "of", "for",
    "over", "at", "around", "about", "starting"))
_PREV_WORD = re.compile(r"(\w+)\s*$")
_SUBJECT_OF = re.compile(r"\s+(?:was|is|has been|had been|will be)\b", re.IGNORECASE)
HABIT = re.compile(r"\b(?:every|usually|always|never|often|normally|typically|used to)\b",
                    re.IGNORECASE)
"""Words of a habit: "I usually swim on Wednesday" names no one Wednesday."""
_FUTURE = re.compile(r"\b(?:will|won't|shall|gonna|going to|tomorrow|next(?! to\b))\b|'ll\b",
                     re.IGNORECASE)
"""Words of the future: they win over a past form for a bare weekday ("I'm so excited, I'll
see her on Friday")."""
_ADJECTIVAL = re.compile(r"(?:\b(?:am|is|are|be|being|get|gets|getting|so|very|really|too)"
                         r"|'m|'re|'s)\s+$", re.IGNORECASE)
"""What makes a following past form an adjective ("I'm excited", "getting married")."""
_HAVE_GOT = re.compile(r"(?:\b(?:have|has)|'ve|'s)\s+$", re.IGNORECASE)
"""What makes a following "got" a present "have" ("I've got six weeks of freedom")."""
_PRESENT = re.compile(
    r"\b(?:am|is|are|have|has|do|does|can|may|might|must|should|want|wants|need|needs|hope|"
    r"hopes|plan|plans)\b|'(?:m|re|ve|s)\b|\b(?:he|she|it)\s+(?:\w+ly\s+)?\w+s\b",
    re.IGNORECASE)
"""Words of a present or planned action ("is", "'s", "can", "hope", "she starts": "He's
coming home in May"): in a clause without a past form they make it not past."""
_CLAUSE_BREAK = re.compile(
    r"[,;:]|\s[-\u2013\u2014]\s|\b(?:and|but|so|because|cause|while|though|although|whereas|"
    r"than)\b", re.IGNORECASE)
"""Where a clause of a sentence ends: a comma or dash, a coordinating or adverbial
conjunction ("The exam is in May and it's harder than I expected")."""
PAST_TENSE = re.compile(
    r"\b(?:was|were|went|had|did|got|made|took|saw|came|felt|found|told|said|flew|met|left|"
    r"bought|began|became|gave|ran|won|lost|sold|spent|drove|grew|paid|kept|broke|fell|wrote|"
    r"heard|thought|brought|sent|built|caught|taught|ate|drank|swam|sang|rode|chose|forgot|"
    r"threw|wore|woke|slept|sat|stood|fought|held|fled|shook|spoke|stole|drew|froze|knew|"
    r"\w{3,}ed|\w+ied"
    r"|(?<![\w'])(?:i|we|you|they|he|she)"
    r"(?:\s+(?:just|finally|officially|actually|recently|suddenly|eventually|already|then))?\s+"
    r"(?:quit|shut|put|cut|set|hit|let|read|hurt|split|spread|upset|cost|bet|burst|beat))\b",
    re.IGNORECASE,
)
"""A past form: a common irregular one, a word in -ed (an adjective in -ed too; "died",
"tied" counted), or a verb whose past is its present ("quit", "shut", "read") right after
its subject pronoun ("we shut down the company in July", not "to quit", "will quit" or
"can't quit")."""


@dataclass(frozen=True, slots=True)
class DateMention:
    """One date expression found in a text.

    Attributes:
        phrase: the expression as written.
        replacement: the absolute phrase put in its place (equal to ``phrase`` when kept).
        date: the day it points at (a representative day for weeks, months, years), or
            ``None`` when too vague to date.
        precision: ``day``, ``week``, ``weekend``, ``month``, ``year`` or ``approx``.
        start / end: character offsets of ``phrase`` in the input text.
    """

    phrase: str
    replacement: str
    date: date | None
    precision: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ResolvedText:
    """The result of :func:`resolve_dates`.

    Attributes:
        text: the input with relative expressions rewritten to absolute ones.
        date: the first date found (``None`` when nothing could be dated).
        mentions: every expression found, in text order.
    """

    text: str
    date: date | None
    mentions: tuple[DateMention, ...]


def format_day(day: date) -> str:
    """``date(2023, 5, 7)`` -> ``"7 May 2023"`` (no leading zero, English month name)."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def format_weekday(day: date) -> str:
    """``date(2023, 5, 6)`` -> ``"Saturday 6 May 2023"``."""
    return f"{WEEKDAYS[day.weekday()]} {format_day(day)}"


def format_month(day: date) -> str:
    """``date(2023, 5, 7)`` -> ``"May 2023"``."""
    return f"{MONTHS[day.month - 1]} {day.year}"


def add_months(day: date, months: int) -> date:
    """Shift ``day`` by ``months`` calendar months (negative goes back), clamping the day.

    ``add_months(date(2023, 3, 31), -1)`` is ``date(2023, 2, 28)``.
    """
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    for candidate in (day.day, 30, 29, 28):
        try:
            return date(year, month, min(day.day, candidate))
        except ValueError:
            continue
    raise AssertionError("unreachable: day 28 exists in every month")


def _count(word: str) -> tuple[int, bool]:
    """Parse a quantity; returns (value, vague) where vague marks "a few"/"a couple"."""
    key = " ".join(word.lower().split())
    if key in _VAGUE_COUNTS:
        return _VAGUE_COUNTS[key], key.endswith("few")
    if key.isdigit():
        return int(key), False
    return _NUMBER_WORDS[key], False


def _spoken(word: str, value: int, unit: str, approx: str | None = None) -> str:
    """The count and its unit as they should read in a rewrite ("2" -> "two weeks", "a few
    days" kept, "about a month": one unit stays singular after an approximation)."""
    key = " ".join(word.lower().split())
    if key in _VAGUE_COUNTS:
        count = key if key.startswith("a ") else f"a {key}"
    elif approx and key in ("a", "an"):
        count = key
    else:
        count = _COUNT_WORDS.get(value, str(value))
    lead = f"{' '.join(approx.lower().split())} " if approx else ""
    return f"{lead}{count} {unit}{'' if value == 1 else 's'}"


def _weekend_start(day: date) -> date:
    """The Saturday of the weekend ``day`` is in, or of the coming weekend on a weekday."""
    weekday = day.weekday()
    if weekday == 6:
        return day - timedelta(days=1)
    return day + timedelta(days=5 - weekday)


def _ago_or_ahead(
    word: str, unit: str, ref: date, sign: int, approx: str | None = None
) -> tuple[str, date | None, str]:
    """Rewrite "N units ago" (sign -1) or "in N units" (sign +1); ``approx``: the word that
    makes the count approximate ("about", "over"...), kept before it ("in over three years"
    said in 2025: "over three years after 2025"; years "about" a count: "around 2028")."""
    value, vague = _count(word)
    vague = vague or approx is not None
    unit = unit.lower().rstrip("s")
    relation = "before" if sign < 0 else "after"
    spoken = _spoken(word, value, unit, approx)
    if unit == "day":
        target = ref + timedelta(days=sign * value)
        if vague:
            return f"{spoken} {relation} {format_day(ref)}", target, "approx"
        return f"on {format_day(target)}", target, "day"
    if unit == "week":
        target = ref + timedelta(weeks=sign * value)
        if value == 1 and not vague:
            return f"the week {relation} {format_day(ref)}", target, "week"
        return f"{spoken} {relation} {format_day(ref)}", target, "approx" if vague else "week"
    if unit == "month":
        target = add_months(ref, sign * value)
        if vague:
            return f"{spoken} {relation} {format_month(ref)}", target, "approx"
        return f"in {format_month(target)}", target.replace(day=1), "month"
    target = date(ref.year + sign * value, 1, 1)
    if approx is not None and approx.lower() in _ABOUT:  # "about five years ago": around 2018
        return f"around {target.year}", target, "approx"
    if vague:
        return f"{spoken} {relation} {ref.year}", target, "approx"
    return f"in {target.year}", target, "year"


def _relative(mod: str, unit: str, ref: date, past: bool) -> tuple[str, date, str] | None:
    """Rewrite "last|this|next <unit>"; ``None`` for combinations left alone ("next night")."""
    mod, unit = mod.lower(), unit.lower()
    step = {"last": -1, "this": 0, "next": 1}[mod]
    if unit == "week":
        target = ref + timedelta(weeks=step)
        label = {-1: "the week before", 0: "the week of", 1: "the week after"}[step]
        return f"{label} {format_day(ref)}", target, "week"
    if unit == "weekend":
        current = _weekend_start(ref)
        in_weekend = ref.weekday() >= 5
        previous = current - timedelta(days=7)
        if step < 0 or (step == 0 and past and not in_weekend):
            return f"the weekend before {format_day(ref)}", previous, "weekend"
        if step == 0:
            return f"on the weekend of {format_day(current)}", current, "weekend"
        following = current + timedelta(days=7) if in_weekend else current
        return f"the weekend after {format_day(ref)}", following, "weekend"
    if unit == "month":
        target = add_months(ref.replace(day=1), step)
        return f"in {format_month(target)}", target, "month"
    if unit == "year":
        return f"in {ref.year + step}", date(ref.year + step, 1, 1), "year"
    if unit in _WEEKDAY_INDEX:
        target = _weekday_day(_WEEKDAY_INDEX[unit], ref, step, past)
        return f"on {format_weekday(target)}", target, "day"
    # parts of the day: only "last night" and "this morning|afternoon|evening|night" make sense
    if (step < 0 and unit == "night") or (step == 0 and unit != "night"):
        target = ref + timedelta(days=step)
        return f"on the {unit} of {format_day(target)}", target, "day"
    if step == 0:
        return f"on the night of {format_day(ref)}", ref, "day"
    return None


def _month(pre: str, name: str, ref: date, past: bool) -> tuple[str, date, str]:
    """Rewrite "last|this|next <Month>" or "<preposition> <Month>" with its year: "last
    March" is the latest March before the reference month, "next March" the first after it;
    a bare month is the latest one not after the reference month after "since" or in a
    past-tense text, else the first one not before it."""
    month = _MONTH_INDEX[name.lower()]
    mod = pre.split()[0].lower()
    if mod == "this":
        year = ref.year
    elif mod in ("last", "since") or (mod != "next" and past):
        year = ref.year - (month > ref.month or (mod == "last" and month == ref.month))
    else:
        year = ref.year + (month < ref.month or (mod == "next" and month == ref.month))
    target = date(year, month, 1)
    lead = "in " if mod in ("last", "this", "next") else pre
    return f"{lead}{format_month(target)}", target, "month"


def _day_word(word: str, part: str | None, ref: date) -> tuple[str, date, str]:
    offset = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[word.lower()]
    target = ref + timedelta(days=offset)
    if word.lower() == "tonight":
        part = part or "night"
    if part:
        return f"on the {part.lower()} of {format_day(target)}", target, "day"
    return f"on {format_day(target)}", target, "day"


def _weekday_day(index: int, ref: date, step: int, past: bool) -> date:
    """The day of weekday ``index`` (Monday 0) that "last" (``step`` -1), "this" (0) or
    "next" (1) names: "this" looks back in a past-tense text, the reference day counting for
    "this" only."""
    delta = index - ref.weekday()
    if step < 0 or (step == 0 and past):
        delta = delta - 7 if delta > 0 else delta
        if step < 0 and delta == 0:
            delta = -7
    else:
        delta = delta + 7 if delta < 0 else delta
        if step > 0 and delta == 0:
            delta = 7
    return ref + timedelta(days=delta)


def _sentence_start(match: re.Match[str]) -> int:
    """Offset in ``match.string`` where the sentence of ``match`` starts (after the nearest
    . ! ? or line break before it)."""
    return max(match.string.rfind(mark, 0, match.start()) for mark in ".!?\n") + 1


def _sentence_of(match: re.Match[str]) -> str:
    """The sentence of the text ``match`` is in (up to the nearest . ! ? or line break)."""
    text = match.string
    ends = [i for i in (text.find(mark, match.end()) for mark in ".!?\n") if i >= 0]
    return text[_sentence_start(match):min(ends, default=len(text))]


def _has_past(text: str) -> bool:
    """A past form in ``text`` that is no adjective (not after "be" or "get": "I'm booked out
    until January", "it's healed by October") and no present "have" ("I've got")."""
    return any(not _ADJECTIVAL.search(text, 0, m.start())
               and not (m.group(0).lower() == "got" and _HAVE_GOT.search(text, 0, m.start()))
               for m in PAST_TENSE.finditer(text))


def _past(sentence: str) -> bool:
    """Whether ``sentence`` tells of the past: a past form (:func:`_has_past`) and no word of
    the future ("I'll see her on Friday")."""
    return not _FUTURE.search(sentence) and _has_past(sentence)


def _clause_past(match: re.Match[str]) -> bool:
    """Whether the clause of ``match`` tells of the past: its own clause (up to a comma, a
    dash or a conjunction: :data:`_CLAUSE_BREAK`) decides when it has a past form, a word of
    the future or a word of the present ("Summer camp starts in June, so I've got six weeks":
    the camp is ahead; "She just had her baby in October, so I'll be on aunt duty": the birth
    is past); a clause with none of them ("On Saturday, I went to the lake") takes the
    sentence's tense (:func:`_past`)."""
    sentence = _sentence_of(match)
    at = match.start() - _sentence_start(match)
    breaks = list(_CLAUSE_BREAK.finditer(sentence))
    left = max((m.end() for m in breaks if m.end() <= at), default=0)
    right = min((m.start() for m in breaks if m.start() >= at + len(match.group(0))),
                default=len(sentence))
    clause = sentence[left:right]
    if _FUTURE.search(clause):
        return False
    if _has_past(clause):
        return True
    if _PRESENT.search(clause.replace(match.group(0), " ")):
        return False
    return _past(sentence)


def _weekday(name: str, part: str | None, ref: date,
             sentence: str, past: bool) -> tuple[str, date, str] | None:
    """Rewrite the weekday of "on <weekday> [<part of day>]" as "this <weekday>" is (the
    speaker's "on" stays outside the match, so "drop by on Friday" keeps it): the latest such
    day when its clause is in the past tense (``past``, :func:`_clause_past`), else the next
    one (the reference day itself in both); ``None`` in a ``sentence`` of a habit ("I usually
    swim on Wednesday"). A word of the future wins ("I'll see her on Friday"), and a past form
    after "be" or "get" is an adjective ("I'm getting married on Saturday")."""
    if HABIT.search(sentence):
        return None
    target = _weekday_day(_WEEKDAY_INDEX[name.lower()], ref, 0, past)
    if part:
        return f"the {part.lower()} of {format_weekday(target)}", target, "day"
    return format_weekday(target), target, "day"


def _explicit(month: str, day: str, year: str | None, ref: date) -> date | None:
    try:
        return date(int(year) if year else ref.year, _MONTH_INDEX[month.lower()], int(day))
    except (ValueError, KeyError):
        return None


def _rewrite(match: re.Match[str], ref: date) -> tuple[str, date | None, str] | None:
    """The (replacement, date, precision) of one match; ``None`` to leave it alone. The tense
    that decides between the latest and the next date is the match's own clause's
    (:func:`_clause_past`)."""
    g = match.group
    phrase = match.group(0)
    if g("ago"):
        return _ago_or_ahead(g("ago_n"), g("ago_unit"), ref, -1, g("ago_approx"))
    if g("inn"):  # in a past sentence a duration: "I did six pieces in three days"
        return None if _clause_past(match) else _ago_or_ahead(g("in_n"), g("in_unit"), ref, 1,
                                                               g("in_approx"))
    if g("rel"):
        return _relative(g("rel_mod"), g("rel_unit"), ref, _clause_past(match))
    if g("mon"):
        return _month(g("mon_pre"), g("mon_name"), ref, _clause_past(match))
    if g("wd"):
        return _weekday(g("wd_name"), g("wd_part"), ref, _sentence_of(match),
                        _clause_past(match))
    if g("day"):
        return _day_word(g("day_word"), g("day_part"), ref)
    if g("other"):
        return f"a few days before {format_day(ref)}", None, "approx"
    if g("md"):
        found = _explicit(g("md_month"), g("md_day"), g("md_year"), ref)
        return (phrase, found, "day") if found else None
    if g("dm"):
        found = _explicit(g("dm_month"), g("dm_day"), g("dm_year"), ref)
        return (phrase, found, "day") if found else None
    if g("yr"):
        return phrase, date(int(g("yr_value")), 1, 1), "year"
    return None


def resolve_dates(text: str, reference: datetime | date) -> ResolvedText:
    """Rewrite the relative date expressions of ``text`` against ``reference``.

    Args:
        text: any sentence or paragraph.
        reference: when the text was said (the turn's ``created_at``; an aware datetime is
            read in its own timezone, UTC for turns).

    Returns:
        The rewritten text, the first date found and every mention (see the module docstring
        for the expressions and their rewrites). Text without date expressions comes back
        unchanged.
    """
    ref = reference.date() if isinstance(reference, datetime) else reference
    matches = list(_PATTERN.finditer(text))
    if not matches:
        return ResolvedText(text, None, ())
    pieces: list[str] = []
    mentions: list[DateMention] = []
    cursor = 0
    for match in matches:
        result = _rewrite(match, ref)
        if result is None:
            continue
        replacement, day, precision = result
        before = text[cursor:match.start()]
        if replacement != match.group(0):
            replacement = _fit(replacement, text, match.start(), match.end())
        pieces.append(before)
        pieces.append(replacement)
        cursor = match.end()
        mentions.append(
            DateMention(match.group(0), replacement, day, precision, match.start(), match.end())
        )
    pieces.append(text[cursor:])
    first = next((m.date for m in mentions if m.date is not None), None)
    return ResolvedText("".join(pieces), first, tuple(mentions))


def _fit(replacement: str, text: str, start: int, end: int) -> str:
    """Drop a leading on/in after a preposition ("since 2022"; after "over" or "at", which
    may be particles, only before "the": "over the weekend of ...", "come over on 5 May") and
    before a verb it is the subject of ("Yesterday was fun" -> "7 May 2023 was fun");
    capitalise at the start of a sentence."""
    found = _PREV_WORD.search(text, max(0, start - 24), start)
    previous = found.group(1).lower() if found else ""
    head, _, rest = replacement.partition(" ")
    if head in ("on", "in") and rest and (
            previous in _PREPOSITIONS and (previous not in ("over", "at") or rest[:4] == "the ")
            or _SUBJECT_OF.match(text, end)):
        replacement = rest
    stripped = text[:start].rstrip()
    if not stripped or stripped[-1] in ".!?\n":
        replacement = replacement[0].upper() + replacement[1:]
    return replacement

"""Periods a text names, for valid time: "where did she live in 2023?" asks about the end of
2023; "Kai has lived in Boston since 2019" holds from the start of 2019.

Contextual fact retrieval (:mod:`agent_memory.sessions.cfr`) reads facts ``as_of``
:func:`asked_moment` of the question, so a question about the past is answered from the facts
valid then (temporal validity, docs/consistency.md) instead of the current ones; fact
extraction (:mod:`agent_memory.pipeline.facts`) dates a fact from :func:`stated_start` of its
text when the reasoner gave no date.

Dates are found by the offline reasoner's date resolver
(:func:`agent_memory.text.dates.resolve_dates`: explicit dates, years,
"last year", "two months ago", ...), anchored at the time the text was said, plus month
names followed by a year ("in June 2024") and years after "since" / "from" / "during", which
that resolver leaves alone. A mention names a period (a day, week, weekend, month or year).
A question is read at the period's last microsecond (the state at the end of that period;
a moment not before ``now`` is no time reference: current facts answer it); a fact holds
from the period's first moment.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from .models import as_utc
from .text.dates import PAST_TENSE, resolve_dates

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_YEAR = re.compile(
    r"\b(" + "|".join(m[:3] + f"(?:{m[3:]})?" for m in _MONTHS) + r")\.?,?\s+(\d{4})\b",
    re.IGNORECASE)
_YEAR = re.compile(r"\b(?:since|from|in|during|throughout)\s+((?:1[89]|20)\d\d)\b",
                   re.IGNORECASE)
_SPAN = {"day": timedelta(days=1), "week": timedelta(days=7), "weekend": timedelta(days=2)}


def _period_end(day: date, precision: str) -> datetime | None:
    """The first moment after the period of ``precision`` that holds ``day``."""
    if precision == "year":
        end = date(day.year + 1, 1, 1)
    elif precision == "month":
        end = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    elif precision in _SPAN:
        end = day + _SPAN[precision]
    else:  # "approx": too vague to read the past by
        return None
    return datetime.combine(end, time(), UTC)


def _periods(text: str, reference: datetime) -> list[tuple[int, datetime, datetime]]:
    """``(offset, start, end)`` of every datable period ``text`` names, in text order; ``end``
    is the first moment after the period."""
    found: list[tuple[int, datetime, datetime]] = []
    for mention in resolve_dates(text, reference).mentions:
        if mention.date is not None:
            day = mention.date
            if mention.precision == "year":
                day = date(day.year, 1, 1)
            elif mention.precision == "month":
                day = day.replace(day=1)
            end = _period_end(day, mention.precision)
            if end is not None:
                found.append((mention.start, datetime.combine(day, time(), UTC), end))
    for match in _YEAR.finditer(text):  # "since 2019" (the resolver reads "in 2019" only)
        start = date(int(match[1]), 1, 1)
        found.append((match.start(1), datetime.combine(start, time(), UTC),
                      datetime.combine(date(start.year + 1, 1, 1), time(), UTC)))
    for match in _MONTH_YEAR.finditer(text):
        month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(match[1][:3].lower()))
        start = date(int(match[2]), month, 1)
        end = _period_end(start, "month")
        if end is not None:
            found.append((match.start(), datetime.combine(start, time(), UTC), end))
    return sorted(found)


def stated_start(text: str, reference: datetime) -> datetime | None:
    """The start of the first period ``text`` names (aware UTC), or ``None``.

    Args:
        text: a fact's text ("Kai moved to Portland in May 2025.").
        reference: when it was said (anchors relative expressions).

    Example: ``stated_start("Kai has lived in Boston since 2019.", <2025-06-20>)`` is
    ``2019-01-01 00:00+00:00``.
    """
    found = _periods(text, as_utc(reference))
    return found[0][1] if found else None


def asked_moment(question: str, now: datetime) -> datetime | None:
    """The moment ``question`` asks about, or ``None`` when it names no past period.

    Args:
        question: the question text.
        now: when it is asked (aware; relative expressions are anchored to it).

    Returns:
        The last microsecond of the first period the question names (aware UTC), when that
        is before ``now``; else ``None``.

    Example: ``asked_moment("Where did Kai live in June 2024?", <2025-11-26>)`` is
    ``2024-06-30 23:59:59.999999+00:00``.
    """
    now = as_utc(now)
    found = _periods(question, now)
    if not found:
        return None
    moment = found[0][2] - timedelta(microseconds=1)
    return moment if moment < now else None


_FORWARD = re.compile(
    r"\b(?:is|are|am|will|wants?|plans?|planning|hopes?|hoping|intends?|aims?|aiming|"
    r"expects?|expecting|going to|thinking (?:about|of)|getting ready|looking forward|"
    r"can't wait|would like)\b|'(?:re|ll)\b", re.IGNORECASE)
"""A statement of the present or the future: an arrangement, a plan, a wish."""
_MEMORY = re.compile(r"\b(?:used to|remembers?|forgets?|miss(?:es)?)\b", re.IGNORECASE)
"""A memory of the past ("will always remember the trip in 2022"): true once its time is
over, as a past form (:data:`~agent_memory.text.dates.PAST_TENSE`: "was", "went",
"started") is. An adjective in -ed ("is excited about the fair in March") reads as past too:
such a plan is kept."""
_ONSET = re.compile(r"\b(?:since|from|starting|until|till|by)\s+(?:the\s+)?$", re.IGNORECASE)
"""A period that opens, closes or bounds a state ("from May 2025", "since 2019")."""


def plan_passed(text: str, said: datetime, now: datetime) -> bool:
    """Whether ``text`` states in the present or future something placed in a period that
    was over by ``now``: "Rosa is going to a conference in July 2023", "Omar is hoping to see
    a jazz festival in September 2023", read in October 2023. Such a statement no longer
    says what holds; a profile leaves it out (it stays a fact).

    Not passed: a statement in the past ("was born in January 2025", "moved in May 2025"), a
    period that opens, closes or bounds a state ("wants to save 6% from May 2025", "has lived
    there since 2019"), a period not yet over, and a text naming no period.

    Args:
        text: a fact's text.
        said: when it was said (anchors relative expressions; aware).
        now: the moment the statement is read at (aware), e.g. the latest conversation time.
    """
    found = _periods(text, as_utc(said))
    if not found:
        return False
    offset, _, end = found[0]
    before = text[:offset]
    if (_ONSET.search(before) or PAST_TENSE.search(before) or _MEMORY.search(before)
            or not _FORWARD.search(before)):
        return False
    return end <= as_utc(now)

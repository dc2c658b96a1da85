"""The moment a question asks about: "where did she live in 2023?" -> the end of 2023.

Contextual fact retrieval (:mod:`.cfr`) reads facts ``as_of`` that moment, so a question about
the past is answered from the facts valid then (temporal validity, docs/consistency.md)
instead of the current ones.

Dates are found by the offline reasoner's date resolver
(:func:`agent_memory.reasoners.extractive.dates.resolve_dates`: explicit dates, years,
"last year", "two months ago", ...), anchored at the time the question is asked, plus month
names followed by a year ("in June 2024"), which that resolver leaves alone. A mention names
a period (a day, week, weekend, month or year); the moment read is the period's last
microsecond, i.e. the state at the end of that period. A moment not before ``now`` is no
time reference (current facts answer it).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from ..models import as_utc
from ..reasoners.extractive.dates import resolve_dates

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_YEAR = re.compile(
    r"\b(" + "|".join(m[:3] + f"(?:{m[3:]})?" for m in _MONTHS) + r")\.?,?\s+(\d{4})\b",
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
    found: list[tuple[int, datetime]] = []
    for mention in resolve_dates(question, now).mentions:
        if mention.date is not None:
            end = _period_end(mention.date, mention.precision)
            if end is not None:
                found.append((mention.start, end))
    for match in _MONTH_YEAR.finditer(question):
        month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(match[1][:3].lower()))
        end = _period_end(date(int(match[2]), month, 1), "month")
        if end is not None:
            found.append((match.start(), end))
    if not found:
        return None
    moment = min(found)[1] - timedelta(microseconds=1)
    return moment if moment < now else None

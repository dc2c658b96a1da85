"""Subject-aware queries: a person the query names becomes a prior, not a search term.

In a conversation memory nearly every record mentions its speakers: a turn's index text starts
with ``"Melanie: ..."`` (and its previous turn's ``"Caroline: ..."``), facts read ``"Melanie
signed up for ..."``. A question such as "What activities does Melanie partake in?" therefore
matches, through the name, almost every turn of the conversation: the name dominates the
embedding of a short question and its BM25 term adds noise to every candidate, while the words
that matter ("activities") weigh less. Hybrid search handles a named speaker in two steps:

1. :func:`named_speakers` finds the speakers of the user's turns that the query names (the
   store lists a partition's speakers from an index, :meth:`MemoryStore.speakers
   <agent_memory.stores.base.MemoryStore.speakers>`), and :func:`strip_names` removes those
   names (with a possessive ``'s``) from the text that is embedded and matched;
2. :func:`apply_prior` multiplies by ``1 + weight`` the fused score of every turn spoken by a
   named person and of every fact/insight whose ``subject`` is a named person: a soft prior
   (on LoCoMo the named person speaks 96% of the gold evidence turns), never a filter.

Our own scheme, measured on the LoCoMo dev set (BENCHMARKS.md, "Recall on LoCoMo"): turn-level
recall_any@10 0.808 -> 0.829 and recall_all@10 0.688 -> 0.718; either step alone gains less
(the prior alone 0.817 / 0.693; the stripped query without the prior loses).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..models import MemoryRecord, RecordKind

SUBJECT_WEIGHT = 1.0
"""Default prior: a named person's turns and facts have their fused score doubled. On the
LoCoMo dev set weights 0.5-2.0 were within 0.01 of each other (BENCHMARKS.md)."""

_COMMON_TEXT = """a an and are as at be but by can could did do does for from had has have he her
    him his how i if in is it its may me my no not of on or our she so that the their them they
    this to us was we were what when where which who why will with would you your"""
_COMMON = frozenset(_COMMON_TEXT.split())
"""Lower-case words never treated as a name (a speaker called "Will" is still found when the
query writes "Will", but the auxiliary "will" is not stripped)."""

_PRIOR_KINDS = frozenset({RecordKind.TURN, RecordKind.FACT, RecordKind.INSIGHT})


def _pattern(name: str, *, ignore_case: bool) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(w) for w in name.split())
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(rf"(?<!\w){words}(?:['\u2019]s)?(?!\w)", flags)


def _names_in(query: str, name: str) -> bool:
    ignore_case = name.lower() not in _COMMON
    return _pattern(name, ignore_case=ignore_case).search(query) is not None


def named_speakers(query: str, speakers: Iterable[str]) -> list[str]:
    """The names among ``speakers`` that ``query`` names, in the order given.

    A name matches as a whole word (or whole phrase for a multi-word name), case-insensitively,
    with an optional possessive ``'s``; a name that is also a common English word (e.g. "Will")
    matches only with its exact capitalisation.

    Args:
        query: the search text.
        speakers: speaker names of the user's turns (blank and repeated names are skipped).

    Returns:
        The distinct speaker names found in ``query``; empty when none.
    """
    seen: dict[str, None] = {}
    for speaker in speakers:
        if speaker and speaker.strip() and speaker not in seen and _names_in(query, speaker):
            seen[speaker] = None
    return list(seen)


def strip_names(query: str, names: Iterable[str]) -> str:
    """``query`` without the given names (and their possessive ``'s``), spaces collapsed.

    Returns:
        The stripped text, or ``query`` unchanged when nothing but names (and punctuation)
        would remain, so a query that is only a name still searches for it.
    """
    text = query
    for name in names:
        ignore_case = name.lower() not in _COMMON
        text = _pattern(name, ignore_case=ignore_case).sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text if re.search(r"\w", text) else query


def prior_factor(record: MemoryRecord, names: Iterable[str], weight: float) -> float:
    """The multiplier :func:`apply_prior` gives ``record``: ``1 + weight`` for a turn whose
    ``speaker`` or a fact/insight whose ``subject`` is one of ``names``, else 1.0."""
    if record.kind not in _PRIOR_KINDS:
        return 1.0
    who = getattr(record, "speaker", None) if record.kind == RecordKind.TURN else getattr(
        record, "subject", None)
    return 1.0 + weight if who is not None and who in set(names) else 1.0


def apply_prior(
    scores: Mapping[str, float],
    records: Mapping[str, MemoryRecord],
    names: Iterable[str],
    weight: float = SUBJECT_WEIGHT,
) -> tuple[list[tuple[str, float]], dict[str, float]]:
    """Multiply the scores of the named people's turns and facts, then re-rank.

    Args:
        scores: record id -> score, best first (ties keep this order).
        records: record id -> record, for every id in ``scores`` (ids missing here keep
            their score).
        names: the named speakers (:func:`named_speakers`).
        weight: the prior (>= 0); 0 leaves the ranking as it is.

    Returns:
        ``(ranked, factors)``: ``(id, score)`` pairs best first, and record id -> the factor
        applied, for the records that got one.

    Raises:
        ValueError: ``weight`` is negative.
    """
    if weight < 0:
        raise ValueError("the subject prior weight must not be negative")
    wanted = frozenset(names)
    factors: dict[str, float] = {}
    out: dict[str, float] = {}
    for record_id, score in scores.items():
        record = records.get(record_id)
        factor = prior_factor(record, wanted, weight) if record is not None and wanted else 1.0
        if factor != 1.0:
            factors[record_id] = factor
        out[record_id] = score * factor
    order = {rid: i for i, rid in enumerate(out)}
    return sorted(out.items(), key=lambda p: (-p[1], order[p[0]])), factors

"""Extractive thread summaries that compress.

Every sentence of the new turns and of the previous summary competes on salience
(:func:`.sentences.salience`, centroid TF-IDF), with a bonus for the user's self-disclosures
and decisions; questions and backchannel ("Great progress") are left out. The most salient
are taken greedily within the budget, near-duplicates skipped, in chronological order. The
budget compresses: one token of summary per :data:`COMPRESSION` tokens of turns (at least
:data:`MIN_SUMMARY_TOKENS`, at most ``max_tokens``) on top of the previous summary's length,
so a summary stays at :data:`COMPRESSION`:1 however often it is updated. Sentences are
reported in the third person (:mod:`.person`: "Advisor said a conservative mix makes sense."),
relative dates in statements resolved (:mod:`agent_memory.text.dates`; a question's "today"
is no date anyone stated).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InvalidInputError
from ...models import Role, Turn
from ...text.dates import MONTHS, WEEKDAYS, resolve_dates
from ...tokens import count_tokens, truncate_tokens
from ..base import SummaryDraft
from .facts import (
    categorize,
    clean_sentence,
    finish_sentence,
    is_disclosure,
    score_importance,
    speaker_name,
    turn_speakers,
)
from .person import Speaker, address_listener, to_third_person
from .sentences import (
    FILLER,
    STOPWORDS,
    content_terms,
    entities,
    jaccard,
    salience,
    split_sentences,
)

_PREFIX = re.compile(r"^(?P<name>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}):\s+(?P<body>\S.*)$")
_CALENDAR_WORDS = frozenset(
    m.lower() for m in (*MONTHS, *WEEKDAYS, "week", "weekend", "month", "year", "today")
)
_TOPIC_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[^\sA-Za-z]+")

DUPLICATE_THRESHOLD = 0.8
"""Jaccard overlap of content terms above which a sentence repeats one already kept."""


@dataclass(slots=True)
class _Candidate:
    """One sentence competing for a place in a summary: ``display`` is how the summary
    writes it (third person), ``body`` what its salience is read from."""

    speaker: str | None
    body: str
    order: int
    display: str
    turn_id: str | None = None
    terms: tuple[str, ...] = ()
    score: float = 0.0


def _previous_candidates(previous: str | None) -> list[_Candidate]:
    """Split a stored summary back into sentences; a line in the older "Name: text" layout
    is rewritten in the third person."""
    candidates: list[_Candidate] = []
    for line in (previous or "").splitlines():
        match = _PREFIX.match(line.strip())
        speaker, body = (match.group("name"), match.group("body")) if match else (None, line)
        for sentence in split_sentences(body.strip()):
            display = (finish_sentence(to_third_person(sentence, speaker)) if speaker
                       else sentence)
            candidates.append(_Candidate(speaker, sentence, len(candidates), display))
    return candidates


def _select(candidates: list[_Candidate], max_tokens: int) -> list[_Candidate]:
    """Take the most salient candidates within ``max_tokens``, in chronological order."""
    ranked = sorted(candidates, key=lambda c: (-c.score, -c.order))
    chosen: list[_Candidate] = []
    remaining = max_tokens
    for candidate in ranked:
        if candidate.score < 0 and chosen:
            break  # filler only fills an otherwise empty summary
        cost = count_tokens(candidate.display)
        if cost > remaining:
            continue
        if any(jaccard(candidate.terms, c.terms) >= DUPLICATE_THRESHOLD for c in chosen
               if candidate.terms):
            continue
        chosen.append(candidate)
        remaining -= cost
    chosen.sort(key=lambda c: c.order)
    return chosen


def key_topics(texts: Sequence[str], names: Sequence[str] = (), limit: int = 5) -> list[str]:
    """Up to ``limit`` topic phrases: repeated content bigrams first, then frequent words.

    A bigram is two adjacent content words (no stopword, filler, name, calendar word or
    punctuation between); it counts when seen at least twice. Words follow by frequency (ties:
    first seen), skipping words already inside a chosen bigram. Phrases are lower-cased.
    """
    excluded = name_forms(set(names)) | _CALENDAR_WORDS
    unigrams: Counter[str] = Counter()
    bigrams: Counter[str] = Counter()
    for text in texts:
        previous: str | None = None
        for token in _TOPIC_WORD.findall(text.replace("\u2019", "'")):
            word = token.lower()
            if (not word[0].isalpha() or word in STOPWORDS or word in FILLER
                    or word in excluded or len(word) < 3 or "'" in word):
                previous = None
                continue
            unigrams[word] += 1
            if previous is not None:
                bigrams[f"{previous} {word}"] += 1
            previous = word
    topics = [b for b, n in bigrams.most_common() if n >= 2][:limit]
    covered = {w for b in topics for w in b.split()}
    return topics + [w for w, _ in unigrams.most_common() if w not in covered][:limit - len(topics)]


def check_budget(max_tokens: int) -> None:
    """Raise ``InvalidInputError`` unless ``max_tokens`` is a positive integer."""
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError(f"max_tokens must be a positive integer, got {max_tokens!r}")


def _finish(candidates: list[_Candidate], max_tokens: int, names: set[str]) -> SummaryDraft:
    chosen = _select(candidates, max_tokens)
    if not chosen:  # every sentence is longer than the budget: cut the most salient one
        best = max(candidates, key=lambda c: (c.score, c.order))
        text = truncate_tokens(best.display, max_tokens) or truncate_tokens(best.body, 1)
        return SummaryDraft(text=text, key_topics=key_topics([best.body], sorted(names)),
                            evidence=[best.turn_id] if best.turn_id else [])
    return SummaryDraft(
        text="\n".join(c.display for c in chosen),  # one sentence per line
        key_topics=key_topics([c.body for c in candidates if c.score >= 0]
                              or [c.body for c in candidates], sorted(names)),
        evidence=list(dict.fromkeys(c.turn_id for c in chosen if c.turn_id)),
    )


def name_forms(names: set[str]) -> set[str]:
    """Lower-cased names, their words and their prefixes of 3+ letters ("mel" for Melanie),
    so that speakers addressing each other do not count as content."""
    return {part[:k] for name in names for part in name.lower().split()
            for k in range(3, len(part) + 1)}


def _score(candidates: list[_Candidate], names: set[str]) -> None:
    lowered = name_forms(names)
    for candidate in candidates:
        candidate.terms = tuple(content_terms(candidate.body, lowered))
    scores = salience([c.body for c in candidates], [c.terms for c in candidates], lowered)
    for candidate, score in zip(candidates, scores, strict=True):
        candidate.score = score


def compression_budget(previous: str | None, turns: Sequence[Turn], max_tokens: int) -> int:
    """Tokens a summary of ``turns`` folded into ``previous`` may use (see the module
    docstring): ``min(max_tokens, tokens(previous) + max(MIN_SUMMARY_TOKENS,
    tokens(turns) // COMPRESSION))``."""
    new = sum(count_tokens(t.content) for t in turns) // COMPRESSION
    old = count_tokens(previous) if previous else 0
    return min(max_tokens, old + max(MIN_SUMMARY_TOKENS, new))


def _said(name: str, text: str, proper: set[str]) -> str:
    """``"Advisor said a conservative mix makes sense."``: reported speech for a sentence that
    does not name its speaker (its first word is lower-cased unless it is a name); a question
    is quoted: ``"Ines asked: What's a good breakfast before a race?"``."""
    if text.endswith("?"):
        return f"{name} asked: {text}"
    first = text.split(" ", 1)[0]
    if first not in proper and not (len(first) > 1 and first.isupper()):
        text = text[:1].lower() + text[1:]
    return f"{name} said {text}"


def _third_person(turn: Turn, sentence: str, speaker: Speaker, listener: str | None,
                  names: frozenset[str], proper: set[str]) -> str:
    """``sentence`` of ``turn`` as the summary reports it."""
    text = clean_sentence(sentence, names)
    if turn.role == Role.USER:
        text = to_third_person(text, speaker)
    if listener:
        text = address_listener(text, listener)
    text = finish_sentence(text)
    if speaker.name.lower() not in text.lower():
        text = _said(speaker.name, text, proper)
    return text


_DECISION = re.compile(
    r"\b(?:decided|decide|will|going to|plan(?:ning)? to|want to|would like to|prefer|"
    r"chose|agreed)\b", re.IGNORECASE)
_ECHO = re.compile(r"(?i)^(?:noted|got it|okay|ok|so|right|understood)?[\s,:.!-]*"
                   r"you(?:'re|\s+are|'ve|\s+have|\s+were|'d|\s+had)\b(?!\s+(?:welcome|right)\b)")
"""An assistant's sentence about the user ("Noted: you're allergic to penicillin and
ibuprofen"): an echo of what the user said, or a claim about them only they can make; the
user's own words are the record."""
DISCLOSURE_BONUS = 0.15
"""Salience added to a user's self-disclosure or decision of importance 5
(:func:`.facts.score_importance`, scaled linearly): what a memory exists to keep."""
MIN_SUMMARY_TOKENS = 16
"""Smallest compression budget: room for one short sentence."""
COMPRESSION = 5
"""Tokens of conversation per token of summary (5:1)."""


def summarize_turns(previous: str | None, turns: Sequence[Turn], max_tokens: int) -> SummaryDraft:
    """Fold ``turns`` (oldest first) into the ``previous`` thread summary.

    Args:
        previous: the stored summary text, or ``None``.
        turns: the turns newer than the summary's watermark.
        max_tokens: the most the returned text may use
            (:func:`agent_memory.tokens.count_tokens`); the compression budget
            (:func:`compression_budget`) is usually smaller.

    Returns:
        A :class:`SummaryDraft`: the text (one third-person sentence per line,
        ``count_tokens(text) <= compression_budget(...)``), up to 5 key topics and the ids
        of the new turns whose sentences were kept.

    Raises:
        InvalidInputError: ``max_tokens`` < 1, or there is nothing to summarize.
    """
    check_budget(max_tokens)
    budget = compression_budget(previous, turns, max_tokens)
    candidates = _previous_candidates(previous)
    names = {c.speaker for c in candidates if c.speaker}
    speakers = turn_speakers(turns)
    names.update(speaker_name(t) for t in turns)
    lowered = frozenset(part.lower() for name in names for part in (name, name.split()[0]))
    proper = {e.split()[0] for t in turns for e in entities(t.content)} | set(names)
    people = [n for n, _ in Counter(speaker_name(t) for t in turns).most_common()]
    new: list[_Candidate] = []
    for turn in turns:
        name = speaker_name(turn)
        others = [p for p in people if p != name]
        listener = others[0] if len(others) == 1 else None
        for sentence in split_sentences(turn.content):
            question = sentence.rstrip().endswith("?")
            body = sentence if question else resolve_dates(sentence, turn.created_at).text
            new.append(_Candidate(name, body, len(candidates) + len(new), _third_person(
                turn, body, speakers[turn.id], listener, lowered, proper), turn.id))
    candidates += new
    if not candidates:
        raise InvalidInputError("nothing to summarize: no previous summary and no turns")
    _score(candidates, names)
    roles = {t.id: t.role for t in turns}
    for candidate in candidates[: len(candidates) - len(new)]:
        if candidate.score >= 0:  # kept before: as salient as a new disclosure
            candidate.score += DISCLOSURE_BONUS
    for candidate in new:
        if candidate.body.rstrip().endswith("?"):
            candidate.score = -1.0  # questions ask; they tell nothing to remember
        elif roles.get(candidate.turn_id or "") != Role.USER and _ECHO.match(
                clean_sentence(candidate.body, lowered)):
            candidate.score = -1.0  # the assistant telling the user about themselves
        elif candidate.score >= 0 and roles.get(candidate.turn_id or "") == Role.USER and (
                is_disclosure(clean_sentence(candidate.body, lowered))
                or _DECISION.search(candidate.body)):
            importance = score_importance(candidate.body, categorize(candidate.body), False)
            candidate.score += DISCLOSURE_BONUS * importance / 5
    return _finish(candidates, budget, names)

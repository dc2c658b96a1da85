"""The extractive user profile: facts and insights grouped by category, newest first to win.

:func:`summarize_items` merges new items (fact and insight texts, oldest first) into the
previous profile:

1. Every sentence gets a category: the insight categories (seed 001's financial-advisor
   categories by default, :func:`.reflection.category_of`), else a general life category
   (:func:`.facts.categorize`: family, work, hobby, ...), else ``other``.
2. Newer wins: of two sentences whose content terms overlap by at least
   :data:`NEWER_WINS_THRESHOLD` (Jaccard), only the later one competes.
3. The most salient sentences (centroid TF-IDF, :func:`.sentences.salience`, plus a small
   recency bonus) are kept within ``max_tokens``, counting each group's label once.
4. The profile is one line per category, in a fixed order: ``"Financial goals: Priya wants to
   retire by 60. ..."``. A stored profile is read back line by line, so its labels keep the
   sentences' categories.

Whose sentences go in is decided upstream: the pipeline passes only facts and insights, and
facts come only from what the user said (:mod:`.facts`), so no assistant sentence reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...config import FINANCIAL_ADVISOR_CATEGORIES
from ...errors import InvalidInputError
from ...tokens import count_tokens, truncate_tokens
from ..base import SummaryDraft
from .facts import CATEGORY_PRIORITY, categorize
from .reflection import category_of
from .sentences import content_terms, jaccard, salience, split_sentences
from .summarize import check_budget, key_topics, name_forms

NEWER_WINS_THRESHOLD = 0.6
"""Jaccard overlap above which two sentences are one statement and only the newer is kept."""
RECENCY_BONUS = 0.05
"""Salience added to the newest sentence (linearly less for older ones)."""
_LINE = re.compile(r"^(?P<label>[A-Z][a-z]+(?: [a-z]+){0,2}):\s+(?P<body>\S.*)$")
_DATED = re.compile(r"^\[[^\]]{1,40}\]\s*")


def label(category: str) -> str:
    """``"financial_goals"`` -> ``"Financial goals"``."""
    return category.replace("_", " ").capitalize()


class _Sentence:
    __slots__ = ("body", "category", "order", "score", "terms")

    def __init__(self, body: str, category: str, order: int) -> None:
        self.body = body
        self.category = category
        self.order = order
        self.terms: tuple[str, ...] = ()
        self.score = 0.0


def _categorize(text: str, categories: Sequence[str]) -> str:
    found = category_of(text, categories)[0]
    return found if found is not None else categorize(text)


def _read(text: str, categories: Sequence[str], by_label: dict[str, str],
          into: list[_Sentence]) -> None:
    """Split a stored profile or an item into sentences with their categories."""
    for line in text.splitlines():
        line = _DATED.sub("", line.strip())
        if not line:
            continue
        match = _LINE.match(line)
        known = by_label.get(match.group("label")) if match else None
        body = match.group("body") if match and known else line
        for sentence in split_sentences(body):
            category = known or _categorize(sentence, categories)
            into.append(_Sentence(sentence, category, len(into)))


def summarize_items(
    previous: str | None, items: Sequence[str], max_tokens: int,
    categories: Sequence[str] = FINANCIAL_ADVISOR_CATEGORIES,
) -> SummaryDraft:
    """Merge ``items`` (fact and insight texts, oldest first) into the ``previous`` profile.

    Args:
        previous: the stored profile text, or ``None``.
        items: new sentences about the user, oldest first.
        max_tokens: budget of the profile (:func:`agent_memory.tokens.count_tokens`).
        categories: the categories to group by before the general ones.

    Returns:
        A :class:`SummaryDraft` (``count_tokens(text) <= max_tokens``), one line per category;
        ``evidence`` is empty (items carry no turn ids; the pipeline keeps the source ids).

    Raises:
        InvalidInputError: ``max_tokens`` < 1, or there is nothing to summarize.
    """
    check_budget(max_tokens)
    order = [*categories, *(c for c in CATEGORY_PRIORITY if c not in categories), "other"]
    by_label = {label(c): c for c in order}
    sentences: list[_Sentence] = []
    _read(previous or "", categories, by_label, sentences)
    for item in items:
        _read(item, categories, by_label, sentences)
    if not sentences:
        raise InvalidInputError("nothing to summarize: no previous profile and no items")
    kept: list[_Sentence] = []
    for sentence in reversed(sentences):  # newest first: it shadows older near-duplicates
        sentence.terms = tuple(content_terms(sentence.body))
        if sentence.terms and any(
            jaccard(sentence.terms, newer.terms) >= NEWER_WINS_THRESHOLD for newer in kept
        ):
            continue
        kept.append(sentence)
    kept.reverse()
    scores = salience([s.body for s in kept], [s.terms for s in kept], name_forms(set()))
    total = len(sentences)
    for sentence, score in zip(kept, scores, strict=True):
        sentence.score = score + (RECENCY_BONUS * (sentence.order + 1) / total if score >= 0
                                  else 0.0)
    chosen: list[_Sentence] = []
    opened: set[str] = set()
    remaining = max_tokens
    for sentence in sorted(kept, key=lambda s: (-s.score, -s.order)):
        if sentence.score < 0 and chosen:
            break  # filler only fills an otherwise empty profile
        cost = count_tokens(sentence.body)
        if sentence.category not in opened:
            cost += count_tokens(f"{label(sentence.category)}:")
        if cost > remaining:
            continue
        chosen.append(sentence)
        opened.add(sentence.category)
        remaining -= cost
    if not chosen:  # every sentence is longer than the budget: cut the most salient one
        best = max(kept, key=lambda s: (s.score, s.order))
        return SummaryDraft(text=truncate_tokens(best.body, max_tokens),
                            key_topics=key_topics([best.body]))
    lines = []
    for category in order:
        group = sorted((s for s in chosen if s.category == category), key=lambda s: s.order)
        if group:
            lines.append(f"{label(category)}: " + " ".join(s.body for s in group))
    return SummaryDraft(text="\n".join(lines),
                        key_topics=key_topics([s.body for s in kept if s.score >= 0]))

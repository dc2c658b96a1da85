"""Offline session tasks: interaction metadata, session reflection, structured profile filling.

Session reflection works on the user's self-disclosures (:mod:`.facts`): each disclosed fact is
placed in an insight category by a keyword map (:data:`INSIGHT_KEYWORDS`; another category
by the words of its own name), else by the profile field it belongs to
(:data:`FIELD_CATEGORIES`). Its confidence is the fact's plus 0.1 for each other user turn
saying something similar (content-term Jaccard >= :data:`CORROBORATION_JACCARD`), at most
+0.2: a statement repeated across sessions becomes an insight when they are reflected on
together. Everything is deterministic.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ...errors import ModelUnavailableError
from ...models import Role, Turn, normalize_text
from ...profile_schema import schema_fields
from ..sessions_models import InsightDraft, InsightNote, InteractionDraft, SessionReflection
from .facts import extract_facts, keyword_hits
from .field_model import assign
from .select import shared_embedder
from .sentences import content_terms, entities, jaccard, split_sentences, words
from .summarize import key_topics, summarize_turns

INTERACTION_SUMMARY_TOKENS = 60
"""Budget of an interaction's extractive summary (tokens): one or two sentences."""

CORROBORATION_JACCARD = 0.3
"""Content-term overlap above which another user sentence corroborates an insight."""

INSIGHT_KEYWORDS: dict[str, tuple[str, ...]] = {
    "concern": ("worr*", "concern*", "afraid", "anxious", "nervous", "fear*", "scared",
                "stress*", "uncertain*", "unsure", "panic*", "crash*", "lose", "losing"),
    "risk_profile": ("risk*", "conservative", "aggressive", "moderate", "volatil*", "stocks",
                     "bonds", "crypto*", "speculat*", "tolerance", "index", "diversif*",
                     "comfortable with", "safe"),
    "financial_goals": ("retire*", "goal*", "save for", "saving for", "buy a house",
                        "down payment", "college fund", "pay off", "emergency fund", "target",
                        "plan to", "want to", "hope to", "dream", "by 20*"),
    "current_situation": ("salary", "income", "earn*", "debt*", "mortgage", "loan*",
                          "savings", "401k", "401(k)", "ira", "roth", "pension", "portfolio",
                          "rent", "expens*", "budget", "account*", "own", "inherit*"),
    "demographics": ("years old", "age", "married", "single", "divorced", "wife", "husband",
                     "kids", "children", "son", "daughter", "live", "lives", "living", "job",
                     "work", "works", "engineer", "teacher", "nurse", "doctor", "profession*",
                     "employ*", "family", "born"),
    "preference": ("prefer*", "rather", "quarterly", "monthly", "weekly", "email", "phone",
                   "call", "calls", "meet*", "in person", "communicat*", "report*",
                   "detail*", "simple", "like to", "updates"),
}
"""Keywords per insight category: whole words, ``prefix*`` stems and phrases. Ties go to the
category listed first (a worry about volatility is a concern before a risk profile); concern
hits count twice, since a stated worry outweighs the topic it is about."""

FIELD_CATEGORIES: dict[str, str] = {
    "name": "demographics", "age": "demographics", "occupation": "demographics",
    "location": "demographics", "family": "demographics", "finances": "current_situation"}
"""The insight category of a fact no keyword places, from the profile field the field model
files it under (:mod:`.field_model`): demographics are age, family status and employment
("The user is 52", "The user teaches chemistry in Accra"), money is the current situation.
Goals, tastes and hobbies are no category of their own here: the default categories mean
financial goals and communication preferences."""

_AMOUNT = re.compile(r"\$\s?\d[\d,.]*\s?(?:[kKmM]\b|million|thousand)?|\b\d+(?:\.\d+)?\s?%|"
                     r"\b\d{3}\s?\(?k\)?(?=\W|$)")


def _prototype(category: str) -> tuple[str, ...]:
    return tuple(w + "*" for w in re.split(r"[_\W]+", category.lower()) if len(w) > 2)


def category_of(text: str, categories: Sequence[str]) -> tuple[str | None, int]:
    """The insight category of ``text`` among ``categories`` and its keyword hit count.

    Returns ``(None, 0)`` when no keyword of an allowed category occurs.
    """
    tokens = words(text)
    best: tuple[str | None, int] = (None, 0)
    ordered = [c for c in INSIGHT_KEYWORDS if c in categories]
    ordered += [c for c in categories if c not in INSIGHT_KEYWORDS]
    for category in ordered:
        hits = keyword_hits(tokens, INSIGHT_KEYWORDS.get(category, _prototype(category)))
        if category == "concern":
            hits *= 2  # a stated worry outweighs the topic it is about
        if hits > best[1]:
            best = (category, hits)
    return best


def describe_interaction(turns: Sequence[Turn]) -> InteractionDraft:
    """Summary (salient sentences, :data:`INTERACTION_SUMMARY_TOKENS`), topics and entities
    (capitalised names, amounts, percentages, plan names like 401k) of ``turns``."""
    draft = summarize_turns(None, turns, INTERACTION_SUMMARY_TOKENS)
    names = {t.speaker.lower() for t in turns if t.speaker}
    found: list[str] = []
    for turn in turns:
        for sentence in split_sentences(turn.content):
            found += entities(sentence, names)
            found += [m.group(0).strip() for m in _AMOUNT.finditer(sentence)]
    unique = list(dict.fromkeys(e for e in found if e))
    topics = draft.key_topics or key_topics([t.content for t in turns])
    return InteractionDraft(summary=draft.text, topics=topics[:5], entities=unique[:20])


def reflect_session(turns: Sequence[Turn], categories: Sequence[str]) -> SessionReflection:
    """Insights from the user's self-disclosures in ``turns`` (see the module docstring).

    Returns:
        ``reflection_flag="insight"`` with one insight per categorised disclosure (at most one
        per identical text), or ``"no-insight"`` with none.
    """
    user_turns = [t for t in turns if t.role == Role.USER]
    sentences = [(t.id, content_terms(s)) for t in user_turns for s in split_sentences(t.content)]
    insights: list[InsightDraft] = []
    seen: set[str] = set()
    facts = extract_facts(user_turns).facts
    filed = _filed_categories([f.text for f in facts], [f.subject for f in facts], categories)
    for fact, by_field in zip(facts, filed, strict=True):
        category = category_of(fact.text, categories)[0] or by_field
        key = normalize_text(fact.text)
        if category is None or key in seen:
            continue
        seen.add(key)
        terms = content_terms(fact.text)
        support = [tid for tid, other in sentences
                   if tid not in fact.evidence and jaccard(terms, other) >= CORROBORATION_JACCARD]
        support = list(dict.fromkeys(support))
        confidence = min(0.99, fact.confidence + 0.1 * min(2, len(support)))
        insights.append(InsightDraft(
            category=category, insight_text=fact.text, confidence=round(confidence, 2),
            importance=fact.importance or 5, evidence=[*fact.evidence, *support]))
    return SessionReflection(reflection_flag="insight" if insights else "no-insight",
                             insights=insights)


def _filed_categories(texts: Sequence[str], subjects: Sequence[str | None],
                      categories: Sequence[str]) -> list[str | None]:
    """The category :data:`FIELD_CATEGORIES` gives each of ``texts`` (``None`` when the field
    model files it nowhere, under a field with no category, or one not in ``categories``, and
    for all of them when the local embedding model cannot load)."""
    if not texts or not set(FIELD_CATEGORIES.values()) & set(categories):
        return [None] * len(texts)
    try:
        found = assign(shared_embedder().embed_sync, texts, subjects, schema_fields())
    except ModelUnavailableError:
        return [None] * len(texts)
    return [category if (category := FIELD_CATEGORIES.get(a.field or "")) in categories
            else None for a in found]


def _kind(annotation: Any) -> str | None:
    """``"list"`` for list[str]-like fields, ``"text"`` for str / str | None, else None."""
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        args = typing.get_args(annotation)
        return "list" if not args or args[0] is str else None
    if annotation is str:
        return "text"
    if origin in (typing.Union, types.UnionType):
        kinds = {_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def field_categories(name: str, info: Any, categories: set[str]) -> list[str]:
    """Insight categories a profile field takes: ``json_schema_extra["insight_categories"]``,
    else the field's own name when it is a category."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, Mapping) else {}
    declared = extra.get("insight_categories")
    if declared:
        return [str(c) for c in declared]
    return [name] if name in categories else []


def fill_profile(
    model: type[BaseModel], previous: Mapping[str, Any] | None, notes: Sequence[InsightNote]
) -> dict[str, Any]:
    """Fill what can be filled deterministically in a structured profile (not validated here).

    For each field of ``model`` that takes insight categories (:func:`field_categories`):
    a list of strings gets the new insights' texts appended (an older entry overlapping a newer
    one by Jaccard >= 0.6 is replaced: newer wins); a string field takes the newest insight's
    text. Other fields keep their previous value.
    """
    data: dict[str, Any] = dict(previous or {})
    note_categories = {n.category for n in notes if n.category}
    ordered = sorted(notes, key=lambda n: n.created_at)
    for name, info in model.model_fields.items():
        kind = _kind(info.annotation)
        wanted = set(field_categories(name, info, note_categories))
        matching = [n.text for n in ordered if n.category in wanted]
        if kind is None or not matching:
            continue
        if kind == "text":
            data[name] = matching[-1]
            continue
        current = [str(v) for v in data.get(name) or []]
        for text in matching:
            terms = content_terms(text)
            current = [old for old in current if jaccard(content_terms(old), terms) < 0.6]
            current.append(text)
        data[name] = current
    return data

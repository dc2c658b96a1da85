"""Words of a fact that point outside it, replaced by what they stand for in the talk.

A clause worth a fact often leans on what was said just before: "Did you make that plate?" /
"Yeah, I made it in pottery class", "I've got a hand-painted bowl. A friend made it for my
18th birthday", "I made this bowl in my class". On its own the note says "made it" or "this
bowl", and the reader of the memory never saw the plate. :func:`resolve_references` rewrites
the first such word (:func:`.reference.outside_token`) of a clause, still in the speaker's
own words, before it is put in the third person:

- "it" or "its", or "this"/"that" as an object ("I painted this"), becomes the one noun
  phrase that can stand for it in the nearest sentence before it that has any: the clause's
  own turn first (its earlier sentences, last first), then the other speaker's turn before
  it. A candidate is a phrase whose head is a common noun of the pronoun's number, not a
  person, a time, a light noun ("idea", "way", "thing") or the term of a comparison ("looks
  like a sunset"). Two candidates in that sentence leave the pronoun as it is: a wrong
  referent is worse than a vague one (the nearest-sentence search with agreement filters is
  the core of Hobbs's naive algorithm and of Lappin & Leass's salience ranking: J. R. Hobbs,
  "Resolving pronoun references", *Lingua* 44, 1978; S. Lappin & H. J. Leass, "An algorithm
  for pronominal anaphora resolution", *Computational Linguistics* 20(4), 1994).
- a demonstrative before a noun ("this bowl", "those dance classes") becomes the speaker's
  possessive when the talk called the thing the speaker's ("my studio" before, or "your
  studio" from the listener): "this studio" -> "my studio"; else "the" ("made the bowl in my
  class").

The phrase brought in is the speaker's: from the listener's turn, "your" is the speaker's
"my", the listener's own "my" is the listener's name with "'s", and a demonstrative is "the".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .lexicon import BE, RELATIONS
from .parse import parse
from .reference import outside_token
from .sentences import word_set

_PRONOUNS = {"it": "NN", "its": "NN"}
"""Pronouns resolved, with the tag of the noun each stands for (number agreement). Not
"them" or "they", which stand for people as often as for things."""
_DEMONSTRATIVES = word_set("this that these those")
_BARE = word_set("this that")
"""Demonstratives standing alone as the object of a verb ("I painted this after ...") are
resolved as "it" is; as a subject ("that was the best part") they mostly stand for an event."""
_LIGHT_NOUNS = word_set(
    "idea ideas thing things stuff way ways lot lots time times kind sort bit part one ones "
    "day days week weeks month months year years moment moments pic pics picture pictures "
    "photo photos shot shots snap question questions news something anything everything "
    "nothing feeling feelings sense look")
"""Nouns too general to be what a pronoun stands for in a note ("What gave you the idea to
paint it?": the idea is not what was painted), and the nouns of the photos a chat shares."""
_PEOPLE = ("PERSON", "NORP", "DATE", "TIME")
_LIKENESS = word_set("like as than")
_SEEMING = BE | word_set("look looks looked looking sound sounds sounded seem seems seemed "
                         "feel feels felt")
"""After these verbs, "like a real sunset" is a comparison: it says what the thing resembles,
not what it is ("things like my quilt" gives an example)."""


@dataclass(frozen=True, slots=True)
class Context:
    """A sentence said before the clause: its text and whether its speaker is the clause's
    own (``False``: the other speaker, named ``speaker``)."""

    text: str
    own: bool
    speaker: str | None = None


def _candidates(doc: Any, tag: str) -> list[Any]:
    """Noun phrases of ``doc`` a pronoun of the noun tag ``tag`` can stand for."""
    return [chunk for chunk in doc.noun_chunks
            if chunk.root.tag_ == tag and chunk.root.pos_ == "NOUN"
            and chunk.root.lower_ not in _LIGHT_NOUNS and chunk.root.lower_ not in RELATIONS
            and chunk.root.ent_type_ not in _PEOPLE
            and not (chunk.root.head.lower_ in _LIKENESS
                     and chunk.root.head.head.lower_ in _SEEMING)
            and not any(t.tag_ in ("WDT", "WP", "WP$") for t in chunk)]


def _spoken_by_self(chunk: Any, context: Context) -> str:
    """The noun phrase as the clause's speaker says it (see the module docstring)."""
    out = []
    for token in chunk:
        word = token.text
        lowered = token.lower_
        if token.dep_ in ("det", "poss") and token.i == chunk.start:
            if lowered in _DEMONSTRATIVES:
                word = "the"
            elif not context.own and lowered in ("your", "yours"):
                word = "my"
            elif not context.own and lowered in ("my", "our"):
                if not context.speaker:
                    return ""
                word = f"{context.speaker}'s"
        out.append(word + token.whitespace_)
    if not any(t.dep_ in ("det", "poss") for t in chunk.root.children):
        out.insert(0, "the ")  # "painting" in a parse that took "that" for a pronoun
    return "".join(out).strip()


def _antecedent(tag: str, context: Sequence[Context]) -> str | None:
    """The phrase the pronoun stands for, or ``None`` (none, or two in the nearest sentence
    that has any)."""
    docs = parse([c.text for c in context])
    for item, doc in zip(reversed(context), reversed(docs), strict=True):
        found = _candidates(doc, tag)
        if len(found) == 1:
            return _spoken_by_self(found[0], item) or None
        if found:
            return None
    return None


def _stem(word: str) -> str:
    """A noun without its plural "s" ("studios" -> "studio")."""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _possessive(noun: Any, context: Sequence[Context]) -> str | None:
    """"my"/"our" when the talk called ``noun`` the speaker's ("my studio", or the listener's
    "your studio"), else ``None``."""
    docs = parse([c.text for c in context])
    for item, doc in zip(context, docs, strict=True):
        for token in doc:
            if token.pos_ != "NOUN" or _stem(token.lower_) != _stem(noun.lower_):
                continue
            owner = next((c.lower_ for c in token.children if c.dep_ == "poss"), None)
            if item.own and owner in ("my", "our"):
                return owner
            if not item.own and owner == "your":
                return "my"
    return None


def resolve_references(text: str, context: Sequence[Context]) -> str:
    """``text`` (a clause in the speaker's words) with its first word that points outside it
    replaced by what it stands for in ``context`` (see the module docstring); ``text`` as it
    is when there is none, or when what it stands for is not clear.

    Args:
        text: the clause, first person ("I made it in pottery class").
        context: the sentences said before it, oldest first: the other speaker's turn before,
            then the earlier sentences of the clause's own turn.

    Returns:
        The clause with the word replaced, e.g. "I made the plate in pottery class".
    """
    if not context:
        return text
    doc = parse([text])[0]
    token = outside_token(doc)
    if token is None:
        return text
    word = token.lower_
    if word in _PRONOUNS or word in _BARE and token.dep_ in ("dobj", "pobj"):
        phrase = _antecedent(_PRONOUNS.get(word, "NN"), context)
        if phrase is None:
            return text
        if word == "its":
            phrase += "'s"
        if token.i == 0:
            phrase = phrase[:1].upper() + phrase[1:]
    elif word in _DEMONSTRATIVES and token.dep_ == "det":
        phrase = _possessive(token.head, context) or "the"
        if token.i == 0:
            phrase = phrase.capitalize()
    else:
        return text
    return f"{doc[:token.i].text_with_ws}{phrase}{token.whitespace_}{doc[token.i + 1:].text}"

"""Words of a fact that point outside it, replaced by what they stand for in the talk.

A clause worth a fact often leans on what was said just before: "Did you make that plate?" /
"Yes, I knitted it over the winter", "I still keep my grandfather's watch. He wore it every
day", "I built this shelf in woodwork class". On its own the note says "knitted it" or "this
shelf", and the reader of the memory never saw the scarf. :func:`resolve_references` rewrites
the first such word (:func:`.reference.outside_token`) of a clause, still in the speaker's
own words, before it is put in the third person:

- "it" or "its", or "this"/"that" as an object ("I painted this"), becomes the one noun
  phrase that can stand for it in the nearest sentence before it that has any: the clause's
  own turn first (its earlier sentences, last first), then the other speaker's turn before
  it. A candidate is the subject or object of its sentence, its head a common noun of the
  pronoun's number, not a person, a time, a light noun ("idea", "thing") or the term of a
  comparison ("looks like a sunset"); it is taken only when it is the sentence's one
  candidate and names one thing both speakers have before them: with a demonstrative
  ("that plate", the thing in a shared photo) or as the speaker's own ("my quilt", or "your
  quilt" from the listener). Otherwise the pronoun stays as it is ("My garden gave a huge
  pumpkin. I carved it": garden or pumpkin): a wrong referent is worse than a vague one. The
  nearest-sentence search with agreement filters is the core of Hobbs's naive algorithm,
  the preference for subjects and objects Lappin & Leass's salience ranking (J. R. Hobbs,
  "Resolving pronoun references", *Lingua* 44, 1978; S. Lappin & H. J. Leass, "An algorithm
  for pronominal anaphora resolution", *Computational Linguistics* 20(4), 1994); the
  demonstrative or possessive is the narrowing that keeps it right: read by hand on LoCoMo,
  a search over any noun phrase named the wrong thing in about a third of the cases.
- a demonstrative before a noun becomes the speaker's possessive when the talk called the
  thing the speaker's ("my studio" before, or "your studio" from the listener): "this
  studio" -> "my studio". Otherwise it stays: "the" would name nothing more, and a set phrase
  ("in this way", "this time") would break.

Phrases that name no one thing ("no prob", "by any chance"), the predicate of "be" ("it is a
huge deal"), and the other speaker's own things told with "I" or "we" ("I baked an apple pie")
are no candidates. The pronoun stays in a set phrase with a second object ("gave it everything")
and when "its" is a misspelled "it's" ("its been a long road").

The phrase brought in is the speaker's: from the listener's turn, "your" is the speaker's
"my", and a demonstrative is "the".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .lexicon import BE, DEMONSTRATIVES, PEOPLE_NOUNS
from .parse import parse
from .reference import outside_token
from .sentences import word_set, words

_PRONOUNS = {"it": "NN", "its": "NN"}
"""Pronouns resolved, with the tag of the noun each stands for (number agreement). Not
"them" or "they", which stand for people as often as for things."""
_POINTING = DEMONSTRATIVES | frozenset(_PRONOUNS)
"""The words this module can replace; a clause with none of them is not parsed again."""
_BARE = word_set("this that")
"""Demonstratives standing alone as the object of a verb ("I painted this after ...") are
resolved as "it" is; as a subject ("that was the best part") they mostly stand for an event."""
_LIGHT_NOUNS = word_set(
    "idea ideas thing things stuff way ways lot lots time times kind sort bit part one ones "
    "day days week weeks month months year years moment moments pic pics picture pictures "
    "photo photos shot shots snap question questions news something anything everything "
    "nothing feeling feelings sense look")
"""Nouns too general to be what a pronoun stands for in a note ("Where did you get the idea to
carve it?": the idea is not what was carved), and the nouns of the photos a chat shares."""
_PEOPLE = ("PERSON", "NORP", "DATE", "TIME")
_SALIENT = ("nsubj", "nsubjpass", "dobj", "ROOT", "conj")
"""Grammatical roles of a phrase a pronoun can stand for: the subject or the object of its
sentence (the top of Lappin & Leass's salience ranking), one joined to it ("my sofa and my
mirror": two candidates), or a sentence of its own ("What a cake!"); not a place or a
measure in a prepositional phrase ("chilled it in the fridge", "a ton of work"), nor the
predicate of "be" ("it is a huge deal")."""
_NOT_REFERRING = word_set("no any every each")
"""Determiners of a phrase that names no one thing ("no prob", "by any chance")."""
_LIKENESS = word_set("like as than")
_SEEMING = BE | word_set("look looks looked looking sound sounds sounded seem seems seemed "
                         "feel feels felt")
"""After these verbs, "like a real sunset" is a comparison: it says what the thing resembles,
not what it is ("things like my quilt" gives an example)."""


@dataclass(frozen=True, slots=True)
class Context:
    """A sentence said before the clause: its text and whether its speaker is the clause's
    own (``False``: the other speaker's); ``parallel``: the words of the clause's own sentence
    before it, of a clause joined to it ("I used to hate cilantro but now I love it"), whose
    one object a pronoun stands for even when not pointed at (parallel clauses keep their
    objects: Hobbs, "Resolving pronoun references", *Lingua* 44, 1978)."""

    text: str
    own: bool
    parallel: bool = False


def _candidates(doc: Any, tag: str, own: bool) -> list[Any]:
    """Noun phrases of ``doc`` (said by the clause's speaker when ``own``) a pronoun of the
    noun tag ``tag`` can stand for."""
    return [chunk for chunk in doc.noun_chunks
            if chunk.root.tag_ == tag and chunk.root.pos_ == "NOUN"
            and chunk.root.dep_ in _SALIENT
            and chunk.root.lower_ not in _LIGHT_NOUNS and chunk.root.lower_ not in PEOPLE_NOUNS
            and chunk.root.ent_type_ not in _PEOPLE
            and not (chunk.root.head.lower_ in _LIKENESS
                     and chunk.root.head.head.lower_ in _SEEMING)
            and not any(t.tag_ in ("WDT", "WP", "WP$") for t in chunk)
            and not any(t.dep_ == "det" and t.lower_ in _NOT_REFERRING for t in chunk)
            and not (not own and _first_person_subject(chunk))]


def _pointed_at(chunk: Any, own: bool) -> bool:
    """Whether ``chunk`` names one thing both speakers have before them: with a demonstrative
    ("that plate", "this painting": the thing in a shared photo or just named) or as the
    speaker's own ("my bowl", or "your bowl" from the listener)."""
    first = chunk[0].lower_
    return first in DEMONSTRATIVES or first in (("my", "our") if own else ("your",))


def _first_person_subject(chunk: Any) -> bool:
    """Whether ``chunk`` sits in a clause whose subject is "I" or "we": the other speaker's own
    things ("I baked an apple pie") are not what the speaker's "it" stands for."""
    verb = next((a for a in chunk.root.ancestors if a.pos_ in ("VERB", "AUX")), None)
    return verb is not None and any(
        c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in ("i", "we") for c in verb.children)


def _spoken_by_self(chunk: Any, context: Context) -> str:
    """The noun phrase as the clause's speaker says it (see the module docstring)."""
    out = []
    for token in chunk:
        word = token.text
        lowered = token.lower_
        if token.dep_ in ("det", "poss") and token.i == chunk.start:
            if lowered in DEMONSTRATIVES or lowered in ("a", "an"):
                word = "the"  # "a bike" named, then "it": the bike
            elif not context.own and lowered in ("your", "yours"):
                word = "my"
        out.append(word + token.whitespace_)
    if not any(t.dep_ in ("det", "poss") for t in chunk.root.children) and not (
            context.parallel and chunk.root.tag_ in ("NN", "NNS")):
        out.insert(0, "the ")  # "painting" in a parse that took "that" for a pronoun; a bare
        # noun of the parallel clause stays bare: "hated cilantro but now I love it" -> cilantro
    elif chunk[0].pos_ != "PROPN":
        out[0] = out[0].lower()  # "That plate is awesome" -> "the plate"
    return "".join(out).strip()


def _parsed(texts: Sequence[str], memo: dict[str, Any] | None) -> list[Any]:
    """The parses of ``texts``, each parsed once per ``memo`` (a dict the caller keeps for one
    extraction: the same sentences are the context of many clauses); no memo, parsed now."""
    if memo is None:
        return parse(texts)
    missing = list(dict.fromkeys(t for t in texts if t not in memo))
    memo.update(zip(missing, parse(missing), strict=True))
    return [memo[t] for t in texts]


def _antecedent(tag: str, context: Sequence[Context],
                memo: dict[str, Any] | None = None) -> str | None:
    """The phrase the pronoun stands for, or ``None`` (none, or two in the nearest sentence
    that has any)."""
    docs = _parsed([c.text for c in context], memo)
    for item, doc in zip(reversed(context), reversed(docs), strict=True):
        found = _candidates(doc, tag, item.own)
        if len(found) == 1 and (item.parallel or _pointed_at(found[0], item.own)):
            return _spoken_by_self(found[0], item) or None
        if found:
            return None
    return None


def _stem(word: str) -> str:
    """A noun without its plural "s" ("studios" -> "studio")."""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _possessive(noun: Any, context: Sequence[Context],
                memo: dict[str, Any] | None = None) -> str | None:
    """"my"/"our" when the talk called ``noun`` the speaker's ("my studio", or the listener's
    "your studio"), else ``None``."""
    docs = _parsed([c.text for c in context], memo)
    for item, doc in zip(context, docs, strict=True):
        if item.text.rstrip().endswith("?") and any(t.tag_ in ("WP", "WDT") for t in doc):
            continue  # "What's your favorite genre?" says nothing about which
        for token in doc:
            if token.pos_ != "NOUN" or _stem(token.lower_) != _stem(noun.lower_):
                continue
            owner = next((c.lower_ for c in token.children if c.dep_ == "poss"), None)
            if item.own and owner in ("my", "our"):
                return owner
            if not item.own and owner == "your":
                return "my"
    return None


GO_WORDS = word_set("go goes went")
"""Forms of "go" whose activity a speaker leaves out when just named ("I love running. I go
three mornings a week")."""
_HOW_OFTEN = word_set("once twice often regularly usually always still now sometimes also "
                      "too even mostly every")
_TIMES = word_set("morning mornings evening evenings night nights day days week weeks weekend "
                  "weekends month months year years time times")


def _bare_go(doc: Any) -> Any | None:
    """The "go" of a clause that says when or how often but not where or to do what ("I go
    three mornings a week", "I went twice last month"): its dependents are its subject,
    auxiliaries, words of frequency and times only; ``None`` otherwise ("I go there every
    week", "I go to the gym")."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lower_ not in GO_WORDS:
        return None
    for child in root.children:
        if child.dep_ in ("nsubj", "punct", "aux", "neg", "cc") or child.dep_ == "advmod" and (
                child.lower_ in _HOW_OFTEN) or child.dep_ in ("dobj", "npadvmod") and (
                child.ent_type_ in ("DATE", "TIME") or child.lower_ in _TIMES):
            continue
        return None
    return root


def _when(token: Any) -> bool:
    """A dependent of a gerund that only says when: an adverb, or a time phrase ("in May")."""
    return token.dep_ in ("advmod", "npadvmod") or token.dep_ == "prep" and all(
        t.ent_type_ in ("DATE", "TIME") for t in token.subtree if t != token)


def _activity(context: Sequence[Context], memo: dict[str, Any] | None) -> str | None:
    """The one activity the speaker just named: a gerund taken by a verb ("I love running",
    "I started swimming in May") in the nearest sentence of their own before that has any;
    ``None`` when there is none or more than one."""
    own = [c for c in context if c.own]
    for doc in reversed(_parsed([c.text for c in own], memo)):
        found = [t for t in doc if t.tag_ == "VBG" and t.dep_ in ("xcomp", "dobj", "pcomp")
                 and t.head.pos_ == "VERB" and all(_when(c) for c in t.children)]
        if len(found) == 1:
            return found[0].lower_
        if found:
            return None
    return None


def resolve_ellipsis(text: str, context: Sequence[Context],
                     memo: dict[str, Any] | None = None) -> str:
    """``text`` with the activity a bare "go" leaves out put back from the speaker's sentence
    before: "I go three mornings a week" after "I actually love running now" -> "I go running
    three mornings a week"; ``text`` as it is when the "go" says where or what, or the activity
    is not clear (:func:`_activity`). A verb phrase left out after "go" is restored from the
    nearest antecedent clause, the usual reading of VP ellipsis (D. Hardt, "An algorithm for
    VP ellipsis", ACL 1992, nearest antecedent first).

    Args:
        text: the clause, first person.
        context: as for :func:`resolve_references`.
        memo: text -> parse, shared across the clauses of one extraction.

    Raises:
        ConfigError: spaCy or its model is missing (:func:`.parse.parser`).
    """
    if not context or not GO_WORDS.intersection(words(text)):
        return text
    doc = _parsed([text], memo)[0]
    go = _bare_go(doc)
    if go is None or (activity := _activity(context, memo)) is None:
        return text
    end = go.idx + len(go.text)
    return f"{text[:end]} {activity}{text[end:]}"


def resolve_references(text: str, context: Sequence[Context],
                       memo: dict[str, Any] | None = None) -> str:
    """``text`` (a clause in the speaker's words) with its first word that points outside it
    replaced by what it stands for in ``context`` (see the module docstring); ``text`` as it
    is when there is none, or when what it stands for is not clear.

    Args:
        text: the clause, first person ("I knitted it over the winter").
        context: the sentences said before it, oldest first: the other speaker's turn before,
            then the earlier sentences of the clause's own turn.
        memo: text -> parse, kept by the caller across the clauses of one extraction so each
            sentence is parsed once.

    Returns:
        The clause with the word replaced, e.g. "I knitted the scarf over the winter".
    """
    if not context or not _POINTING.intersection(w.split("'")[0] for w in words(text)):
        return text  # nothing this resolves: no parse
    doc = _parsed([text], memo)[0]
    token = outside_token(doc)
    if token is None:
        return text
    word = token.lower_
    if word == "its" and token.i + 1 < len(doc) and doc[token.i + 1].pos_ in ("VERB", "AUX"):
        return text  # "its been a long road": "it's", the situation
    if (word in _PRONOUNS or word in _BARE and token.dep_ in ("dobj", "pobj")) and not any(
            c.dep_ in ("dobj", "dative", "attr") and c != token for c in token.head.children):
        # not "gave it everything", where the pronoun is part of a set phrase
        phrase = _antecedent(_PRONOUNS.get(word, "NN"), context, memo)
        if phrase is None:
            return text
        if word == "its":
            phrase += "'s"
        if token.i == 0:
            phrase = phrase[:1].upper() + phrase[1:]
    elif word in DEMONSTRATIVES and token.dep_ == "det" and (
            token.head.lower_ not in _LIGHT_NOUNS) and (
            phrase := _possessive(token.head, context, memo)) is not None:
        if token.i == 0:
            phrase = phrase.capitalize()
    else:
        return text
    return f"{doc[:token.i].text_with_ws}{phrase}{token.whitespace_}{doc[token.i + 1:].text}"

"""Whether a fact stands alone: the words in it that point outside it.

A note such as "Tim is a huge fan of this genre", "A friend made it for Caroline's birthday"
or "Nature has that effect on Tim" was clear in the conversation and is not on its own: the
genre, the gift and the effect were named in another sentence. Read from the dependency
parse of the fact (:func:`.parse.parse`), :func:`outside_reference` finds the first such word:

- a demonstrative ("that", "those", a bare "this"/"these" before a noun, or one standing for
  a noun in the main clause: "that was the best part"), unless it picks out a time ("that
  day") or stands for the main clause before it ("Tim wants to retire at 60 if that's
  realistic");
- "it" or "its" that stands for a thing not named before it in the fact ("A friend made it
  for Tim"; not "a cake with berries on it", nor "sold everything and regretted it", where it
  stands for the clause before), and not the "it" of "it's been a long week for Tim" or "it's
  important to Tim to ...";
- a third-person pronoun before the subject is named ("Her advocacy inspires Tim", "Their
  love helped Tim": the singular "they" a fact uses for its subject comes after the name);
- a conjunct opening the fact that links it to a clause before ("So Tim can enjoy the
  games", "Otherwise Tim would lose"; not "So far, ...");
- "one" standing for a noun ("Tim's favorite one").

"this" and "these" before a described noun are the spoken indefinite ("I met this amazing
woman", "we found these old notebooks"), a new thing introduced, not one pointed back to;
:func:`indefinite` tells them apart so that a fact can say "an amazing woman" (E. F. Prince,
"On the inferencing of indefinite-this NPs", 1981).
"""

from __future__ import annotations

from typing import Any

from .lexicon import BE as _BE
from .lexicon import DEMONSTRATIVES, PEOPLE_NOUNS
from .sentences import word_set

_THIRD = word_set("he him his she her hers himself herself they them their theirs themselves")
"""Third-person pronouns: before the person is named they are someone else's."""
_CONNECTIVES = word_set("so otherwise therefore thus hence instead then")
"""Conjuncts that link to a clause before (Quirk et al. 1985, ch. 8): "So Tim can ..."."""
_DESCRIBED = ("amod", "prep", "relcl", "acl", "nummod", "appos")
"""Dependents of a noun that describe it: "this amazing book", "this book from the 1900s"."""
_TIME = ("DATE", "TIME")
_DEICTIC = word_set("next last past same other whole very particular exact only first final")
"""Adjectives that point as the demonstrative does ("this next game", "this same spot")."""
_SPANS = word_set("time times day days week weeks month months year years moment moments "
                  "season seasons point stage weekend")
"""Nouns of time: "these tough times" is the present, not a new thing."""
_PEOPLE = ("PERSON", "NORP")
_PREDETERMINERS = word_set("all both half")
_SAME_CLAUSE = ("xcomp", "aux", "auxpass")
"""A verb of the same clause as its head ("wants to raise it": "raise" belongs to "wants")."""
_LATER_CLAUSE = ("conj", "advcl", "relcl", "ccomp", "parataxis")
"""Clauses that can follow the one whose content a pronoun stands for."""


def indefinite(token: Any) -> bool:
    """Whether ``token`` is a spoken indefinite "this"/"these": the determiner of a noun that
    is described ("this amazing woman", "these old notebooks", "this book from the 1900s"),
    outside a time phrase ("this past week"), not before a name ("this game Catan") and not
    after a predeterminer ("all these tools" are ones already in view)."""
    noun = token.head
    described = [c for c in noun.children if c.dep_ in _DESCRIBED]
    return (token.lower_ in ("this", "these") and token.dep_ == "det"
            and noun.pos_ == "NOUN" and noun.ent_type_ not in _TIME
            and noun.lower_ not in _SPANS and bool(described)
            and not (token.i and token.doc[token.i - 1].lower_ in _PREDETERMINERS)
            and not any(c.dep_ == "appos" or c.lower_ in _DEICTIC for c in described))


def a_or_an(word: str) -> str:
    """The indefinite article before ``word``: "an" before a vowel letter, else "a"."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def article(token: Any) -> str:
    """The indefinite article or quantifier that replaces an :func:`indefinite` ``token``:
    "some" for "these", else :func:`a_or_an` of the next word, capitalised as ``token`` is."""
    if token.lower_ == "these":
        word = "some"
    else:
        word = a_or_an(token.doc[token.i + 1].text if token.i + 1 < len(token.doc) else "")
    return word.capitalize() if token.text[:1].isupper() else word


def _expletive_it(token: Any) -> bool:
    """ "it" as a dummy subject: of "be" ("it's been a long week for Tim") or of a verb whose
    real subject follows ("it's important to Tim to ...", "it makes sense that ...")."""
    if token.dep_ == "expl":
        return True
    verb = token.head
    return token.dep_ in ("nsubj", "nsubjpass") and (verb.lower_ in _BE or any(
        c.dep_ in ("xcomp", "ccomp", "csubj") and c.i > token.i for c in verb.children))


def _after_a_clause(token: Any) -> bool:
    """Whether a pronoun sits in a clause that follows the main one, whose content it can
    stand for ("... if that's realistic", "kids who never had that", "sold everything and
    regretted it"). Not in the object clause of the main verb ("Jon is hoping it'll give
    him tips"): that clause is part of the main one, so the pronoun cannot stand for it."""
    root = token.sent.root
    head = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")
                 and a.dep_ not in _SAME_CLAUSE), root)
    if head.dep_ == "ccomp" and head.head == root:
        return False
    return head != root and head.dep_ in _LATER_CLAUSE and token.i > root.i


def outside_reference(doc: Any, subject: str | None = None) -> str | None:
    """The first word of a parsed fact that points outside it (see the module docstring), or
    ``None`` when the fact stands alone.

    Args:
        doc: the spaCy ``Doc`` of the fact (:func:`.parse.parse`).
        subject: the person the fact is about: a pronoun after their name may be theirs
            (``None``: after the first proper noun).
    """
    token = outside_token(doc, subject)
    return None if token is None else token.text


def outside_token(doc: Any, subject: str | None = None) -> Any | None:
    """The token :func:`outside_reference` names (a spaCy ``Token``), or ``None``."""
    named = subject.split()[0].lower() if subject else None
    first = next((t.i for t in doc if (t.lower_ == named if named else t.pos_ == "PROPN")),
                 len(doc))
    for token in doc:
        word = token.lower_
        if word in DEMONSTRATIVES and token.tag_ == "DT":
            if token.dep_ == "det" and (token.head.ent_type_ in _TIME or indefinite(token)):
                continue
            if token.dep_ != "det" and _after_a_clause(token):
                continue  # "Tim would like to retire by 60 if that's realistic"
            return token
        if word in ("it", "its") and not (word == "it" and (
                _expletive_it(token) or _after_a_clause(token))) and not any(
                t.pos_ == "NOUN" and t.lower_ not in PEOPLE_NOUNS and t.ent_type_ not in _PEOPLE
                for t in doc[:token.i]):  # "a cake with berries on it": the cake
            return token
        if word in _THIRD and token.i < first:
            return token
        if word in _CONNECTIVES and token.i == token.sent.start and token.head == token.sent.root:
            return token  # not "So far, Tim has ...": there "so" modifies "far"
        if word == "one" and token.pos_ in ("NOUN", "PRON") and any(
                c.dep_ in ("det", "amod", "poss") for c in token.children):
            return token
    return None

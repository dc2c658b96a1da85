"""Named things of a speaker: a pet, a relative, a car the speaker has named, read again by name.

"My cat Miso is 14" names Miso as the speaker's cat; a later "Miso died on Sunday." has no
"I" or "my" and on its own is nobody's claim. :func:`named_things` reads the names a speaker
gives their own things in the turns at hand, and :func:`owned` writes a sentence that opens
with such a name as the speaker would have said it in full: "My cat Miso died on Sunday." It
then goes through the parse and the learned decision like any other sentence, and a fact from
it cites the turn that named the thing too, where the word "cat" is.

A name is read from the parse (spaCy ``en_core_web_sm``), in four shapes:

- a noun with "my"/"our" and the name after it: "my cat Miso", "our dog, Pip,";
- the name with the noun after it: "Miso, my cat, ...";
- a noun the speaker has "named"/"called" something, taken as their own: "I adopted a cat
  named Miso" (not "I met a woman named Rose");
- a noun whose name is given: "my dog's name is Pip".

Only a single capitalised word is a name here (not part of "Dr Lee" or "Mary-Jane"), and not
a speaker's, a place's or a date's; a later sentence is read only when the name is its
subject ("Miso died", not "Max capacity is 50" or "Miso, get off the table!") and the thing
was named in an earlier turn or in the same one;
the thing is the noun, without its adjectives ("my little sister Lena" is a sister). Names are
known only within the turns read together (the reasoner holds nothing between calls): a
window of the thread and the context the pipeline hands over, the turns before it and the
user's turns of earlier threads that named a thing the window calls by name alone
(:mod:`agent_memory.text.names`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...text.names import naming_pattern
from .parse import parse
from .sentences import word_set, words

_OWNERS = word_set("my our")
_NAMING = word_set("named called")
_MAY_NAME = naming_pattern(r"[A-Z][\w'-]*")
"""A capitalised word right after "my <noun>", "named"/"called" or "my <noun>'s name is", or
a sentence opening "<Name>, my ...": only such sentences are parsed for names (most
sentences with "my" name nothing, and each is parsed again as a claim)."""
_TAKING = word_set("have has had got get gets getting adopt adopted adopting rescued rescue "
                   "bought buy own owned bring brought took take")
"""Verbs by which a thing "named" or "called" something becomes the speaker's."""
_NOT_THINGS = frozenset({"DATE", "TIME", "GPE", "LOC", "FAC", "NORP", "EVENT", "MONEY"})
"""Entity types that are no name of a thing one owns ("my trip Lisbon", "my birthday May")."""


def _owned_noun(noun: Any) -> bool:
    return noun.pos_ == "NOUN" and any(
        c.dep_ == "poss" and c.lower_ in _OWNERS for c in noun.children)


def _proper(token: Any) -> bool:
    return (token.pos_ == "PROPN" or token.tag_ in ("NNP", "NNPS")) and token.text[:1].isupper()


def _name(token: Any, speakers: frozenset[str]) -> bool:
    """A one-word name: not part of a longer one ("Dr Lee", "Mary-Jane", "Frank Sinatra")."""
    doc = token.doc
    joined = any(0 <= k < len(doc) and (_proper(doc[k]) or doc[k].text == "-")
                 for k in (token.i - 1, token.i + 1))
    return _proper(token) and token.text.isalpha() and not joined \
        and token.lower_ not in speakers and token.ent_type_ not in _NOT_THINGS


def _things(doc: Any, speakers: frozenset[str]) -> dict[str, str]:
    """The names ``doc`` gives to the speaker's things: name (lower case) -> noun."""
    found: dict[str, str] = {}
    first_person = bool({"i", "we"} & {t.lower_ for t in doc})
    for token in doc:
        if not _name(token, speakers):
            continue
        before = doc[token.i - 1] if token.i > 0 else None
        if before is not None and before.is_punct and token.i > 1:
            before = doc[token.i - 2]  # "our dog, Pip,"
        noun = None
        if before is not None and _owned_noun(before) and token.dep_ in ("appos", "nsubj",
                                                                         "compound", "npadvmod"):
            noun = before  # "my cat Miso"
        elif token.dep_ == "appos" and _owned_noun(token.head):
            noun = token.head
        elif owned := next((c for c in token.children
                            if c.dep_ == "appos" and _owned_noun(c)), None):
            noun = owned  # "Miso, my cat, ..."
        elif token.dep_ == "oprd" and token.head.lower_ in _NAMING and first_person and (
                token.head.head.pos_ == "NOUN" and token.head.head.head.lower_ in _TAKING):
            noun = token.head.head  # "I adopted a cat named Miso"; not "I met a woman named
            # Rose", "I'm reading a book called Dune": met or read, not made one's own
        elif token.dep_ == "attr" and token.head.lower_ in ("is", "'s"):
            subject = next((c for c in token.head.children if c.dep_ == "nsubj"), None)
            if subject is not None and subject.lower_ == "name" and any(
                    c.dep_ == "poss" and _owned_noun(c) for c in subject.children):
                noun = next(c for c in subject.children if c.dep_ == "poss")  # "my dog's name
        if noun is not None:
            found.setdefault(token.lower_, noun.lower_)
    return found


def named_things(said: Mapping[str, Sequence[str]], speaker_of: Mapping[str, str],
                 speakers: frozenset[str]) -> dict[str, dict[str, tuple[str, str]]]:
    """The names each speaker gives their own things in ``said``.

    Args:
        said: turn id -> its sentences, in turn order.
        speaker_of: turn id -> the speaker's name.
        speakers: the speakers' names (whole and first), lower case: never a thing's name.

    Returns:
        speaker -> name (lower case) -> (noun, id of the turn that named it): the first
        naming wins.
    """
    with_names = [(turn_id, sentence) for turn_id, sentences in said.items()
                  for sentence in sentences if _MAY_NAME.search(sentence)]
    found: dict[str, dict[str, tuple[str, str]]] = {}
    for (turn_id, _), doc in zip(with_names, parse([s for _, s in with_names]), strict=True):
        for name, noun in _things(doc, speakers).items():
            found.setdefault(speaker_of[turn_id], {}).setdefault(name, (noun, turn_id))
    return found


def owned(sentence: str, things: Mapping[str, tuple[str, str]]) -> tuple[str, str] | None:
    """``sentence`` opening with the name of one of ``things`` (as its subject), written with
    the owner's word before the name (the offline caller leaves out sentences with an
    "I"/"my" of their own): ("My cat Miso died on Sunday.", id of the naming turn); ``None``
    when it opens otherwise."""
    first = [w.removesuffix("'s") for w in words(sentence)[:1]]  # "Miso's vet says ..."
    if not first or first[0] not in things or not sentence[:1].isupper():
        return None
    (doc,) = parse([sentence])
    name = doc[0]
    if name.dep_ not in ("nsubj", "nsubjpass", "poss") or len(doc) > 1 and (
            _proper(doc[1]) or doc[1].text in (",", "!", "-")):
        return None  # "Hope the weather holds", "Max capacity is 50", "Frank Sinatra was
        # ...", "Miso, get off the table!": the word is no subject naming the thing
    noun, turn_id = things[first[0]]
    return f"My {noun} {sentence}", turn_id

"""Names said alone, and the turns that gave them: "Miso died" after "my cat Miso is 14".

A speaker who has named a pet, a relative or a car goes on to use the name alone. The
sentence with the name alone is read as the speaker's own only beside the turn that named
the thing (:mod:`agent_memory.reasoners.extractive.named`); when that turn is in an earlier
thread, the pipeline looks it up by the names a window opens sentences with
(:func:`opening_names`) and keeps the turns that name one of them (:func:`names_thing`).

Both are plain patterns, a cheap first pass: the reasoner's parse decides what a name is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_OPENING = re.compile(r"(?:^|[.!?:;]\s+|\n)\s*([^\W\d_]{2,})(?=\s+[^\W\d_]|'s\b)")
"""A word of two letters or more opening a sentence (or what follows a colon) and followed
by a word or "'s": "Miso died", "Bo is 3", "Zoë's kidneys failed" (not a call: "Miso, get
down!"); it must be capitalised and the rest lower case (checked in :func:`opening_names`)."""
_OPENERS = (
    "the this that these those there then they their them what when where which who why how "
    "and but yes yeah yep nope not just also still well sure okay wow haha thanks thank "
    "today tonight tomorrow yesterday last next our your his her its she him you was were "
    "are have has had did does can could would should will may might must let for from with "
    "about after before since some any all every each one two here now maybe really "
    "anyway good great nice awesome love hope glad sorry been being got went "
    "hi hey oh ah so my no ok we he it us me an as at by in of on or to up do go if is am")
_COMMON = frozenset(_OPENERS.split())
"""Lower-cased openers that are never a thing's name (a cap on the look-ups, not a list of
names: a word missed here only costs a search)."""


def opening_names(texts: Iterable[str], *, exclude: Iterable[str] = ()) -> list[str]:
    """The capitalised words that open a sentence of ``texts`` and may be a name said alone
    ("Miso" in "Miso died on Sunday."), in first-seen order, without common openers ("The",
    "Thanks") and ``exclude`` (the speakers' own names; compared case-insensitively).

    Returns:
        Distinct words, as written.
    """
    skip = {w.lower() for w in exclude} | _COMMON
    found: dict[str, None] = {}
    for text in texts:
        for match in _OPENING.finditer(text):
            word = match.group(1)
            if word[0].isupper() and word[1:].islower() and word.lower() not in skip:
                found.setdefault(word, None)
    return list(found)


def naming_pattern(name: str) -> re.Pattern[str]:
    """The pattern of a sentence naming one of the speaker's things, ``name`` being a regular
    expression for the name: "my cat Miso", "our dog, Pip", "a cat named Miso", "my dog's
    name is Pip", "Miso, my cat, ...". A first pass: the reasoner's parse decides whose thing
    it is.

    Args:
        name: a regular expression (``re.escape`` a literal name).

    Returns:
        The compiled pattern; search it, the name may stand anywhere.
    """
    return re.compile(
        rf"\b(?i:my|our)\s+[\w-]+(?:'s\s+(?i:name)\s+(?i:is)|,)?\s+{name}"
        rf"|\b(?i:named|called)\s+{name}|(?:^|[.!?]\s+){name},\s+(?i:my|our)\b")


def names_thing(text: str, name: str) -> bool:
    """Whether ``text`` names one of the speaker's things ``name`` (:func:`naming_pattern`):
    "my cat Miso", "our dog, Pip", "a cat named Miso", "my dog's name is Pip", "Miso, my cat,
    ..."."""
    return naming_pattern(rf"{re.escape(name)}\b").search(text) is not None

"""Sentences that report a talk rather than a life: "Priya discussed her preference for email
summaries", "Kai talked about the move". Said of a conversation's own speaker, such a sentence
remembers the conversation (what was talked about), not what it said; the fact is what was
said ("Priya prefers email summaries"). A talk with someone named stays a fact of a life
("talked to her sister about Seattle", "discussed the loan with her husband"), unless the one
named is the other side of the conversation itself ("discussed the house search with her
advisor", :func:`conversation_report`).

The grounding check (which refuses such facts) and the LLM reasoner (which asks again for the
turn such a fact stands in for) both read them here, so the two agree on what a report is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TALKED = re.compile(r"\b(?:discuss(?:es|ed)?|talk(?:s|ed)? about|chat(?:s|ted)? about|"
                    r"spoke about|speaks? about|went over)\b(?!.*\bwith\b)", re.IGNORECASE)
"""A talk verb with no one named to talk with (no "with" after it)."""

SPEAKING = re.compile(
    r"\b(?:discuss(?:es|ed)?|talk(?:s|ed)?|ask(?:s|ed)?|chat(?:s|ted)?|spoke|speak(?:s)?|"
    r"consult(?:s|ed)?|review(?:s|ed)?|went over|go(?:es)? over)\b", re.IGNORECASE)
"""Verbs by which a sentence reports what a conversation was about rather than a life. Verbs
that carry content ("told her advisor she is pregnant") are not among them."""


def reported_talk(text: str) -> str:
    """The talk verb by which ``text`` reports a conversation with no one named ("discussed",
    "talked about"), else ``""``."""
    found = TALKED.search(text)
    return found.group(0) if found else ""


def conversation_report(text: str, assistants: Iterable[str] = ()) -> str:
    """What makes ``text`` a report of the conversation it was drawn from, else ``""``: a
    talk verb (:data:`SPEAKING`) with one of ``assistants`` named by first name ("discussed
    the house search with her advisor" when "Advisor" speaks the assistant turns; the result
    is ``"discussed ... Advisor"``), or a talk with no one named (:func:`reported_talk`; the
    result is ``"discussed, with no one named"``).

    Args:
        text: one sentence, a fact.
        assistants: the names of the speakers on the assistant side of the conversation.
    """
    speaking = SPEAKING.search(text)
    if not speaking:
        return ""
    for name in sorted(assistants):
        first = name.split()[0] if name.split() else ""
        if first and re.search(rf"\b{re.escape(first)}\b", text, re.IGNORECASE):
            return f"{speaking.group(0)} ... {name}"
    alone = reported_talk(text)
    return f"{alone}, with no one named" if alone else ""

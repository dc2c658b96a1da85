"""Sentences that report a talk rather than a life: "Priya discussed her preference for email
summaries", "Kai talked about the move". Said of a conversation's own speaker, such a sentence
remembers the conversation (what was talked about), not what it said; the fact is what was
said ("Priya prefers email summaries"). A talk with someone named stays a fact of a life
("talked to her sister about Seattle", "discussed the loan with her husband").
"""

from __future__ import annotations

import re

TALKED = re.compile(r"\b(?:discuss(?:es|ed)?|talk(?:s|ed)? about|chat(?:s|ted)? about|"
                    r"spoke about|speaks? about|went over)\b(?!.*\bwith\b)", re.IGNORECASE)
"""A talk verb with no one named to talk with (no "with" after it)."""


def reported_talk(text: str) -> str:
    """The talk verb by which ``text`` reports a conversation with no one named ("discussed",
    "talked about"), else ``""``."""
    found = TALKED.search(text)
    return found.group(0) if found else ""

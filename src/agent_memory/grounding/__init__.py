"""Grounded writes: what a reasoner proposes is checked against its evidence before it is stored.

See :mod:`.check` (the rules), :mod:`.injection` (turns addressing the memory or the model),
:mod:`.support` (lexical, number and name support) and :mod:`.steps` (how pipeline steps apply
it).
"""

from ..text.injection import injection_reason
from .check import Claim, Grounder, GroundingTally, Verdict
from .steps import (
    TurnSources,
    ground_summary,
    ground_text,
    ground_topics,
    grounder_for,
    tainted_words,
    turn_sources,
)

__all__ = [
    "Claim",
    "Grounder",
    "GroundingTally",
    "TurnSources",
    "Verdict",
    "ground_summary",
    "ground_text",
    "ground_topics",
    "grounder_for",
    "injection_reason",
    "tainted_words",
    "turn_sources",
]

"""What a reasoner decides when reconciling a pool of facts (seed 000 "Memory Reconciliation").

Two orthogonal outcomes in one pass: groups of duplicates (the same claim in other words, to be
collapsed into one merged fact) and contradicting pairs (claims that cannot both hold now). The
reasoner only says *which* facts relate and why; the pipeline step decides the winner of a
contradiction (newer ``created_at`` wins, higher confidence breaks ties) and writes the result.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DuplicateGroup(BaseModel):
    """Facts restating one claim.

    Attributes:
        fact_ids: ids of the facts in the group (two or more, from the pool).
        merged_text: one self-contained sentence stating the claim, keeping every detail.
        rationale: why they are the same claim (kept in the audit trail).
    """

    model_config = ConfigDict(extra="forbid")

    fact_ids: list[str]
    merged_text: str = Field(min_length=1)
    rationale: str = ""


class Contradiction(BaseModel):
    """Two facts asserting opposing claims about the same subject and attribute.

    Attributes:
        first_id / second_id: the two facts (order carries no meaning).
        rationale: what they disagree on (kept in the audit trail).
    """

    model_config = ConfigDict(extra="forbid")

    first_id: str
    second_id: str
    rationale: str = ""


class ReconcileDecision(BaseModel):
    """A reasoner's reconciliation of one pool of facts (either list may be empty)."""

    model_config = ConfigDict(extra="forbid")

    duplicates: list[DuplicateGroup] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)

"""The grounding check every derived record passes before it is stored.

A reasoner (an LLM above all) proposes claims -- facts, insights, profile lines, summary
sentences -- each citing the turns it came from. :class:`Grounder` accepts a claim only when:

1. **its evidence exists**: at least one cited id is a turn of that user's thread, as read from
   the store by the calling step (one query) -- ``unknown evidence`` otherwise;
2. **its evidence is conversation, not an instruction**: cited turns that address the memory
   system or the model (:func:`~agent_memory.grounding.injection.injection_reason`) are set
   aside; a claim whose only evidence is such a turn is refused (``instruction as evidence``);
   the remaining checks use the remaining turns only, so a poisoned claim cannot lean on an
   injected turn and a legitimate one at once;
3. **numbers and names are in the evidence**: every number (dates near the turns' own time
   excepted) and every capitalised name of the claim appears in the evidence text or among the
   thread's speakers (``number not in evidence`` / ``name not in evidence``); a claim that
   denies something needs a denial in its evidence (``negation not in evidence``: "Priya has
   no student loans" against "I still have $12,000 of student loans");
4. **its content is supported**: the share of its content words found in the evidence is at
   least ``min_lexical`` and, when an embedder is given, the cosine between the claim and its
   closest evidence turn is at least ``min_cosine`` (``unsupported``).

The thresholds are :class:`~agent_memory.config.Settings` fields (``grounding_min_lexical``,
``grounding_min_cosine``); how their defaults were chosen is in ``bench/grounding_calibration.py``
and docs/reasoners.md ("Grounded writes"). Refusals are logged at INFO on the
``agent_memory.grounding`` logger with the reason, and counted by the calling step.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..embedders.base import Embedder
from ..models import Turn
from .injection import injection_reason
from .support import (
    lexical_support,
    unsupported_names,
    unsupported_negation,
    unsupported_numbers,
)

logger = logging.getLogger("agent_memory.grounding")

UNKNOWN_EVIDENCE = "unknown evidence"
INSTRUCTION_EVIDENCE = "instruction as evidence"
NUMBER = "number not in evidence"
NAME = "name not in evidence"
UNSUPPORTED = "unsupported"
NEGATION = "negation not in evidence"


@dataclass(frozen=True)
class Claim:
    """A record a reasoner proposes, before it is stored.

    Attributes:
        text: its content.
        evidence: the turn ids it cites.
        kind: what it is (``fact``, ``insight``, ``profile line``, ``summary sentence``), for
            the log.
    """

    text: str
    evidence: Sequence[str]
    kind: str = "fact"


@dataclass(frozen=True)
class Verdict:
    """The outcome of the check for one claim.

    Attributes:
        accepted: whether the claim may be stored.
        reason: why it was refused (one of the module's reason constants), else ``None``.
        detail: the offending number, name or scores, for the log.
        evidence: the cited turn ids that exist and are not instructions (what the stored
            record should cite).
        lexical: share of content words found in the evidence (0-1).
        cosine: cosine to the closest evidence turn, ``None`` when not computed.
    """

    accepted: bool
    reason: str | None = None
    detail: str = ""
    evidence: tuple[str, ...] = ()
    lexical: float = 0.0
    cosine: float | None = None


@dataclass
class GroundingTally:
    """Refused claims counted by reason (``{"instruction as evidence": 2, ...}``)."""

    by_reason: Counter[str] = field(default_factory=Counter)

    @property
    def rejected(self) -> int:
        """Number of refused claims."""
        return sum(self.by_reason.values())

    def add(self, verdicts: Iterable[Verdict]) -> None:
        """Count the refused verdicts."""
        self.by_reason.update(v.reason for v in verdicts if v.reason is not None)


class Grounder:
    """Checks claims against their evidence turns (see the module docstring).

    Args:
        embedder: embeds claims and turns for the cosine check; ``None`` skips it (the
            extractive reasoner copies sentences from the turns, so the lexical, number and
            name checks suffice and cost no embedding).
        min_lexical: least share (0-1) of a claim's content words found in its evidence.
        min_cosine: least cosine between a claim and its closest evidence turn.
    """

    def __init__(self, embedder: Embedder | None, *, min_lexical: float,
                 min_cosine: float) -> None:
        self.embedder = embedder
        self.min_lexical = min_lexical
        self.min_cosine = min_cosine

    async def check(self, claims: Sequence[Claim], turns: Mapping[str, Turn]) -> list[Verdict]:
        """One verdict per claim, in order; refusals are logged at INFO.

        Args:
            claims: the proposals.
            turns: the turns they may cite, by id (the thread's turns as read from the store).
        """
        speakers = {t.speaker for t in turns.values() if t.speaker}
        prepared = []
        for claim in claims:
            cited = [turns[e] for e in dict.fromkeys(claim.evidence) if e in turns]
            clean = [t for t in cited if injection_reason(t.content) is None]
            prepared.append((claim, cited, clean))
        cosines = await self._cosines(prepared)
        verdicts = []
        for (claim, cited, clean), cosine in zip(prepared, cosines, strict=True):
            verdict = self._judge(claim, cited, clean, cosine, speakers)
            if not verdict.accepted:
                logger.info("grounding refused %s %r: %s%s (cites %s)", claim.kind,
                            claim.text[:120], verdict.reason,
                            f" ({verdict.detail})" if verdict.detail else "",
                            list(claim.evidence))
            verdicts.append(verdict)
        return verdicts

    def _judge(self, claim: Claim, cited: list[Turn], clean: list[Turn], cosine: float | None,
               speakers: set[str]) -> Verdict:
        if not cited:
            return Verdict(False, UNKNOWN_EVIDENCE, f"none of {list(claim.evidence)} is a turn")
        if not clean:
            return Verdict(False, INSTRUCTION_EVIDENCE, injection_reason(cited[0].content) or "")
        text = "\n".join(t.content for t in clean)
        ids = tuple(t.id for t in clean)
        numbers = unsupported_numbers(claim.text, text, (t.created_at for t in clean))
        if numbers:
            return Verdict(False, NUMBER, ", ".join(numbers), ids)
        names = unsupported_names(claim.text, text, speakers)
        if names:
            return Verdict(False, NAME, ", ".join(names), ids)
        if unsupported_negation(claim.text, text):
            return Verdict(False, NEGATION, "the claim denies, its evidence does not", ids)
        lexical = lexical_support(claim.text, text, speakers)
        if lexical < self.min_lexical or (cosine is not None and cosine < self.min_cosine):
            scores = f"lexical {lexical:.2f}" + (f", cosine {cosine:.2f}" if cosine is not None
                                                 else "")
            return Verdict(False, UNSUPPORTED, scores, ids, lexical, cosine)
        return Verdict(True, None, "", ids, lexical, cosine)

    async def _cosines(self, prepared: list[tuple[Claim, list[Turn], list[Turn]]]
                       ) -> list[float | None]:
        if self.embedder is None:
            return [None] * len(prepared)
        turn_ids = list(dict.fromkeys(t.id for _, _, clean in prepared for t in clean))
        wanted = [c for c, _, clean in prepared if clean]
        if not wanted:
            return [None] * len(prepared)
        by_id = {t.id: t for _, _, clean in prepared for t in clean}
        vectors = await self.embedder.embed(
            [c.text for c in wanted] + [by_id[i].content for i in turn_ids])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        claim_vecs, turn_vecs = vectors[: len(wanted)], vectors[len(wanted):]
        row = {tid: i for i, tid in enumerate(turn_ids)}
        out: list[float | None] = []
        k = 0
        for _, _, clean in prepared:
            if not clean:
                out.append(None)
                continue
            sims = turn_vecs[[row[t.id] for t in clean]] @ claim_vecs[k]
            out.append(float(sims.max()))
            k += 1
        return out

"""The grounding check every derived record passes before it is stored.

A reasoner (an LLM above all) proposes claims -- facts, insights, profile lines, summary
sentences -- each citing the turns it came from. :class:`Grounder` accepts a claim only when:

1. **its evidence exists**: at least one cited id is a turn of that user's thread, as read from
   the store by the calling step (one query) -- ``unknown evidence`` otherwise;
2. **its evidence is conversation, not an instruction**: cited turns that address the memory
   system or the model (:func:`~agent_memory.text.injection.injection_reason`) are set
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
   closest evidence turn is at least ``min_cosine`` (``unsupported``);
5. **it is said by the person it is about**: a claim whose subject is a speaker of the thread
   (``Claim.subject``, else the first speaker named in its text; "the user" is the speakers
   of user turns) needs a turn of that speaker among its clean evidence: what the assistant
   or another speaker says ("a 529 plan could help") is not that person's fact
   (``another speaker's turn``), nor is a claim that takes most of what its own evidence
   lacks from a neighbouring statement of another speaker (:func:`_borrowed`: the client's
   "I get nervous when markets drop" does not make the advisor's "a conservative mix makes
   sense" hers; the other speaker's questions are context, not borrowing); and a claim
   about an assistant-side speaker (a speaker
   with only assistant turns, in a thread with user turns) is not memory of the user
   (``about the assistant``); a fact that reports the conversation itself, a verb of what a
   talk was about with an assistant-side speaker named ("Priya discussed the house search
   with her advisor") or with no one named at all ("discussed her preference for email
   summaries"; both read by :func:`agent_memory.text.talk.conversation_report`), is no
   memory of her life either (``report of the conversation``; summaries may report the
   conversation).

A claim refused by rules 3-5 whose words are in a *neighbouring* turn of its subject (or, with
no subject, of the speaker it cites) -- at most :data:`NEIGHBOUR_TURNS` positions from a cited
turn, in the same thread -- is accepted with its citation repaired to that turn
(``Verdict.repaired``; small models often cite the turn next to the right one). The repaired
claim passes every check against that turn alone; instructions and unknown ids are never
repaired.

The thresholds are :class:`~agent_memory.config.Settings` fields (``grounding_min_lexical``,
``grounding_min_cosine``); how their defaults were chosen is in ``bench/grounding_calibration.py``
and docs/reasoners.md ("Grounded writes"). Refusals are logged at INFO on the
``agent_memory.grounding`` logger with the reason, and counted by the calling step.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..embedders.base import Embedder
from ..models import Role, Turn
from ..text.injection import injection_reason
from ..text.talk import conversation_report
from .support import (
    SpeakerRoster,
    content_words,
    lexical_support,
    stem,
    unsupported_names,
    unsupported_negation,
    unsupported_numbers,
    word_stems,
)

logger = logging.getLogger("agent_memory.grounding")

UNKNOWN_EVIDENCE = "unknown evidence"
INSTRUCTION_EVIDENCE = "instruction as evidence"
NUMBER = "number not in evidence"
NAME = "name not in evidence"
UNSUPPORTED = "unsupported"
NEGATION = "negation not in evidence"
OTHER_SPEAKER = "another speaker's turn"
ASSISTANT_SUBJECT = "about the assistant"
CONVERSATION = "report of the conversation"

NEIGHBOUR_TURNS = 2
"""How far (in turn positions of the same thread) a repaired citation may move."""

_REPAIRABLE = frozenset({NUMBER, NAME, NEGATION, UNSUPPORTED, OTHER_SPEAKER})


@dataclass(frozen=True)
class Claim:
    """A record a reasoner proposes, before it is stored.

    Attributes:
        text: its content.
        evidence: the turn ids it cites.
        kind: what it is (``fact``, ``insight``, ``profile line``, ``summary sentence``), for
            the log.
        subject: whom it is about (a speaker's name, ``user``), when the reasoner says;
            ``None`` reads it from the text (rule 5 of the module docstring).
    """

    text: str
    evidence: Sequence[str]
    kind: str = "fact"
    subject: str | None = None


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
        repaired: the claim's citation was moved to a neighbouring turn of the same speaker
            (``evidence`` is that turn).
    """

    accepted: bool
    reason: str | None = None
    detail: str = ""
    evidence: tuple[str, ...] = ()
    lexical: float = 0.0
    cosine: float | None = None
    repaired: bool = False


@dataclass
class GroundingTally:
    """Refused claims counted by reason (``{"instruction as evidence": 2, ...}``), and the
    accepted ones whose citation was repaired."""

    by_reason: Counter[str] = field(default_factory=Counter)
    repaired: int = 0

    @property
    def rejected(self) -> int:
        """Number of refused claims."""
        return sum(self.by_reason.values())

    def add(self, verdicts: Iterable[Verdict]) -> None:
        """Count the refused and the repaired verdicts."""
        for verdict in verdicts:
            if verdict.reason is not None:
                self.by_reason[verdict.reason] += 1
            elif verdict.repaired:
                self.repaired += 1


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
        roster = SpeakerRoster(turns.values())
        prepared = []
        for claim in claims:
            cited = [turns[e] for e in dict.fromkeys(claim.evidence) if e in turns]
            clean = [t for t in cited if injection_reason(t.content) is None]
            prepared.append((claim, cited, clean))
        cosines = await self._cosines(prepared)
        verdicts = [self._judge(claim, cited, clean, cosine, turns, roster)
                    for (claim, cited, clean), cosine in zip(prepared, cosines, strict=True)]
        await self._repair(prepared, verdicts, turns, roster)
        for (claim, _, _), verdict in zip(prepared, verdicts, strict=True):
            if not verdict.accepted:
                logger.info("grounding refused %s %r: %s%s (cites %s)", claim.kind,
                            claim.text[:120], verdict.reason,
                            f" ({verdict.detail})" if verdict.detail else "",
                            list(claim.evidence))
            elif verdict.repaired:
                logger.info("grounding repaired the citation of %s %r: %s -> %s", claim.kind,
                            claim.text[:120], list(claim.evidence), list(verdict.evidence))
        return verdicts

    def _judge(self, claim: Claim, cited: list[Turn], clean: list[Turn], cosine: float | None,
               turns: Mapping[str, Turn], roster: SpeakerRoster) -> Verdict:
        if not cited:
            return Verdict(False, UNKNOWN_EVIDENCE, f"none of {list(claim.evidence)} is a turn")
        if not clean:
            return Verdict(False, INSTRUCTION_EVIDENCE, injection_reason(cited[0].content) or "")
        about = roster.about(claim.subject, claim.text)
        if about.assistant:
            return Verdict(False, ASSISTANT_SUBJECT, ", ".join(sorted(about.names)))
        if claim.kind == "fact" and (
                talk := conversation_report(claim.text, roster.assistants)):
            return Verdict(False, CONVERSATION, talk)
        verdict = self._support(claim, clean, cosine, roster)
        if verdict.accepted and about.names and not any(_said_by(t, about.names, roster)
                                                        for t in clean):
            said_by = ", ".join(sorted({t.author for t in clean}))
            return Verdict(False, OTHER_SPEAKER, f"about {', '.join(sorted(about.names))}, "
                           f"said by {said_by}", verdict.evidence)
        if verdict.accepted and (borrowed := _borrowed(claim, clean, turns, about.names)):
            return Verdict(False, OTHER_SPEAKER, borrowed, verdict.evidence)
        return verdict

    def _support(self, claim: Claim, clean: list[Turn], cosine: float | None,
                 roster: SpeakerRoster) -> Verdict:
        """Rules 3 and 4 of the module docstring against the ``clean`` turns."""
        speakers = roster.names
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

    async def _repair(self, prepared: list[tuple[Claim, list[Turn], list[Turn]]],
                      verdicts: list[Verdict], turns: Mapping[str, Turn],
                      roster: SpeakerRoster) -> None:
        """Replace refusals that a neighbouring turn of the right speaker supports by
        accepted verdicts citing that turn (in place)."""
        options: dict[int, list[Turn]] = {}
        for i, ((claim, _, clean), verdict) in enumerate(zip(prepared, verdicts, strict=True)):
            if verdict.reason in _REPAIRABLE:
                found = _neighbours(claim, clean, turns, roster)
                if found:
                    options[i] = found
        if not options:
            return
        cosines = await self._pair_cosines(prepared, options)
        for i, candidates in options.items():
            claim = prepared[i][0]
            best: Verdict | None = None
            about = roster.about(claim.subject, claim.text).names
            for turn in candidates:
                verdict = self._support(claim, [turn], cosines.get((i, turn.id)), roster)
                if verdict.accepted and _borrowed(claim, [turn], turns, about):
                    continue
                if verdict.accepted and (best is None or verdict.lexical > best.lexical):
                    best = verdict
            if best is not None:
                verdicts[i] = Verdict(True, None, "", best.evidence, best.lexical, best.cosine,
                                      repaired=True)

    async def _pair_cosines(self, prepared: list[tuple[Claim, list[Turn], list[Turn]]],
                            options: dict[int, list[Turn]]) -> dict[tuple[int, str], float]:
        """Cosines between the claims to repair and their candidate turns."""
        if self.embedder is None:
            return {}
        order = list(options)
        by_id = {t.id: t for found in options.values() for t in found}
        ids = list(by_id)
        vectors = await self.embedder.embed(
            [prepared[i][0].text for i in order] + [by_id[t].content for t in ids])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        row = {tid: len(order) + k for k, tid in enumerate(ids)}
        return {(i, t.id): float(vectors[row[t.id]] @ vectors[k])
                for k, i in enumerate(order) for t in options[i]}

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


def _neighbours(claim: Claim, clean: list[Turn], turns: Mapping[str, Turn],
                roster: SpeakerRoster) -> list[Turn]:
    """Turns a refused ``claim`` may be repaired to: within :data:`NEIGHBOUR_TURNS`
    positions of a cited clean turn, in its thread, said by the claim's subject (else by a
    cited turn's speaker), not cited already, not an instruction."""
    if not clean:
        return []
    about = roster.about(claim.subject, claim.text).names
    wanted = about or {t.speaker for t in clean if t.speaker}
    if not wanted:
        return []
    cited = {t.id for t in clean}
    spots = {(t.thread_id, t.seq) for t in clean}
    found = [t for t in turns.values()
             if t.id not in cited and t.speaker in wanted
             and any(t.thread_id == thread and abs(t.seq - seq) <= NEIGHBOUR_TURNS
                     for thread, seq in spots)
             and injection_reason(t.content) is None]
    return sorted(found, key=lambda t: (t.thread_id, t.seq))


def _said_by(turn: Turn, names: frozenset[str], roster: SpeakerRoster) -> bool:
    """Whether ``turn`` is a turn of one of ``names``: its speaker, or, for a user turn that
    names no speaker, one of the thread's user-side speakers (the same person, unnamed)."""
    if turn.speaker is not None:
        return turn.speaker in names
    return turn.role == Role.USER and bool(names & roster.users)


MIN_BORROWED = 2
"""Fewest content words a claim must take from another speaker's statement to be refused as
that speaker's (rule 5)."""


def _borrowed(claim: Claim, clean: list[Turn], turns: Mapping[str, Turn],
              about: frozenset[str]) -> str:
    """Why a claim about ``about`` reads as another speaker's words, or ``""``: at least
    :data:`MIN_BORROWED` of its content words, and at least half of those its own evidence
    lacks, are in a neighbouring statement (not a question) of another speaker: "Priya wants a
    conservative mix for her deposit fund" citing Priya's "I get nervous when markets drop"
    beside the advisor's "Then a conservative mix for the deposit fund makes sense"."""
    if not about:
        return ""
    names = word_stems(w for n in [*about, "user"] for w in content_words(n))
    own = word_stems(content_words("\n".join(t.content for t in clean)))
    missing = {w for w in content_words(claim.text)
               if stem(w) not in own and stem(w) not in names}
    if len(missing) < MIN_BORROWED:
        return ""
    cited = {t.id for t in clean}
    spots = {(t.thread_id, t.seq) for t in clean}
    for turn in turns.values():
        if turn.id in cited or turn.speaker in about or not any(
                turn.thread_id == thread and abs(turn.seq - seq) <= NEIGHBOUR_TURNS
                for thread, seq in spots):
            continue
        said = " ".join(s for s in _STATEMENT.split(turn.content) if not s.rstrip().endswith("?"))
        stems = word_stems(content_words(said))
        found = sorted(w for w in missing if stem(w) in stems)
        if len(found) >= MIN_BORROWED and 2 * len(found) >= len(missing):
            return f"words of {turn.author}'s turn {turn.id}: {', '.join(found)}"
    return ""


_STATEMENT = re.compile(r"(?<=[.!?])\s+")

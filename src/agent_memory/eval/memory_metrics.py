"""Quality of derived memory against reference annotations: facts, summaries, profile.

Every function here is pure: it takes texts, turn ids and embeddings (L2-normalised rows, so a
dot product is the cosine) and returns counts or scores. :mod:`agent_memory.eval.memory` reads
them from a store and LoCoMo's annotations; tests feed small hand-made cases.

Definitions (fixed here so that a change to the reasoners never moves the yardstick):

- **An extracted fact covers a reference observation** when it cites (``evidence``) at least
  one of the observation's evidence turns *and* the cosine of their embeddings is
  >= :data:`COVER_COSINE` (0.6, the bar set for LoCoMo in the project's issue tracker).
- **Fact recall** = covered observations / observations with at least one valid evidence turn.
- **Fact precision** = facts citing at least one turn that some observation cites / facts.
  It asks "does the fact come from a turn the annotators found worth a fact", not whether the
  wording matches.
- **Matched precision** = facts whose best observation among those sharing an evidence turn
  with the fact has cosine >= :data:`COVER_COSINE` / facts: a fact an annotator also wrote.
- **Facts per observation** = facts / observations (about one fact per thing worth
  remembering is 1.0).
- **Attribution accuracy** = among covered observations, the share whose best covering fact
  (highest cosine) has the observation's speaker as its subject (:func:`read_subject`).
- **Compression** = thread tokens / summary tokens (:func:`agent_memory.tokens.count_tokens` on
  the turns' contents and on the summary).
- **ROUGE-1 / ROUGE-L recall** of a summary against the reference (``rouge-score``, Porter
  stemmer on): the share of the reference's unigrams / longest common subsequence found in the
  summary.
- **Own share of a profile**: each profile sentence (:func:`split_sentences`) is traced to the
  turn sentence of the conversation whose embedding is closest to it; the sentence is *own*
  when that turn is a user turn (not assistant, tool or system) and, when the sentence names
  one of the conversation's speakers, the first name it mentions is that turn's speaker. So a
  line taken from an advisor's turn, or "Caroline ..." read off Melanie's turn, is not own.
  Both sides are embedded as :func:`tracing_text`: speaker names, the group a fact writes
  for "we" ("Melanie and family", which otherwise traced "Melanie and family ate good food"
  to the other speaker's "Family is everything") and a leading ``[date]`` removed. Measured
  on the first LoCoMo dev conversation, tracing whole turns with the names left in picked a
  turn of the *other* speaker for 11 of 14 profile sentences, because all-MiniLM-L6-v2
  weighs a name heavily and the other speaker addresses the person by name ("Wow, Caroline!
  ..."); sentence-level tracing with the names removed picked the right speaker's turn for
  all 14 (checked by hand).
- **Duplicate profile sentences**: sentences whose cosine to an earlier sentence of the same
  profile is >= :data:`DUPLICATE_COSINE` (0.9).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, InvalidInputError
from ..tokens import count_tokens

COVER_COSINE = 0.6
"""Minimum cosine between a fact and an observation for the fact to cover it."""

DUPLICATE_COSINE = 0.9
"""Minimum cosine between two profile sentences for the later one to count as a duplicate."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")
_POSSESSIVE = re.compile(r"(?:'s|s')$")
_DATE_TAG = re.compile(r"^\s*\[[^\]]*\]\s*")


class ReferenceFact(BaseModel):
    """A reference observation: whom it is about and the turns it was read from.

    Attributes:
        text: the observation.
        speaker: the person it is about (LoCoMo lists observations per speaker).
        evidence: turn ids of its evidence turns.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    speaker: str
    evidence: list[str]


class ExtractedFact(BaseModel):
    """A fact the pipeline derived, as scored.

    Attributes:
        text: the fact's content.
        subject: the fact's ``subject`` field (``None`` when the reasoner left it empty).
        evidence: the turn ids it cites.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    subject: str | None = None
    evidence: list[str]


class SourceSentence(BaseModel):
    """A sentence of a turn, to which a profile sentence can be traced.

    Attributes:
        text: the sentence (:func:`split_sentences` of the turn's content).
        speaker: the turn's speaker name (or its role when it has none).
        role: the turn's role: ``user``, ``assistant``, ``tool`` or ``system``.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    speaker: str
    role: str


class FactCounts(BaseModel):
    """Counts behind the fact metrics; counts add up across conversations.

    Attributes:
        observations: reference observations with at least one valid evidence turn.
        covered: observations covered by some fact.
        attributed: covered observations whose best covering fact names their speaker.
        facts: facts scored.
        citing: facts citing a turn some observation cites.
        matched: facts whose best observation sharing an evidence turn has cosine >= the
            covering cosine.
    """

    observations: int = 0
    covered: int = 0
    attributed: int = 0
    facts: int = 0
    citing: int = 0
    matched: int = 0

    def __add__(self, other: FactCounts) -> FactCounts:
        return FactCounts(**{k: getattr(self, k) + getattr(other, k)
                             for k in FactCounts.model_fields})

    @property
    def recall(self) -> float | None:
        """covered / observations (``None`` without observations)."""
        return self.covered / self.observations if self.observations else None

    @property
    def precision(self) -> float | None:
        """citing / facts (``None`` without facts)."""
        return self.citing / self.facts if self.facts else None

    @property
    def matched_precision(self) -> float | None:
        """matched / facts (``None`` without facts)."""
        return self.matched / self.facts if self.facts else None

    @property
    def per_observation(self) -> float | None:
        """facts / observations (``None`` without observations)."""
        return self.facts / self.observations if self.observations else None

    @property
    def attribution(self) -> float | None:
        """attributed / covered (``None`` when nothing was covered)."""
        return self.attributed / self.covered if self.covered else None


def _cosines(left: np.ndarray, right: np.ndarray, n_left: int, n_right: int) -> np.ndarray:
    left, right = np.asarray(left, dtype=np.float32), np.asarray(right, dtype=np.float32)
    if left.shape[0] != n_left or right.shape[0] != n_right:
        raise InvalidInputError(
            f"expected {n_left} and {n_right} embeddings, got {left.shape[0]} and {right.shape[0]}")
    if n_left == 0 or n_right == 0:
        return np.zeros((n_left, n_right), dtype=np.float32)
    return left @ right.T


def _name_key(name: str) -> str:
    return _POSSESSIVE.sub("", name.strip()).casefold()


def read_subject(subject: str | None, text: str, names: Sequence[str]) -> str | None:
    """Whom a fact is about: its ``subject`` field when set, else the speaker name it starts with.

    Args:
        subject: the fact's ``subject`` field.
        text: the fact's content.
        names: the conversation's speaker names.

    Returns:
        The subject as written (``"Caroline"``), or ``None`` when neither gives one.
    """
    if subject and subject.strip():
        return subject.strip()
    stripped = text.lstrip()
    for name in sorted(names, key=len, reverse=True):
        if re.match(rf"{re.escape(name)}\b", stripped, re.IGNORECASE):
            return name
    return None


def score_facts(
    observations: Sequence[ReferenceFact],
    observation_vectors: np.ndarray,
    facts: Sequence[ExtractedFact],
    fact_vectors: np.ndarray,
    names: Sequence[str],
    threshold: float = COVER_COSINE,
) -> FactCounts:
    """Count coverage, precision, matched precision and attribution of ``facts`` against
    ``observations``.

    Args:
        observations: the references (those without evidence are skipped, not counted).
        observation_vectors: shape ``(len(observations), dim)``, L2-normalised.
        facts: the extracted facts.
        fact_vectors: shape ``(len(facts), dim)``, L2-normalised.
        names: the conversation's speaker names (:func:`read_subject`).
        threshold: the covering cosine (:data:`COVER_COSINE`).

    Returns:
        The :class:`FactCounts`.

    Raises:
        InvalidInputError: the number of vectors does not match the number of texts.
    """
    sims = _cosines(observation_vectors, fact_vectors, len(observations), len(facts))
    cited = [set(f.evidence) for f in facts]
    reference_turns = {t for o in observations for t in o.evidence}
    counts = FactCounts(facts=len(facts), citing=sum(1 for c in cited if c & reference_turns))
    for j, fact_turns in enumerate(cited):
        if any(o.evidence and fact_turns & set(o.evidence) and sims[i, j] >= threshold
               for i, o in enumerate(observations)):
            counts.matched += 1
    for i, observation in enumerate(observations):
        if not observation.evidence:
            continue
        counts.observations += 1
        turns = set(observation.evidence)
        best, best_sim = None, threshold
        for j, fact_turns in enumerate(cited):
            if fact_turns & turns and sims[i, j] >= best_sim:
                best, best_sim = j, float(sims[i, j])
        if best is None:
            continue
        counts.covered += 1
        subject = read_subject(facts[best].subject, facts[best].text, names)
        if subject is not None and _name_key(subject) == _name_key(observation.speaker):
            counts.attributed += 1
    return counts


class SummaryScore(BaseModel):
    """One summary measured against its thread and its reference.

    Attributes:
        thread_tokens: estimated tokens of the thread's turns.
        summary_tokens: estimated tokens of the summary.
        compression: thread_tokens / summary_tokens.
        rouge1_recall / rougeL_recall: against the reference summary, 0-1.
    """

    thread_tokens: int
    summary_tokens: int
    compression: float
    rouge1_recall: float
    rougeL_recall: float


def _rouge_scorer():
    try:
        from rouge_score import rouge_scorer
    except ImportError as exc:
        raise ConfigError(
            f"ROUGE needs the rouge-score package: pip install 'agent-memory[eval]' ({exc})"
        ) from None
    return rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)


def score_summary(thread: Sequence[str], summary: str, reference: str) -> SummaryScore:
    """Compression of ``summary`` over ``thread`` and its ROUGE recall against ``reference``.

    Args:
        thread: the contents of the thread's turns.
        summary: the derived summary.
        reference: the reference summary of the same thread.

    Raises:
        InvalidInputError: ``summary`` is empty.
        ConfigError: ``rouge-score`` is not installed.
    """
    summary_tokens = count_tokens(summary)
    if summary_tokens == 0:
        raise InvalidInputError("cannot score an empty summary")
    thread_tokens = sum(count_tokens(text) for text in thread)
    scores = _rouge_scorer().score(reference, summary)
    return SummaryScore(
        thread_tokens=thread_tokens, summary_tokens=summary_tokens,
        compression=thread_tokens / summary_tokens,
        rouge1_recall=scores["rouge1"].recall, rougeL_recall=scores["rougeL"].recall,
    )


def split_sentences(text: str) -> list[str]:
    """Split a profile into sentences: at line breaks, and after ``.``/``!``/``?`` followed
    by a space and a capital, digit, quote or bracket. Empty pieces are dropped."""
    return [piece.strip() for line in text.splitlines()
            for piece in _SENTENCE_END.split(line) if piece.strip()]


class ProfileCounts(BaseModel):
    """Counts behind the profile metrics; counts add up across profiles.

    Attributes:
        profiles: profiles counted (1 for one profile).
        tokens: estimated tokens of the profile.
        sentences: its sentences (:func:`split_sentences`).
        own: sentences traced to a turn of their own speaker (see the module docstring).
        duplicates: sentences with cosine >= :data:`DUPLICATE_COSINE` to an earlier one.
        fields: statements (facts shown) per profile field.
    """

    profiles: int = 0
    tokens: int = 0
    sentences: int = 0
    own: int = 0
    duplicates: int = 0
    fields: dict[str, int] = Field(default_factory=dict)

    def __add__(self, other: ProfileCounts) -> ProfileCounts:
        fields = dict(self.fields)
        for name, n in other.fields.items():
            fields[name] = fields.get(name, 0) + n
        return ProfileCounts(fields=fields, **{k: getattr(self, k) + getattr(other, k)
                                               for k in ProfileCounts.model_fields
                                               if k != "fields"})

    @property
    def own_share(self) -> float | None:
        """own / sentences (``None`` for an empty profile)."""
        return self.own / self.sentences if self.sentences else None


def _first_name(sentence: str, names: Sequence[str]) -> str | None:
    found = [(m.start(), name) for name in names
             if (m := re.search(rf"\b{re.escape(name)}\b", sentence, re.IGNORECASE))]
    return min(found)[1] if found else None


def tracing_text(text: str, names: Sequence[str]) -> str:
    """``text`` as embedded for tracing: a leading ``[...]`` date tag and every speaker name
    (with a possessive ``'s``, a following ``:``, or the group a fact writes for "we": "and
    family", "and her husband") removed, whitespace collapsed.

    Example: ``tracing_text("[1 May 2023] Caroline: I'm off", ["Caroline"]) == "I'm off"``.
    """
    text = _DATE_TAG.sub("", text)
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}(?:'s)?\b(?:\s+and\s+(?:family|(?:his|her|their)"
                      rf"\s+[\w-]+)\b)?:?", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def score_profile(
    profile: str,
    sentence_vectors: np.ndarray,
    sources: Sequence[SourceSentence],
    source_vectors: np.ndarray,
    names: Sequence[str],
    duplicate: float = DUPLICATE_COSINE,
    subject: str | None = None,
) -> ProfileCounts:
    """Tokens, own-turn sentences and duplicate sentences of one profile.

    Args:
        profile: the profile text.
        sentence_vectors: embeddings of ``tracing_text(s, names)`` for each ``s`` of
            ``split_sentences(profile)``, shape ``(n, dim)``.
        sources: the sentences of the turns the profile was built from.
        source_vectors: embeddings of their :func:`tracing_text`, shape ``(len(sources), dim)``.
        names: the conversation's speaker names.
        duplicate: the duplicate cosine (:data:`DUPLICATE_COSINE`).
        subject: whom the profile is about; when given, a sentence is its own only when it
            traces to that person's turn (a per-speaker profile of a two-person thread).

    Raises:
        InvalidInputError: the number of vectors does not match.
    """
    sentences = split_sentences(profile)
    sims = _cosines(sentence_vectors, source_vectors, len(sentences), len(sources))
    among = _cosines(sentence_vectors, sentence_vectors, len(sentences), len(sentences))
    counts = ProfileCounts(profiles=1, tokens=count_tokens(profile), sentences=len(sentences))
    for i, sentence in enumerate(sentences):
        if i and float(among[i, :i].max()) >= duplicate:
            counts.duplicates += 1
        if not sources:
            continue
        source = sources[int(np.argmax(sims[i]))]
        named = _first_name(sentence, names)
        if source.role == "user" and (named is None or _name_key(named) ==
                                      _name_key(source.speaker)) and (
                subject is None or _name_key(subject) == _name_key(source.speaker)):
            counts.own += 1
    return counts

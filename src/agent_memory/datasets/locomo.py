"""LoCoMo conversations as agent-memory turns, with their questions and normalised evidence.

LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
ACL 2024; github.com/snap-research/LoCoMo, ``data/locomo10.json``) is a JSON list of samples,
each a long two-person conversation split into dated sessions plus question/answer pairs whose
``evidence`` names the dialogue turns (``dia_id`` ``"D{session}:{turn}"``) that hold the answer.

How a sample maps onto agent-memory (the scheme every id helper below follows):

====================  ===========================================================
LoCoMo                agent-memory
====================  ===========================================================
sample ``conv-26``    ``user_id = "conv-26"`` (one user, one partition per sample)
``session_3``         ``thread_id = "conv-26:session_3"``
turn ``D3:7``         ``Turn.id = "conv-26:D3:7"``; ``seq`` = 0-based index in the session
speaker name          ``Turn.speaker``; ``role`` is ``"user"`` for both speakers (both are
                      people, neither is an assistant)
session date          ``created_at`` of the session's first turn; each next turn is one
                      minute later, so the order within a session is stable
image turn            ``content = text + " [shares a photo: " + blip_caption + "]"``;
                      ``metadata`` keeps ``blip_caption``, ``img_url`` and ``query``
====================  ===========================================================

Every turn's ``metadata`` holds its ``dia_id`` and ``sample_id``. Ids are deterministic, so
ingesting the same file twice upserts the same records.

Evidence is normalised (:func:`normalize_evidence`): entries such as ``"D8:6; D9:17"`` are
split, ``"D:11:26"`` becomes ``"D11:26"``, and ids that do not name a turn of the conversation
(``"D"``, ``"D10:19"`` in a 17-turn session) are dropped, as are duplicates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InvalidInputError, InvalidTimeError
from ..models import Role, Turn
from .jsonl import from_validation_error
from .locomo_references import LocomoObservation, parse_observations, parse_session_summaries

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo question categories (category 5 questions are unanswerable by design)."""

TURN_STEP = timedelta(minutes=1)
"""Time between consecutive turns of one session (LoCoMo only dates the session)."""

PHOTO_TEMPLATE = "{text} [shares a photo: {caption}]"
"""Content of an image turn: the text, then the BLIP caption standing in for the image."""

_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*", re.IGNORECASE
)
_MONTHS = {
    name: number
    for number, name in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"],
        start=1,
    )
}
_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


class LocomoSession(BaseModel):
    """One dated session of a conversation: one agent-memory thread.

    Attributes:
        number: the session number N of ``session_N`` (1-based).
        thread_id: ``"{sample_id}:session_{N}"``.
        date: the session's start time, aware UTC.
        turns: the session's turns in order (``seq`` 0, 1, ...).
    """

    model_config = ConfigDict(frozen=True)

    number: int
    thread_id: str
    date: datetime
    turns: list[Turn]


class LocomoQuestion(BaseModel):
    """One question about a conversation.

    Attributes:
        question: the question text.
        answer: the reference answer as text (``None`` for most category-5 questions).
        category: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
            (:data:`CATEGORY_NAMES`).
        evidence: normalised ``dia_id`` list (every id names a turn of the conversation);
            may be empty when the source evidence was empty or unusable.
        adversarial_answer: the tempting wrong answer of category-5 questions.
    """

    model_config = ConfigDict(frozen=True)

    question: str
    answer: str | None = None
    category: int
    evidence: list[str]
    adversarial_answer: str | None = None


class LocomoSample(BaseModel):
    """One LoCoMo conversation: its speakers, sessions and questions.

    Attributes:
        sample_id: e.g. ``"conv-26"``; also the ``user_id`` its turns are stored under.
        speakers: ``(speaker_a, speaker_b)`` names.
        sessions: sessions in number order.
        questions: questions in file order.
        observations: the reference observations (:mod:`.locomo_references`); used only to
            measure derived facts, never given to the pipeline.
        session_summaries: the reference summary of each session, ``{number: text}``; used
            only to measure derived summaries.
    """

    model_config = ConfigDict(frozen=True)

    sample_id: str
    speakers: tuple[str, str]
    sessions: list[LocomoSession]
    questions: list[LocomoQuestion]
    observations: list[LocomoObservation] = []
    session_summaries: dict[int, str] = {}

    @property
    def user_id(self) -> str:
        """The partition this sample's turns belong to (the ``sample_id``)."""
        return self.sample_id

    def turns(self) -> Iterator[Turn]:
        """Every turn of the conversation, session by session, in order."""
        for session in self.sessions:
            yield from session.turns

    def dia_ids(self) -> set[str]:
        """The ``dia_id`` of every turn in the conversation."""
        return {turn.metadata["dia_id"] for turn in self.turns()}

    def evidence_turn_ids(self, question: LocomoQuestion) -> list[str]:
        """The turn ids of a question's (already normalised) evidence, in evidence order."""
        return [turn_id(self.sample_id, dia_id) for dia_id in question.evidence]


def thread_id(sample_id: str, session_number: int) -> str:
    """Thread id of a session: ``"{sample_id}:session_{N}"``."""
    return f"{sample_id}:session_{session_number}"


def turn_id(sample_id: str, dia_id: str) -> str:
    """Turn id of a LoCoMo turn: ``"{sample_id}:{dia_id}"``, e.g. ``"conv-26:D1:3"``."""
    return f"{sample_id}:{dia_id}"


def dia_id_of(turn_id_: str, sample_id: str) -> str:
    """Inverse of :func:`turn_id`: the ``dia_id`` of a turn id of ``sample_id``.

    Raises:
        InvalidInputError: ``turn_id_`` is not a turn id of that sample.
    """
    prefix = f"{sample_id}:"
    if not turn_id_.startswith(prefix) or not _DIA_ID.fullmatch(turn_id_[len(prefix):]):
        raise InvalidInputError(f"{turn_id_!r} is not a LoCoMo turn id of sample {sample_id!r}")
    return turn_id_[len(prefix):]


def parse_session_date(text: str) -> datetime:
    """Parse a LoCoMo session date such as ``"1:56 pm on 8 May, 2023"``.

    The dataset gives no time zone; the time is taken to be UTC.

    Returns:
        An aware UTC datetime (``2023-05-08 13:56:00+00:00`` for the example).

    Raises:
        InvalidInputError: the text is not in that form or names no real date.
    """
    match = _DATE.fullmatch(text) if isinstance(text, str) else None
    month = _MONTHS.get(match.group(5).lower()) if match else None
    if match is None or month is None:
        raise InvalidInputError(f"unrecognised LoCoMo session date {text!r}")
    hour, minute = int(match.group(1)), int(match.group(2))
    if not 1 <= hour <= 12:
        raise InvalidInputError(f"unrecognised LoCoMo session date {text!r}")
    hour = hour % 12 + (12 if match.group(3).lower() == "pm" else 0)
    try:
        return datetime(int(match.group(6)), month, int(match.group(4)), hour, minute, tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInputError(f"invalid LoCoMo session date {text!r}: {exc}") from None


def normalize_dia_id(raw: str) -> str | None:
    """Canonical form ``"D{s}:{t}"`` of one dia_id (``"D:11:26"`` -> ``"D11:26"``), or ``None``."""
    match = _DIA_ID.fullmatch(raw.strip())
    if match is None:
        return None
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def normalize_evidence(raw: Iterable[Any], known: Collection[str] | None = None) -> list[str]:
    """Normalise a question's evidence list.

    Each entry is split on ``;``, ``,`` and whitespace (``"D8:6; D9:17"`` holds two ids), each
    piece is put in canonical form (:func:`normalize_dia_id`), pieces that are not dia_ids
    (``"D"``, ``""``) or, when ``known`` is given, that name no turn of the conversation are
    dropped, and duplicates are removed keeping the first occurrence.

    Args:
        raw: the ``evidence`` list from the file (non-string entries are ignored).
        known: the dia_ids of the conversation's turns, or ``None`` to skip that check.

    Returns:
        The normalised dia_ids, in source order.
    """
    result: list[str] = []
    for entry in raw:
        if not isinstance(entry, str):
            continue
        for piece in _EVIDENCE_SPLIT.split(entry):
            dia_id = normalize_dia_id(piece) if piece else None
            if dia_id is None or (known is not None and dia_id not in known):
                continue
            if dia_id not in result:
                result.append(dia_id)
    return result


def _turn(sample_id: str, thread: str, seq: int, at: datetime, raw: Mapping[str, Any]) -> Turn:
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{sample_id} {thread} turn {seq}: a turn must be an object, "
                                f"got {type(raw).__name__}")
    dia_id = normalize_dia_id(str(raw.get("dia_id", "")))
    text, speaker = raw.get("text"), raw.get("speaker")
    if dia_id is None or not isinstance(text, str) or not isinstance(speaker, str):
        raise InvalidInputError(
            f"{sample_id} {thread} turn {seq}: needs 'dia_id', 'speaker' and 'text' strings"
        )
    metadata: dict[str, Any] = {"sample_id": sample_id, "dia_id": dia_id}
    content = text
    caption = raw.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        content = PHOTO_TEMPLATE.format(text=text, caption=caption.strip()).strip()
        metadata["blip_caption"] = caption
        for key in ("img_url", "query"):
            if raw.get(key) is not None:
                metadata[key] = raw[key]
    try:
        when = at + seq * TURN_STEP
    except OverflowError:
        raise InvalidTimeError(f"{sample_id} {thread} turn {dia_id}: its time (session date "
                               f"{at.isoformat()} plus {seq} turns) is out of range") from None
    try:
        return Turn(
            id=turn_id(sample_id, dia_id),
            user_id=sample_id,
            thread_id=thread,
            role=Role.USER,
            speaker=speaker,
            content=content,
            seq=seq,
            created_at=when,
            updated_at=when,
            metadata=metadata,
        )
    except ValidationError as exc:
        raise from_validation_error(f"{sample_id} {thread} turn {dia_id}", exc) from None


def _question(raw: Any, known: Collection[str], where: str) -> LocomoQuestion:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("question"), str):
        raise InvalidInputError(f"{where}: a question needs a 'question' string")
    answer = raw.get("answer")
    adversarial = raw.get("adversarial_answer")
    evidence = raw.get("evidence") or []
    try:
        return LocomoQuestion(
            question=raw["question"],
            answer=None if answer is None else str(answer),
            category=raw.get("category"),
            evidence=normalize_evidence(evidence if isinstance(evidence, list) else [evidence],
                                        known),
            adversarial_answer=None if adversarial is None else str(adversarial),
        )
    except ValidationError as exc:
        raise from_validation_error(where, exc) from None


def parse_sample(raw: Any) -> LocomoSample:
    """Build a :class:`LocomoSample` from one element of the LoCoMo JSON list.

    ``session_N_date_time`` keys without a ``session_N`` are ignored, and so is
    ``event_summary``. The reference annotations ``observation`` and ``session_summary`` are
    kept apart from the turns (:attr:`LocomoSample.observations`,
    :attr:`LocomoSample.session_summaries`).

    Raises:
        InvalidInputError: a required field is missing or malformed (the message says where).
    """
    if not isinstance(raw, Mapping):
        raise InvalidInputError("a LoCoMo sample must be a JSON object")
    sample_id, conv = raw.get("sample_id"), raw.get("conversation")
    if not isinstance(sample_id, str) or not sample_id.strip() or not isinstance(conv, Mapping):
        raise InvalidInputError("a LoCoMo sample needs 'sample_id' and 'conversation'")
    speakers = (conv.get("speaker_a"), conv.get("speaker_b"))
    if not all(isinstance(name, str) and name for name in speakers):
        raise InvalidInputError(f"{sample_id}: 'speaker_a' and 'speaker_b' are required")
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION_KEY.fullmatch(key)))
    sessions: list[LocomoSession] = []
    for number in numbers:
        turns_raw = conv[f"session_{number}"]
        date_raw = conv.get(f"session_{number}_date_time")
        if not isinstance(turns_raw, list) or date_raw is None:
            raise InvalidInputError(
                f"{sample_id}: session_{number} needs a turn list and session_{number}_date_time"
            )
        date = parse_session_date(date_raw)
        thread = thread_id(sample_id, number)
        turns = [_turn(sample_id, thread, i, date, t) for i, t in enumerate(turns_raw)]
        sessions.append(LocomoSession(number=number, thread_id=thread, date=date, turns=turns))
    if not sessions:
        raise InvalidInputError(f"{sample_id}: the conversation has no session_N turn lists")
    known = {t.metadata["dia_id"] for s in sessions for t in s.turns}
    if len(known) != sum(len(s.turns) for s in sessions):
        raise InvalidInputError(f"{sample_id}: two turns share a dia_id")
    qa = raw.get("qa") or []
    if not isinstance(qa, list):
        raise InvalidInputError(f"{sample_id}: 'qa' must be a list")
    questions = [_question(q, known, f"{sample_id} qa[{i}]") for i, q in enumerate(qa)]
    return LocomoSample(
        sample_id=sample_id, speakers=speakers, sessions=sessions, questions=questions,
        observations=parse_observations(
            raw.get("observation"), lambda ids: normalize_evidence(ids, known), sample_id),
        session_summaries=parse_session_summaries(raw.get("session_summary"), sample_id),
    )


def load_locomo(path: str | Path) -> list[LocomoSample]:
    """Load a LoCoMo file (e.g. ``locomo10.json`` or ``locomo_dev.json``).

    Args:
        path: the JSON file: a list of samples.

    Returns:
        The samples in file order.

    Raises:
        InvalidInputError: the file cannot be read, is not JSON, is not a list of LoCoMo samples,
            or holds a malformed sample (the message names the file and the sample).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read LoCoMo file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path} is not JSON (LoCoMo expected): {exc}") from exc
    if not isinstance(data, list) or not data:
        raise InvalidInputError(f"{path} is not a LoCoMo file: expected a non-empty JSON list")
    samples: list[LocomoSample] = []
    for index, raw in enumerate(data):
        try:
            samples.append(parse_sample(raw))
        except InvalidInputError as exc:
            raise type(exc)(f"{path} sample {index}: {exc}") from exc
    if len({s.sample_id for s in samples}) != len(samples):
        raise InvalidInputError(f"{path}: two samples share a sample_id")
    return samples

"""LoCoMo's reference annotations: per-session observations and session summaries.

Each LoCoMo sample carries annotations written by the dataset's own generation pipeline
(Maharana et al., ACL 2024), not by agent-memory:

- ``observation``: ``{"session_N_observation": {speaker: [[text, dia_id | [dia_id, ...]], ...]}}``,
  short third-person facts about each speaker with the turn(s) they were read from;
- ``session_summary``: ``{"session_N_summary": text}``, a third-person summary of session N.

They are kept on :class:`~agent_memory.datasets.locomo.LocomoSample` only to *measure* what the
pipeline derives (:mod:`agent_memory.eval.memory`); nothing feeds them to the pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import InvalidInputError

_OBSERVATION_KEY = re.compile(r"session_(\d+)_observation")
_SUMMARY_KEY = re.compile(r"session_(\d+)_summary")


class LocomoObservation(BaseModel):
    """One reference observation: a fact about one speaker, read from one or more turns.

    Attributes:
        session: the session number N it was annotated on.
        speaker: the speaker it is listed under (whom it is about).
        text: the observation, e.g. ``"Melanie painted a lake sunrise last year ..."``.
        evidence: its normalised evidence ``dia_id`` list (every id names a turn of the
            conversation); empty when the annotation named no valid turn.
    """

    model_config = ConfigDict(frozen=True)

    session: int
    speaker: str
    text: str
    evidence: list[str]


def parse_observations(
    raw: Any, normalize: Callable[[list[Any]], list[str]], where: str
) -> list[LocomoObservation]:
    """Read a sample's ``observation`` annotation.

    Args:
        raw: the ``observation`` value (``None`` or absent gives no observations).
        normalize: maps the raw evidence list of one observation to normalised dia_ids of
            the conversation (:func:`~agent_memory.datasets.locomo.normalize_evidence`).
        where: names the sample in error messages.

    Returns:
        Observations in session order, then in file order within a session.

    Raises:
        InvalidInputError: the annotation is not shaped as above.
    """
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{where}: 'observation' must be an object")
    result: list[LocomoObservation] = []
    for key, by_speaker in raw.items():
        match = _OBSERVATION_KEY.fullmatch(str(key))
        if match is None or not isinstance(by_speaker, Mapping):
            raise InvalidInputError(
                f"{where}: observation key {key!r} must be session_N_observation -> "
                "{speaker: [[text, dia_id], ...]}")
        for speaker, items in by_speaker.items():
            if not isinstance(items, list):
                raise InvalidInputError(f"{where} {key} {speaker}: expected a list")
            for item in items:
                if (not isinstance(item, list) or len(item) != 2
                        or not isinstance(item[0], str) or not item[0].strip()):
                    raise InvalidInputError(
                        f"{where} {key} {speaker}: each observation is [text, dia_id(s)]")
                evidence = item[1] if isinstance(item[1], list) else [item[1]]
                result.append(LocomoObservation(
                    session=int(match.group(1)), speaker=str(speaker), text=item[0],
                    evidence=normalize(evidence)))
    result.sort(key=lambda observation: observation.session)  # stable: file order kept
    return result


def parse_session_summaries(raw: Any, where: str) -> dict[int, str]:
    """Read a sample's ``session_summary`` annotation as ``{session number: text}``.

    Raises:
        InvalidInputError: a key is not ``session_N_summary`` or a value is not text.
    """
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{where}: 'session_summary' must be an object")
    result: dict[int, str] = {}
    for key, text in raw.items():
        match = _SUMMARY_KEY.fullmatch(str(key))
        if match is None or not isinstance(text, str):
            raise InvalidInputError(
                f"{where}: session_summary key {key!r} must be session_N_summary -> text")
        result[int(match.group(1))] = text
    return dict(sorted(result.items()))

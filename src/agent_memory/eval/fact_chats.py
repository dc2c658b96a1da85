"""Labelled chats: conversations between two friends, each clause the offline extractor weighs
labelled worth a fact or not.

``data/fact_chats.jsonl`` holds 64 chats written for the project (redistributable; no
dataset text), one per line: ``id``, ``speakers`` (two names), ``date`` (ISO 8601, when the
chat took place) and ``turns`` (``speaker``, ``text``, strictly alternating).
``data/fact_chat_labels.jsonl`` labels the clauses the offline extractor weighs in them
(:func:`agent_memory.reasoners.extractive.facts.candidate_clauses`), one per line: ``turn``
(``<chat id>:<n>``, n from 0), ``clause`` (its text as the extractor gave it when labelled:
dates resolved) and ``label`` (1 worth a fact, 0 not), by readers who saw the whole chat and
the labelling guide in ``data/README.md``. They measure the clause selector on clauses as it
meets them in a conversation, apart from the single clauses it is trained on.

Example::

    from agent_memory.eval.fact_chats import labelled_clauses, load_chats

    chats = load_chats()
    for turn_id, clause, label in labelled_clauses(chats):
        ...
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import InvalidInputError
from ..models import Role, Turn
from .reconcile_pairs import DATA_DIR

if TYPE_CHECKING:
    from ..reasoners.extractive.parse import Clause

CHATS_FILE = DATA_DIR / "fact_chats.jsonl"
"""The written chats."""
LABELS_FILE = DATA_DIR / "fact_chat_labels.jsonl"
"""The labels of their clauses."""


class ChatTurn(BaseModel):
    """One message: its ``speaker`` (one of the chat's two) and ``text``."""

    model_config = ConfigDict(frozen=True)

    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Chat(BaseModel):
    """One written chat (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^[\w-]+$")
    speakers: tuple[str, str]
    date: datetime
    turns: list[ChatTurn] = Field(min_length=2)

    @model_validator(mode="after")
    def _alternating(self) -> Chat:
        for n, turn in enumerate(self.turns):
            if turn.speaker != self.speakers[n % 2]:
                raise ValueError(f"turn {n} is by {turn.speaker!r}, not {self.speakers[n % 2]!r}")
        return self

    def as_turns(self) -> list[Turn]:
        """The chat as stored turns: ids ``<chat id>:<n>``, user role, one minute apart from
        its ``date`` (UTC when the date has no timezone)."""
        start = self.date if self.date.tzinfo else self.date.replace(tzinfo=UTC)
        return [Turn(id=f"{self.id}:{n}", user_id="fact-chats", thread_id=self.id, seq=n,
                     role=Role.USER, speaker=turn.speaker, content=turn.text,
                     created_at=start + timedelta(minutes=n))
                for n, turn in enumerate(self.turns)]


class ClauseLabel(BaseModel):
    """The label of one clause: its ``turn`` id, ``clause`` text and ``label`` (0 or 1)."""

    model_config = ConfigDict(frozen=True)

    turn: str = Field(pattern=r"^[\w-]+:\d+$")
    clause: str = Field(min_length=1)
    label: int = Field(ge=0, le=1)


def _rows(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{path.name}:{number}: not JSON ({exc})") from None


def load_chats(path: Path = CHATS_FILE) -> list[Chat]:
    """The chats of ``path``, in file order.

    Raises:
        InvalidInputError: the file cannot be read, a line is not JSON or not a chat (with
            its line number), or two chats share an id.
    """
    chats: list[Chat] = []
    for number, row in _rows(path):
        try:
            chats.append(Chat.model_validate(row))
        except ValidationError as exc:
            raise InvalidInputError(f"{path.name}:{number}: {exc}") from None
    ids = [c.id for c in chats]
    if len(set(ids)) != len(ids):
        raise InvalidInputError(f"{path.name}: chat ids repeat")
    return chats


def load_labels(path: Path = LABELS_FILE) -> dict[tuple[str, str], int]:
    """``(turn id, clause text) -> label`` of ``path``.

    Raises:
        InvalidInputError: the file cannot be read, or a line is not JSON or not a label
            (with its line number).
    """
    labels: dict[tuple[str, str], int] = {}
    for number, row in _rows(path):
        try:
            label = ClauseLabel.model_validate(row)
        except ValidationError as exc:
            raise InvalidInputError(f"{path.name}:{number}: {exc}") from None
        labels[(label.turn, label.clause)] = label.label
    return labels


def labelled_clauses(chats: Sequence[Chat], labels: dict[tuple[str, str], int] | None = None
                     ) -> Iterator[tuple[str, Clause, int | None]]:
    """``(turn id, clause, label)`` for every clause the offline extractor weighs in
    ``chats`` (:func:`~agent_memory.reasoners.extractive.facts.candidate_clauses`; ``clause``
    a :class:`~agent_memory.reasoners.extractive.parse.Clause`), ``label`` ``None`` when the
    clause has none (the extractor now reads it otherwise than when it was labelled).

    Raises:
        ConfigError: spaCy or its English model is not installed.
    """
    from ..reasoners.extractive.facts import candidate_clauses

    labels = load_labels() if labels is None else labels
    for chat in chats:
        for turn_id, clause in candidate_clauses(chat.as_turns()):
            yield turn_id, clause, labels.get((turn_id, clause.text))

"""Turns as callers give them: :class:`TurnInput`, shared by the client, the memory keeper, the
remote client and the ingest paths."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import validation as check
from .errors import InvalidInputError
from .models import Role, Turn, new_id, require_scope, utcnow


class TurnInput(BaseModel):
    """A turn to add. ``id`` and ``seq`` are assigned when omitted.

    Attributes:
        user_id / thread_id: required scopes.
        role: user, assistant (or agent), tool, system.
        content: the message text (non-empty, at most ``Settings.max_content_chars``).
        speaker: the speaker's name.
        created_at: when it was said (default: now, UTC).
        seq: position within the thread (default: after the thread's last turn).
    """

    model_config = ConfigDict(extra="forbid")

    user_id: str
    thread_id: str
    role: str | Role
    content: str
    speaker: str | None = None
    agent_id: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    seq: int | None = None

    # Before pydantic's coercion: bytes are not text, a number is not a time, "10" is not a seq.
    @field_validator("content", "speaker", mode="before")
    @classmethod
    def _text(cls, value: Any, info: Any) -> Any:
        return check.strict_text(value, info.field_name)

    @field_validator("user_id", "thread_id", "agent_id", mode="before")
    @classmethod
    def _scope(cls, value: Any, info: Any) -> Any:
        return value if value is None else check.scope(value, info.field_name)

    @field_validator("created_at", mode="before")
    @classmethod
    def _time(cls, value: Any) -> Any:
        return None if value is None else check.moment_input(value, "created_at")

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Any:
        return check.metadata(value)

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return check.optional_record_id(value, "turn id")

    @field_validator("seq", mode="before")
    @classmethod
    def _seq(cls, value: Any) -> Any:
        return check.strict_int(value, "seq")

    def to_turn(self, seq: int) -> Turn:
        """The :class:`Turn` to store: ``id`` and ``created_at`` defaulted (a fresh
        ``turn_...`` id; now, UTC), at position ``seq`` of its thread. Scope ids are used as
        given, never stripped.

        Raises:
            InvalidInputError (subclasses): bad scopes, empty content, unknown role.
        """
        now = utcnow()
        return Turn(
            id=self.id or new_id("turn"),
            user_id=require_scope(self.user_id),
            thread_id=require_scope(self.thread_id, "thread_id"),
            agent_id=self.agent_id,
            role=Role.parse(self.role),
            speaker=self.speaker,
            content=self.content,
            seq=seq,
            created_at=self.created_at or now,
            updated_at=now,
            metadata=self.metadata,
        )


def as_turn_input(item: TurnInput | Turn | Mapping[str, Any]) -> TurnInput:
    """``item`` as a :class:`TurnInput` (a stored :class:`Turn` keeps its id, time and seq).

    Raises:
        InvalidInputError (subclasses): not a mapping, ``TurnInput`` or ``Turn``, or not a
            valid turn.
    """
    if isinstance(item, TurnInput):
        return item
    if isinstance(item, Turn):
        item = {
            "user_id": item.user_id, "thread_id": item.thread_id or "", "role": item.role,
            "content": item.content, "speaker": item.speaker, "agent_id": item.agent_id,
            "created_at": item.created_at, "metadata": item.metadata, "id": item.id,
            "seq": item.seq if item.seq >= 0 else None,
        }
    if not isinstance(item, Mapping):
        raise InvalidInputError(f"a turn must be a mapping, a TurnInput or a Turn, got "
                                f"{type(item).__name__}")
    fields = dict(item)
    try:
        return TurnInput.model_validate(fields)
    except ValidationError as exc:
        cause = exc.errors()[0].get("ctx", {}).get("error")
        if isinstance(cause, InvalidInputError):
            raise cause from None
        where = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else "turn"
        if where in ("user_id", "thread_id", "agent_id"):
            require_scope(fields.get(where), where)
        if where == "content":
            check.text(fields.get(where), "turn content", required=True)
        raise InvalidInputError(f"invalid turn: {where}: {exc.errors()[0]['msg']}") from exc


__all__ = ["TurnInput", "as_turn_input"]

"""agent-memory's own JSON-lines conversation format: one turn per line.

The format is documented, with an example, in ``docs/jsonl-format.md``. Each non-blank line is
a JSON object with the keys:

==============  =========  =========================================================
key             required   meaning
==============  =========  =========================================================
``user_id``     yes        the partition the turn belongs to
``thread_id``   yes        the conversation (session)
``role``        yes        ``user``, ``assistant`` (alias ``agent``), ``tool``, ``system``
``content``     yes        the message text (not empty)
``speaker``     no         the speaker's name
``agent_id``    no         scopes the turn to one agent
``created_at``  no         ISO 8601 timestamp; no offset means UTC; default: load time
``id``          no         the turn id; default: derived from the line (see below)
``metadata``    no         a JSON object (``tool_name``, ``tool_call_id``, ...)
==============  =========  =========================================================

Any other key is an error, so typos are caught. A turn without ``id`` gets
:func:`default_turn_id`, computed from its user, thread, position among the file's turns of
that thread, and content: loading the same file twice yields the same ids, so re-ingesting it
updates instead of duplicating. ``seq`` is not part of the format; the store assigns it on
write, in file order.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .. import validation as check
from ..errors import InvalidInputError
from ..models import Turn, require_scope

REQUIRED_KEYS = ("user_id", "thread_id", "role", "content")
"""Keys every line must have."""

OPTIONAL_KEYS = ("speaker", "agent_id", "created_at", "id", "metadata")
"""Keys a line may have."""

_ALLOWED = frozenset(REQUIRED_KEYS + OPTIONAL_KEYS)


def default_turn_id(user_id: str, thread_id: str, position: int, content: str) -> str:
    """Deterministic id of a turn given without one: ``turn_`` + 32 hex chars.

    Args:
        user_id / thread_id: the turn's scope.
        position: 0-based index of the turn among the file's turns of that (user, thread).
        content: the turn's text.

    Returns:
        ``"turn_" + sha256(user_id, thread_id, position, content)[:32]`` (fields joined by the
        unit separator U+001F).
    """
    key = "\x1f".join((user_id, thread_id, str(position), content))
    return "turn_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _line_error(
    where: str, message: str, cls: type[InvalidInputError] = InvalidInputError
) -> InvalidInputError:
    return cls(f"{where}: {message}")


def parse_turn_line(obj: Any, *, where: str = "line", position: int = 0) -> Turn:
    """Validate one decoded line and build its :class:`~agent_memory.models.Turn`.

    Args:
        obj: the decoded JSON value of the line.
        where: how errors name the line, e.g. ``"turns.jsonl line 7"``.
        position: index of the turn within its thread in the file (for :func:`default_turn_id`).

    Raises:
        InvalidInputError: the value is not an object, has an unknown key, misses a required
            key or holds a bad value. Subclasses from :mod:`agent_memory.errors` are raised
            where one fits (``MissingScopeError``, ``EmptyContentError``, ``UnknownRoleError``).
    """
    if not isinstance(obj, dict):
        hint = (" (a LoCoMo JSON file is read with the locomo format)"
                if isinstance(obj, list) else "")
        raise _line_error(where, f"expected a JSON object, got {type(obj).__name__}{hint}")
    unknown = sorted(set(obj) - _ALLOWED)
    if unknown:
        raise _line_error(where, f"unknown key(s) {', '.join(unknown)}; allowed: "
                          f"{', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)}")
    missing = [key for key in REQUIRED_KEYS if key not in obj]
    if missing:
        raise _line_error(where, f"missing required key(s) {', '.join(missing)}")
    fields = dict(obj)
    try:
        fields["user_id"] = require_scope(obj["user_id"], "user_id")
        fields["thread_id"] = require_scope(obj["thread_id"], "thread_id")
        check.strict_text(obj["content"], "content")
        check.text(obj["content"], "content")
        check.strict_text(obj.get("speaker"), "speaker")
        if obj.get("created_at") is not None:
            fields["created_at"] = check.moment_input(obj["created_at"], "created_at")
        check.metadata(obj.get("metadata"))
        check.optional_record_id(obj.get("id"), "id")
    except InvalidInputError as exc:
        raise _line_error(where, str(exc), type(exc)) from None
    if fields.get("metadata") is None:
        fields.pop("metadata", None)
    if fields.get("id") is None:
        content = obj["content"] if isinstance(obj["content"], str) else ""
        fields["id"] = default_turn_id(fields["user_id"], fields["thread_id"], position, content)
    try:
        return Turn.model_validate(fields)
    except ValidationError as exc:
        raise from_validation_error(where, exc) from None


def from_validation_error(where: str, exc: ValidationError) -> InvalidInputError:
    """Translate a pydantic ``ValidationError`` into our error, prefixed with ``where``.

    When a model validator raised one of our :class:`InvalidInputError` subclasses
    (``EmptyContentError``, ``UnknownRoleError``, ...), that class is kept.
    """
    first = exc.errors()[0]
    cause = first.get("ctx", {}).get("error")
    field = ".".join(str(part) for part in first["loc"]) or "value"
    if isinstance(cause, InvalidInputError):
        return _line_error(where, f"{field}: {cause}", type(cause))
    return _line_error(where, f"{field}: {first['msg']}")


def iter_jsonl(path: str | Path) -> Iterator[Turn]:
    """Stream the turns of a JSON-lines file, validating each line as it is read.

    Blank lines are skipped. Errors name the file and the 1-based line number.

    Raises:
        InvalidInputError: the file cannot be read, a line is not valid UTF-8 or JSON, or a
            line is not a valid turn (see :func:`parse_turn_line`).
    """
    path = Path(path)
    positions: Counter[tuple[str, str]] = Counter()
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path} line {number}"
            try:
                text = raw.decode("utf-8")
                if number == 1:
                    text = text.removeprefix("\ufeff")  # tolerate a UTF-8 byte-order mark
            except UnicodeDecodeError as exc:
                raise InvalidInputError(f"{where}: not UTF-8: {exc}") from None
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") \
                    from None
            except RecursionError:
                raise InvalidInputError(f"{where}: JSON nested too deeply") from None
            scope = (str(obj.get("user_id")), str(obj.get("thread_id"))) \
                if isinstance(obj, dict) else ("", "")
            turn = parse_turn_line(obj, where=where, position=positions[scope])
            positions[scope] += 1
            yield turn


def load_jsonl(path: str | Path) -> list[Turn]:
    """Read and validate a whole JSON-lines file before returning any turn.

    Returns:
        The turns in file order (``seq`` is -1: the store assigns it on write).

    Raises:
        InvalidInputError: as :func:`iter_jsonl`; nothing is returned when any line is bad.
    """
    return list(iter_jsonl(path))


def turn_to_json(turn: Turn) -> dict[str, Any]:
    """The JSON object of one line for ``turn``: required keys, then the optional ones set."""
    obj: dict[str, Any] = {
        "id": turn.id,
        "user_id": turn.user_id,
        "thread_id": turn.thread_id,
        "role": turn.role.value,
        "content": turn.content,
    }
    if turn.speaker is not None:
        obj["speaker"] = turn.speaker
    if turn.agent_id is not None:
        obj["agent_id"] = turn.agent_id
    obj["created_at"] = turn.created_at.isoformat()
    if turn.metadata:
        obj["metadata"] = turn.metadata
    return obj


def dump_jsonl(turns: Iterable[Turn], path: str | Path) -> int:
    """Write turns to ``path`` in the JSON-lines format (UTF-8, one object per line).

    The file is written to a temporary sibling and renamed over ``path``, so a failure leaves
    any previous file intact.

    Returns:
        The number of turns written.

    Raises:
        InvalidInputError: a turn has no ``thread_id`` (the format requires one) or its
            metadata is not JSON-serialisable.
    """
    path = Path(path)
    lines: list[str] = []
    for turn in turns:
        if not turn.thread_id:
            raise InvalidInputError(f"turn {turn.id}: the JSON-lines format requires thread_id")
        try:
            lines.append(json.dumps(turn_to_json(turn), ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"turn {turn.id}: cannot write as JSON: {exc}") from exc
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(path)
    return len(lines)

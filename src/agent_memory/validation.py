"""Checks every public call runs on its arguments before it touches a store.

Each check returns the value it accepts (an enum member for an option, an aware UTC datetime
for a time) or raises a typed :class:`~agent_memory.errors.InvalidInputError`, so a bad
argument never reaches the store and nothing is written. The rules:

==============  ==============================================================================
scope ids       ``user_id``, ``thread_id``, ``agent_id``, ``session_id``: a non-blank ``str``
                of at most :data:`MAX_ID_CHARS` characters, used exactly as given.
                Surrounding whitespace, a control character (C0, DEL, C1), a lone
                surrogate, a ``/`` or the whole id ``.`` / ``..`` is
                :class:`InvalidScopeError`, never stripped, so ``'victim '`` or
                ``'victim\\x1f'`` cannot name user ``victim``, and every id can be one path
                segment of a REST URL. ``None`` or blank: :class:`MissingScopeError`.
record ids      turn, fact and other record ids given by a caller: the rules of scope ids
                up to :data:`MAX_RECORD_ID_CHARS` characters; an empty id is :class:`InvalidInputError` (never "generate one").
metadata        a ``dict`` with ``str`` keys of JSON values (``None``, ``bool``, ``int``
                within 64 bits, finite ``float``, text, lists, dicts) nested at most
                :data:`MAX_DEPTH` deep, every string valid Unicode; NaN / infinity is
                :class:`InvalidNumberError`, a lone surrogate :class:`InvalidTextError`,
                anything else :class:`InvalidInputError`. Nothing is coerced.
counts          ``k``, ``limit``, ``top_k_vectors``, ``max_memories``, ``n``: an ``int`` (not a
                ``bool``) from 1 to :data:`MAX_K`; :class:`InvalidNumberError` otherwise.
numbers         weights, alphas, scores, confidences, seconds: finite (no NaN, no infinity)
                and within their documented range; :class:`InvalidNumberError`.
options         kinds, modes, strategies, relevance sources, job states: one of the enum's
                values; :class:`UnknownOptionError` naming the allowed ones.
text            content, queries, contexts: a ``str`` that encodes as UTF-8 (no lone
                surrogate such as ``"\\ud800"``); :class:`InvalidTextError`.
vectors         a 1-d sequence or array of real numbers (not text, not bytes) of the store's
                dimension, every one finite; :class:`DimensionMismatchError` for the shape,
                :class:`InvalidNumberError` otherwise.
datetimes       a ``datetime`` whose UTC conversion stays in range (naive = UTC), or where a
                mapping is parsed (a turn's ``created_at``) an ISO 8601 string; never a
                number (seconds or milliseconds would be a guess); :class:`InvalidTimeError`.
==============  ==============================================================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import Any, TypeVar

import numpy as np

from .errors import (
    ContentTooLargeError,
    DimensionMismatchError,
    EmptyContentError,
    InvalidInputError,
    InvalidNumberError,
    InvalidScopeError,
    InvalidTextError,
    InvalidTimeError,
    MissingScopeError,
    UnknownOptionError,
)

MAX_K = 1_000
"""Largest count one call accepts (``k`` of a search, ``limit`` of a listing, ``max_memories``,
``top_k_vectors``, the reconcile pool ``n``): bounds the rows one request reads and ranks."""

MAX_ID_CHARS = 255
"""Longest id (scope or record) accepted: Azure Cosmos DB's limit on a document id."""

MAX_RECORD_ID_CHARS = 600
"""Longest record id accepted: room for derived ids such as ``summary_{user}_{thread}``."""

MAX_DEPTH = 32
"""Deepest nesting of lists and dicts accepted in metadata."""

MAX_INT = 2**63 - 1
"""Largest magnitude of an integer in metadata (a signed 64-bit integer, what SQLite holds)."""

E = TypeVar("E", bound=Enum)

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""The characters of Unicode category ``Cc`` (C0, DEL, C1): one regex scan per scope id."""


def _encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def scope(value: Any, name: str = "user_id", *, max_chars: int = MAX_ID_CHARS) -> str:
    """Return the scope id ``value`` unchanged when it is a clean, non-blank string.

    Raises:
        MissingScopeError: ``value`` is ``None``, empty or only whitespace.
        InvalidScopeError: not a ``str``, or surrounded by whitespace, or holding a control
            character or a lone surrogate.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise MissingScopeError(f"{name} is required and must be a non-empty string")
    if not isinstance(value, str):
        raise InvalidScopeError(f"{name} must be a string, got {type(value).__name__}")
    if _CONTROL.search(value) or not _encodes(value):
        raise InvalidScopeError(f"{name} {value!r} holds a control character or a lone "
                                "surrogate")
    if value != value.strip():
        raise InvalidScopeError(f"{name} {value!r} has surrounding whitespace; ids are used "
                                "exactly as given, never stripped")
    if len(value) > max_chars:
        raise InvalidScopeError(f"{name} is {len(value)} characters; the limit is "
                                f"{max_chars}")
    if "/" in value or value in (".", ".."):
        raise InvalidScopeError(f"{name} {value!r} holds '/' or is a dot segment; an id must "
                                "be usable as one path segment of a URL")
    return value


def record_id(value: Any, name: str = "id") -> str:
    """Return a record id (``fact_id``, ...) when it is a clean, non-blank string (the rules of
    :func:`scope`).

    Raises:
        InvalidInputError: anything else (a missing id is bad input, not a missing record).
    """
    try:
        return scope(value, name, max_chars=MAX_RECORD_ID_CHARS)
    except MissingScopeError as exc:
        raise InvalidInputError(str(exc)) from None


def optional_record_id(value: Any, name: str = "id") -> str | None:
    """``None`` (the id is assigned), or :func:`record_id` of ``value`` (``""`` is refused)."""
    return None if value is None else record_id(value, name)


def optional_scope(value: Any, name: str) -> str | None:
    """``None``, or :func:`scope` of ``value`` (an optional filter such as ``thread_id``)."""
    return None if value is None else scope(value, name)


def text(value: Any, name: str = "content", *, required: bool = False) -> str:
    """Return ``value`` when it is a string that encodes as UTF-8.

    Args:
        required: also reject an empty or whitespace-only string.

    Raises:
        InvalidTextError: not a ``str``, or a lone surrogate in it.
        EmptyContentError: ``required`` and the text is blank.
    """
    if not isinstance(value, str):
        raise InvalidTextError(f"{name} must be a string, got {type(value).__name__}")
    if not _encodes(value):
        raise InvalidTextError(f"{name} holds a lone surrogate (not valid Unicode text)")
    if required and not value.strip():
        raise EmptyContentError(f"{name} must not be empty")
    return value


def content(value: Any, max_chars: int, name: str = "content") -> str:
    """Return ``value`` when it is non-blank text (:func:`text`) of at most ``max_chars``
    characters (``Settings.max_content_chars``).

    Raises:
        InvalidTextError / EmptyContentError: as :func:`text` with ``required``.
        ContentTooLargeError: longer than ``max_chars``.
    """
    text(value, name, required=True)
    if len(value) > max_chars:
        raise ContentTooLargeError(f"{name} is {len(value)} characters; the limit is "
                                   f"{max_chars} (Settings.max_content_chars)")
    return value


def count(value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_K) -> int:
    """Return the integer ``value`` when ``minimum <= value <= maximum``.

    Raises:
        InvalidNumberError: not an ``int`` (a ``bool`` or float included) or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidNumberError(f"{name} must be an integer, got {value!r}")
    if not minimum <= value <= maximum:
        raise InvalidNumberError(f"{name} must be from {minimum} to {maximum}, got {value}")
    return value


def optional_count(value: Any, name: str, *, maximum: int = MAX_K) -> int | None:
    """``None``, or :func:`count` of ``value``."""
    return None if value is None else count(value, name, maximum=maximum)


def number(value: Any, name: str, *, minimum: float | None = None,
           maximum: float | None = None) -> float:
    """Return ``value`` as a float when it is a finite real number within the bounds.

    Raises:
        InvalidNumberError: not a number (a ``bool`` included), NaN, infinite or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidNumberError(f"{name} must be a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise InvalidNumberError(f"{name} must be a finite number, got {value!r}")
    if (minimum is not None and result < minimum) or (maximum is not None and result > maximum):
        low = "-inf" if minimum is None else f"{minimum:g}"
        high = "inf" if maximum is None else f"{maximum:g}"
        raise InvalidNumberError(f"{name} must be within {low}-{high}, got {value!r}")
    return result


def option(enum: type[E], value: Any, name: str) -> E:
    """The member of ``enum`` named by ``value`` (a member or its value).

    Raises:
        UnknownOptionError: no such member; the message lists the allowed values.
    """
    try:
        return enum(value)
    except (ValueError, TypeError):
        allowed = ", ".join(str(m.value) for m in enum)
        raise UnknownOptionError(f"unknown {name} {value!r}; expected one of {allowed}") \
            from None


def options(enum: type[E], values: Iterable[Any] | None, name: str) -> frozenset[E] | None:
    """``None`` for no filter, else the set of :func:`option` of each value (a single string
    is one value, not its characters)."""
    if values is None:
        return None
    if isinstance(values, str | Enum):
        values = [values]
    return frozenset(option(enum, v, name) for v in values)


def moment(value: Any, name: str) -> datetime:
    """Return ``value`` as an aware UTC datetime (naive values are taken to be UTC).

    Raises:
        InvalidTimeError: not a ``datetime``, or its UTC conversion overflows (e.g.
            ``datetime.max`` at UTC-5, ``datetime.min`` at UTC+5).
    """
    if not isinstance(value, datetime):
        raise InvalidTimeError(f"{name} must be a datetime, got {type(value).__name__}")
    try:
        result = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        result.timestamp()
    except (OverflowError, ValueError) as exc:
        raise InvalidTimeError(f"{name} {value.isoformat()} is out of range in UTC: {exc}") \
            from None
    return result


def optional_moment(value: Any, name: str) -> datetime | None:
    """``None``, or :func:`moment` of ``value``."""
    return None if value is None else moment(value, name)


def age(value: Any, name: str) -> timedelta:
    """A non-negative time span given as a ``timedelta`` or seconds, that can be subtracted
    from now.

    Raises:
        InvalidNumberError: seconds that are not finite or are negative.
        InvalidTimeError: a span so large that now minus it is before year 1.
    """
    if isinstance(value, timedelta):
        span = value
    else:
        try:
            span = timedelta(seconds=number(value, name, minimum=0.0))
        except OverflowError:
            raise InvalidTimeError(f"{name} {value!r} is too long a time span") from None
    if span < timedelta(0):
        raise InvalidNumberError(f"{name} must not be negative, got {span}")
    try:
        datetime.now(UTC) - span
    except OverflowError:
        raise InvalidTimeError(f"{name} {span} reaches before year 1") from None
    return span


def moment_input(value: Any, name: str) -> datetime:
    """A time given in a mapping (a JSON line, a request body): a ``datetime`` or an ISO 8601
    string, returned as :func:`moment` does. A number is refused, never read as seconds or
    milliseconds since the epoch.

    Raises:
        InvalidTimeError: another type, an unparsable string, or out of range in UTC.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidTimeError(f"{name} {value[:60]!r} is not an ISO 8601 time") from None
    return moment(value, name)


def metadata(value: Any, name: str = "metadata") -> dict[str, Any]:
    """Return ``value`` unchanged when it is a dict of JSON values (rules in the module
    docstring); ``None`` is an empty dict.

    Raises:
        InvalidNumberError: NaN, infinity or an integer beyond 64 bits anywhere in it.
        InvalidTextError: a key or string holding a lone surrogate.
        InvalidInputError: not a dict, a non-string key, a value that is not JSON (bytes, a
            set, an object), or nesting deeper than :data:`MAX_DEPTH`.
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError(f"{name} must be an object (dict), got {type(value).__name__}")
    stack: list[tuple[Any, str, int]] = [(value, name, 0)]
    while stack:
        item, where, depth = stack.pop()
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if abs(item) > MAX_INT:
                raise InvalidNumberError(f"{where} is an integer beyond 64 bits")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidNumberError(f"{where} must be a finite number, got {item!r}")
        elif isinstance(item, str):
            text(item, where)
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise InvalidInputError(f"{where} is nested deeper than {MAX_DEPTH} levels")
            if isinstance(item, list):
                stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))
                continue
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise InvalidInputError(f"{where} has a {type(key).__name__} key; keys "
                                            "must be strings")
                text(key, f"a key of {where}")
                stack.append((inner, f"{where}.{key}", depth + 1))
        else:
            raise InvalidInputError(f"{where} holds a {type(item).__name__}, not a JSON value")
    return value


def strict_text(value: Any, name: str) -> Any:
    """``value`` unchanged when it is ``None`` or a ``str`` (a pydantic ``mode="before"``
    guard: ``bytes`` are never decoded into text).

    Raises:
        InvalidTextError: any other type.
    """
    if value is not None and not isinstance(value, str):
        raise InvalidTextError(f"{name} must be a string, got {type(value).__name__}")
    return value


def strict_int(value: Any, name: str) -> Any:
    """``value`` unchanged when it is ``None`` or an ``int`` that is not a ``bool``.

    Raises:
        InvalidNumberError: any other type (``"10"``, ``True``, ``1.0``).
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidNumberError(f"{name} must be an integer, got {value!r}")
    return value


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` made serialisable as strict JSON, to echo a refused input back (a bulk
    add's ``failed`` items, a problem's ``errors``): lone surrogates as ``\\udXXX`` escapes,
    NaN / infinity and any non-JSON object as their ``repr``, nesting below
    :data:`MAX_DEPTH` as ``"..."``."""
    if depth > MAX_DEPTH:
        return "..."
    if isinstance(value, dict):
        return {json_safe(str(k)): json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return json_safe(repr(value), depth + 1)


def vector(value: Any, dim: int, what: str) -> np.ndarray:
    """``value`` as a float32 array of shape ``(dim,)``, every element finite.

    Raises:
        InvalidNumberError: text, bytes or non-numbers in it, NaN or infinity.
        DimensionMismatchError: not one-dimensional of length ``dim``.
    """
    if isinstance(value, str | bytes | bytearray | memoryview | dict):
        raise InvalidNumberError(f"{what}: a vector must be numbers, got "
                                 f"{type(value).__name__}")
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf":
            raise TypeError(arr.dtype)
        arr = arr.astype(np.float32)
    except (TypeError, ValueError, OverflowError):
        raise InvalidNumberError(f"{what}: a vector must be a sequence of real numbers") \
            from None
    if arr.ndim != 1 or arr.shape[0] != dim:
        raise DimensionMismatchError(
            f"{what}: vector of shape {arr.shape}, but the store holds {dim}-dimensional vectors")
    if not np.isfinite(arr).all():
        raise InvalidNumberError(f"{what}: vector contains NaN or infinity")
    return arr

"""Value filters and namespace conditions with the semantics of LangGraph's own stores.

A filter ``{"field": spec}`` matches a value when every field matches: a plain value by
equality, a list element by element, a dict without ``$`` keys field by field (nested), a dict
of operators by all of them (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``; the order
comparisons numeric, as in ``langgraph.store.memory.InMemoryStore`` and PostgreSQL JSONB).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UnknownOptionError

_ORDER: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le}


def _apply(value: Any, op: str, wanted: Any) -> bool:
    if op == "$eq":
        return bool(value == wanted)
    if op == "$ne":
        return bool(value != wanted)
    if op not in _ORDER:
        raise UnknownOptionError(f"unknown filter operator {op!r}; use one of "
                                 "$eq, $ne, $gt, $gte, $lt, $lte")
    try:
        return _ORDER[op](float(value), float(wanted))
    except (TypeError, ValueError):
        return False


def _compare(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_apply(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, dict) and all(
            _compare(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(wanted)
                and all(_compare(a, b) for a, b in zip(value, wanted, strict=True)))
    return bool(value == wanted)


def matches(value: dict[str, Any], value_filter: dict[str, Any] | None) -> bool:
    """Whether ``value`` passes ``value_filter`` (``None`` or ``{}`` passes everything).

    Raises:
        UnknownOptionError: an operator other than the six above.
    """
    return all(_compare(value.get(k), v) for k, v in (value_filter or {}).items())


def namespace_matches(condition: Any, namespace: Sequence[str]) -> bool:
    """Whether ``namespace`` meets a ``MatchCondition`` (prefix or suffix, ``"*"`` wildcards)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    ends = namespace[:len(path)] if condition.match_type == "prefix" else (
        namespace[len(namespace) - len(path):])
    return all(p == "*" or p == n for p, n in zip(path, ends, strict=True))

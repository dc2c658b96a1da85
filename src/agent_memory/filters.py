"""The read filters of every surface, in one value object: :class:`MemoryFilter`.

``AsyncMemory.search`` / ``get_memories`` / ``get_memories_page``, their
:class:`~agent_memory.remote.RemoteMemory` counterparts, the REST service (query parameters of
``GET /v1/users/{u}/memories``, the body of ``POST .../search``) and the CLI (``search``,
``memories``) all take these filters, built from this one definition::

    from agent_memory import MemoryFilter

    recent_facts = MemoryFilter(kinds=["fact"], since=datetime(2024, 5, 1, tzinfo=UTC))
    hits = await memory.search("alice", "where does she live?", filter=recent_facts)
    # the same as keyword arguments:
    hits = await memory.search("alice", "where does she live?", kinds=["fact"], since=...)

A filter is checked when it is made (the typed errors of :mod:`agent_memory.errors`), so a bad
value is refused before anything is read, by whichever surface it came through. Each field's
metadata says what kind of value it is (:data:`VALUE_KINDS`), how it is documented and its CLI
option: the service and the CLI build their parameters from it, so a new filter is a new field
here (and in :class:`FilterArgs`, the keyword form of the same fields).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, TypedDict

from . import validation as check
from .errors import InvalidInputError
from .models import RecordKind

VALUE_KINDS = ("kinds", "id", "time", "flag")
"""What a filter field holds, which decides its type on each surface: record kinds (a list of
names), a scope id (a string), a time (a ``datetime``; ISO 8601 over HTTP and on the command
line) or a flag (a boolean)."""


def _meta(value: str, option: str, help: str, query: str | None = None) -> dict[str, str]:
    """A field's metadata: its :data:`VALUE_KINDS` entry, CLI option, help text and (when it
    differs from the field's name) its name as a REST query parameter."""
    assert value in VALUE_KINDS
    return {"value": value, "option": option, "help": help, "query": query or ""}


@dataclass(frozen=True)
class MemoryFilter:
    """Which records a read returns (every field optional; the default filters nothing but
    retired facts).

    Attributes:
        kinds: record kinds to include (turn, summary, fact, interaction, insight, profile);
            given as names or :class:`~agent_memory.models.RecordKind` members, held as a
            frozenset; ``None`` (or empty): every kind.
        thread_id: only this thread's records.
        agent_id: only this agent's records and shared ones (records without an agent).
        since / until: ``created_at`` range, inclusive / exclusive (naive times are UTC; held
            as aware UTC datetimes).
        include_superseded: also facts retired by reconciliation.
        as_of: the facts valid at this time (``valid_from <= as_of < valid_until``: facts a
            later contradiction retired count for the time they held); other kinds are not
            filtered by it. ``None``: the current facts.

    Raises:
        UnknownOptionError: an unknown kind.
        InvalidScopeError: a ``thread_id`` / ``agent_id`` that is not a clean string.
        InvalidTimeError: a time that is not a ``datetime`` or is out of range in UTC.
        InvalidInputError: ``include_superseded`` is not a boolean.
    """

    kinds: Collection[RecordKind | str] | None = field(default=None, metadata=_meta(
        "kinds", "--kind", "Record kinds (turn, summary, fact, interaction, insight, "
        "profile); default every kind.", query="kind"))
    thread_id: str | None = field(default=None, metadata=_meta(
        "id", "--thread", "Only this thread's records."))
    agent_id: str | None = field(default=None, metadata=_meta(
        "id", "--agent", "Only this agent's records and shared ones."))
    since: datetime | None = field(default=None, metadata=_meta(
        "time", "--since", "Only records created at or after this time (ISO 8601, UTC when "
        "no offset)."))
    until: datetime | None = field(default=None, metadata=_meta(
        "time", "--until", "Only records created before this time (ISO 8601, UTC when no "
        "offset)."))
    include_superseded: bool = field(default=False, metadata=_meta(
        "flag", "--include-superseded", "Also facts retired by reconciliation."))
    as_of: datetime | None = field(default=None, metadata=_meta(
        "time", "--as-of", "The facts and insights valid at this time (ISO 8601), including "
        "those a later contradiction retired; default the current ones. Other kinds are not "
        "bounded by it (until bounds them)."))

    def __post_init__(self) -> None:
        kinds: Any = self.kinds
        checked = {
            "kinds": check.options(RecordKind, kinds, "kind") if kinds else None,
            "thread_id": check.optional_scope(self.thread_id, "thread_id"),
            "agent_id": check.optional_scope(self.agent_id, "agent_id"),
            "since": check.optional_moment(self.since, "since"),
            "until": check.optional_moment(self.until, "until"),
            "include_superseded": _flag(self.include_superseded, "include_superseded"),
            "as_of": check.optional_moment(self.as_of, "as_of"),
        }
        assert checked.keys() == {f.name for f in fields(self)}, "check every field"
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def build(cls, base: MemoryFilter | None = None,
              args: Mapping[str, Any] | None = None) -> MemoryFilter:
        """The filter of a call: ``base`` (a ``filter=`` argument) with the keyword filters
        ``args`` over it.

        Raises:
            TypeError: a name in ``args`` that is not a filter (as for an unknown keyword
                argument). InvalidInputError: ``base`` is not a :class:`MemoryFilter`; the
                errors of the constructor.
        """
        args = dict(args or {})
        unknown = sorted(set(args) - set(FILTER_FIELDS))
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the filters are "
                            f"{', '.join(FILTER_FIELDS)})")
        if base is None:
            return cls(**args)
        if not isinstance(base, MemoryFilter):
            raise InvalidInputError(f"filter must be a MemoryFilter, not {type(base).__name__}")
        return replace(base, **args) if args else base

    def values(self) -> dict[str, Any]:
        """Every field by name: the arguments of the store's ``RecordQuery`` and of
        ``SearchFilters``, which name them the same."""
        return {name: getattr(self, name) for name in FILTER_FIELDS}

    def to_json(self) -> dict[str, Any]:
        """The fields that filter something, as JSON values (kinds as a sorted list of names,
        times in ISO 8601): the body of a REST request. Default fields are left out."""
        body: dict[str, Any] = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is None or value is False:
                continue
            if isinstance(value, frozenset):
                value = sorted(kind.value for kind in value)
            elif isinstance(value, datetime):
                value = value.isoformat()
            body[spec.name] = value
        return body

    def to_query(self) -> dict[str, Any]:
        """:meth:`to_json` named as the REST query parameters (``kind`` for ``kinds``)."""
        names = {f.name: f.metadata["query"] or f.name for f in fields(self)}
        return {names[name]: value for name, value in self.to_json().items()}


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be true or false, got {value!r}")
    return value


FILTER_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MemoryFilter))
"""The names of :class:`MemoryFilter`'s fields, in order."""


def filter_fields() -> Iterable[tuple[str, Mapping[str, str]]]:
    """Each field's name and metadata (``value``, ``option``, ``help``, ``query``), in order:
    what the surfaces build their parameters from."""
    return [(f.name, f.metadata) for f in fields(MemoryFilter)]


class FilterArgs(TypedDict, total=False):
    """The fields of :class:`MemoryFilter` as keyword arguments (``**filters``) of the read
    methods; each has the meaning and default of the field of that name."""

    kinds: Sequence[RecordKind | str] | None
    thread_id: str | None
    agent_id: str | None
    since: datetime | None
    until: datetime | None
    include_superseded: bool
    as_of: datetime | None


__all__ = ["FILTER_FIELDS", "VALUE_KINDS", "FilterArgs", "MemoryFilter", "filter_fields"]

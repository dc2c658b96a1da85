"""The options several commands share, defined once: ``--store``, ``--user`` and the read
filter (:func:`filter_options`, built from :class:`~agent_memory.filters.MemoryFilter`).

A command takes the first two as annotated parameters (``store: StoreOpt = None``,
``user: UserOpt``) and the filter as one parameter, ``filter: MemoryFilter``, that
:func:`filter_options` turns into an option per filter field. The ``--reasoner`` options are
in :mod:`.reasoner_options`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..filters import FILTER_FIELDS, MemoryFilter, filter_fields

if TYPE_CHECKING:
    from ..config import Settings

StoreOpt = Annotated[str | None, typer.Option(
    "--store", "-s", help="The store: a SQLite file path, or scheme://... of a store backend "
    "(cosmos://..., or one a plugin registers). Default: AGENT_MEMORY_STORE or "
    "~/.local/share/agent-memory/memory.db.")]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="The user id (partition).")]


def reading(store: str | None, **overrides: Any) -> Settings:
    """The settings of a command that needs an existing ``store`` (``--store``, else
    ``AGENT_MEMORY_STORE`` or the default path), with ``overrides``.

    Raises:
        StoreNotFoundError: ``store`` is a SQLite path (or ``sqlite:PATH``) with no file there:
            a mistyped path would otherwise create an empty store and read as "no memories".
        StoreError: the path cannot be checked (a name too long, an unreadable folder).
        ConfigError: a setting cannot be used.
    """
    from ..config import Settings
    from ..errors import StoreError, StoreNotFoundError
    from ..stores import store_scheme
    from ..stores.builtin import sqlite_path

    settings = Settings.load(store=str(store) if store else None, **overrides)
    path = sqlite_path(settings.store)
    if store_scheme(settings.store) not in (None, "sqlite") or "\x00" in path:
        return settings  # another backend, or a path the store refuses with its own error
    try:
        found = Path(path).exists()
    except OSError as exc:  # a name too long, a folder that cannot be read
        raise StoreError(f"cannot open store {path}: {exc}") from exc
    if not found:
        raise StoreNotFoundError(
            f"no store at {settings.store}: check --store (or AGENT_MEMORY_STORE, or the "
            "store of agent-memory.toml); a store is made by ingest, chat, demo --store PATH "
            "or the library's writes")
    return settings


OPTION_TYPES: dict[str, tuple[Any, Any]] = {
    "kinds": (list[str] | None, None),
    "id": (str | None, None),
    "time": (datetime | None, None),
    "flag": (bool, False),
}
"""The command-line type and default of each kind of filter field
(:data:`agent_memory.filters.VALUE_KINDS`); times are read as UTC dates or dates and times."""

PREFIX = "filter_"
"""The Python name of a generated option is the field's name after this prefix."""


def filter_option(name: str) -> Any:
    """The typer annotation of one :class:`MemoryFilter` field's option (its ``option`` name
    and help text; kinds repeatable): for a command that takes that field alone
    (``as_of: AsOfOpt = None``).

    Raises:
        KeyError: no filter field has that name.
    """
    meta = dict(filter_fields())[name]
    kind, _ = OPTION_TYPES[meta["value"]]
    help = meta["help"] + (" Repeatable." if meta["value"] == "kinds" else "")
    return Annotated[kind, typer.Option(meta["option"], help=help)]


def filter_parameters() -> list[inspect.Parameter]:
    """One keyword parameter per :class:`MemoryFilter` field, annotated as a typer option
    (:func:`filter_option`), with the field's command-line default."""
    return [inspect.Parameter(PREFIX + name, inspect.Parameter.KEYWORD_ONLY,
                              default=OPTION_TYPES[meta["value"]][1],
                              annotation=filter_option(name))
            for name, meta in filter_fields()]


AsOfOpt = filter_option("as_of")
"""``--as-of`` alone, as the filter options define it."""


def filter_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the filter options: its ``filter`` parameter is replaced, in the
    signature typer reads, by one option per :class:`MemoryFilter` field, and the command is
    called with the :class:`MemoryFilter` they make.

    Raises (when the command runs):
        InvalidInputError (subclasses): a bad value, as the Python API raises it.
    """
    signature = inspect.signature(command, eval_str=True)
    if "filter" not in signature.parameters:
        raise TypeError(f"{command.__name__} takes no filter parameter")
    parameters = [p for p in signature.parameters.values() if p.name != "filter"]
    parameters += filter_parameters()

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(PREFIX + name) for name in FILTER_FIELDS}
        return command(*args, filter=MemoryFilter(**_cleaned(values)), **kwargs)

    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


def _cleaned(values: Mapping[str, Any]) -> dict[str, Any]:
    """Typer's values as filter fields (an empty ``--kind`` list is no filter)."""
    return {name: (value or None) if isinstance(value, list) else value
            for name, value in values.items()}


__all__ = ["AsOfOpt", "StoreOpt", "UserOpt", "filter_option", "filter_options",
           "filter_parameters"]

"""The registry of ``agent-memory`` commands, filled from the ``agent_memory.commands``
entry-point group (as simonw/llm's plugins add commands), and :func:`handles_errors`.

An entry point names a function ``register(app: typer.Typer) -> None`` that adds commands (or
command groups) to the app. A third party adds its own in its ``pyproject.toml``::

    [project.entry-points."agent_memory.commands"]
    backup = "my_package.cli:register"

    # my_package/cli.py
    from agent_memory.cli.commands import handles_errors
    from agent_memory.cli.options import StoreOpt, UserOpt

    def register(app):
        @app.command()
        @handles_errors
        def backup(user: UserOpt, store: StoreOpt = None) -> None: ...

The built-in commands are registered the same way: :data:`BUILTIN` is the table
``pyproject.toml`` declares (a test keeps them equal), registered through the registry first
so a source checkout that was never installed has them too. A plugin whose module cannot be
imported, or whose ``register`` fails, is skipped with a warning on stderr; the other commands
still work.
"""

from __future__ import annotations

import functools
from typing import Any

import typer

from ..errors import AgentMemoryError
from ..plugins import Registry
from .render import err_console

BUILTIN = {
    "core": "agent_memory.cli.core:register",
    "memories": "agent_memory.cli.memories:register",
    "sessions": "agent_memory.cli.sessions:register",
    "maintenance": "agent_memory.cli.maintenance:register",
    "recall": "agent_memory.cli.recall:register",
    "setup": "agent_memory.cli.setup:register",
    "serve": "agent_memory.cli.serve:register",
    "mcp": "agent_memory.cli.mcp:register",
    "copy": "agent_memory.cli.copy:register",
}
"""The built-in command modules: name -> ``"module:register"``, in the order their commands
are listed (the entry points of ``pyproject.toml``)."""

COMMANDS = Registry("agent_memory.commands", "command plugin", BUILTIN)
"""Command registrars by name: the built-ins, then the ``agent_memory.commands`` entry points."""

HANDLES_ERRORS = "__agent_memory_handles_errors__"
"""Attribute :func:`handles_errors` sets on the commands it wraps."""


def handles_errors(func):
    """Turn our errors into one line on stderr, ``error: <ErrorClass>: <message>`` (newlines
    in the message folded, never wrapped, no traceback), and exit code 2. Every command is
    wrapped (``tests/cli`` checks it through :data:`HANDLES_ERRORS`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgentMemoryError as exc:
            message = str(exc).replace("\r", " ").replace("\n", " ")
            err_console.print(f"error: {type(exc).__name__}: {message}", style="red",
                              markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    setattr(wrapper, HANDLES_ERRORS, True)
    return wrapper


def register_all(app: typer.Typer) -> list[str]:
    """Add every registered command module's commands to ``app``: the built-ins in
    :data:`BUILTIN` order, then the plugins by name.

    Returns:
        The names of the command modules registered (a broken plugin is left out, with a
        warning on stderr).
    """
    names = [*BUILTIN, *(name for name in COMMANDS.names() if name not in BUILTIN)]
    done = []
    for name in names:
        try:
            COMMANDS.get(name)(app)
        except Exception as exc:  # a third party's import or register failed: keep the CLI
            if name in BUILTIN:
                raise
            err_console.print(f"warning: command plugin {name!r} skipped: {exc}",
                              markup=False, highlight=False, soft_wrap=True)
            continue
        done.append(name)
    return done


__all__ = ["BUILTIN", "COMMANDS", "HANDLES_ERRORS", "handles_errors", "register_all"]

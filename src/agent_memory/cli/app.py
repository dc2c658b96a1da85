"""The ``agent-memory`` command line (typer + rich).

Commands come from the ``agent_memory.commands`` entry-point group (:mod:`.commands`): the
built-ins (:mod:`.core`: ingest, search, summary, profile, demo, eval locomo, eval
locomo-memory, model export; and :mod:`.memories`, :mod:`.sessions`, :mod:`.maintenance`,
:mod:`.recall`, :mod:`.setup`, :mod:`.serve`, :mod:`.mcp`, :mod:`.copy`), then any a plugin
registers. Every command takes ``--store SPEC`` (a SQLite path or a registered
``scheme://...``; or ``AGENT_MEMORY_STORE``) and ``--user``, both defined once in
:mod:`.options`; errors of ours print one clear line and exit 2 (:func:`handles_errors`).
"""

from __future__ import annotations

import typer

from .commands import HANDLES_ERRORS, handles_errors, register_all


def build_app() -> typer.Typer:
    """A fresh ``agent-memory`` app with every registered command (built-ins, then plugins
    read from the entry points)."""
    built = typer.Typer(
        name="agent-memory",
        help="Memory for LLM agents: store turns, distil summaries and facts, search them.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )
    register_all(built)
    return built


app = build_app()


def main() -> None:
    """Entry point of the ``agent-memory`` script."""
    app()


__all__ = ["HANDLES_ERRORS", "app", "build_app", "handles_errors", "main"]

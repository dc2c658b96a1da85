"""The options several commands share, defined once: ``--store`` and ``--user``.

A command takes them as annotated parameters (``store: StoreOpt = None``, ``user: UserOpt``).
The ``--reasoner`` options are in :mod:`.reasoner_options`.
"""

from __future__ import annotations

from typing import Annotated

import typer

StoreOpt = Annotated[str | None, typer.Option(
    "--store", "-s", help="The store: a SQLite file path, or scheme://... of a store backend "
    "(cosmos://..., or one a plugin registers). Default: AGENT_MEMORY_STORE or "
    "~/.local/share/agent-memory/memory.db.")]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="The user id (partition).")]

__all__ = ["StoreOpt", "UserOpt"]

"""``agent-memory mcp``: serve one user's memory to an MCP client (Claude Desktop, VS Code,
an agent framework) over stdio.

The user comes from ``--user`` or ``AGENT_MEMORY_USER``, fixed for the life of the process;
the tools never take a user id. Stdout carries the protocol only: messages go to stderr.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ..errors import ConfigError
from .options import StoreOpt

McpUserOpt = Annotated[str | None, typer.Option(
    "--user", "-u", envvar="AGENT_MEMORY_USER",
    help="The user whose memory is served (default: AGENT_MEMORY_USER).")]


async def serve_stdio(store: str | None, user: str) -> None:
    """Open the memory, serve the MCP tools for ``user`` on stdin/stdout until EOF, close.

    Raises:
        MissingScopeError / InvalidScopeError: a blank or malformed ``user``.
    """
    from ..client import AsyncMemory
    from ..config import Settings
    from ..service.mcp import build_mcp_server

    settings = Settings.load(store=str(store) if store else None)
    async with AsyncMemory.open(settings) as memory:
        await build_mcp_server(memory, user_id=user).run_stdio_async()


def register(app: typer.Typer) -> None:
    """Add ``mcp`` to ``app``."""
    from .commands import handles_errors

    @app.command("mcp")
    @handles_errors
    def mcp(user: McpUserOpt = None, store: StoreOpt = None) -> None:
        """Serve one user's memory as MCP tools over stdio (for desktop MCP clients)."""
        if user is None:
            raise ConfigError("give the user whose memory to serve: --user U or "
                              "AGENT_MEMORY_USER")
        from ..models import require_scope

        asyncio.run(serve_stdio(store, require_scope(user)))

"""The MCP server (official ``mcp`` SDK): the memory tools of :mod:`.mcp_tools` over stdio or
streamable HTTP.

Whose memory a call touches is fixed outside the model's reach:

- stdio (:func:`build_mcp_server` with ``user_id``, ``agent-memory mcp --user U``): one user for
  the life of the process, from the server's configuration.
- streamable HTTP (:func:`mcp_http_app`): a ``resolve_user`` callable given by the host app
  maps each HTTP request (its API key, or a gateway's header) to a user id before the request
  reaches the MCP transport; a request it refuses gets a 401 problem response and never
  reaches a tool. The id is carried in the ASGI scope under :data:`USER_SCOPE_KEY`.

No tool takes a user id (their input models forbid unknown fields), so a tool call naming
another user is refused, not obeyed. Typed errors (:mod:`agent_memory.errors`) become MCP tool
errors (``isError: true``) whose text is ``<ErrorClass>: <message>``; bad arguments (schema
violations) become tool errors too, with pydantic's message.

The HTTP transport runs stateless with JSON responses: no MCP session lives in the process, so
any worker answers any request.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..client import AsyncMemory
from ..errors import AgentMemoryError, MissingScopeError
from ..models import require_scope
from .mcp_schema import for_model
from .mcp_tools import TOOLS, ToolSpec

SERVER_NAME = "agent-memory"

USER_SCOPE_KEY = "agent_memory.user_id"
"""Key of the ASGI scope entry holding the user id resolved for an HTTP request."""

INSTRUCTIONS = (
    "Long-term memory of the current user. Search it before answering questions about the "
    "user's past, preferences or plans (search, retrieve_facts, get_profile); store what the "
    "user wants remembered (add_memories) and the conversation (add_turns). The user is fixed "
    "by the server: tools never take a user id."
)

UserResolver = Callable[[Request], "str | None | Awaitable[str | None]"]
"""Maps an HTTP request to the user id it may act for, or ``None`` to refuse it (401)."""


def build_mcp_server(memory: AsyncMemory, *, user_id: str | None = None) -> MCPServer:
    """An MCP server exposing the memory tools (:data:`.mcp_tools.TOOLS`) over ``memory``.

    Args:
        memory: the client every tool runs on (opened on first use; the caller closes it).
        user_id: the one user of a stdio server. ``None``: each request carries its user in
            the ASGI scope (set by :func:`mcp_http_app`); a request without one fails.

    Returns:
        An ``MCPServer``; ``run_stdio_async()`` serves stdio.

    Raises:
        MissingScopeError / InvalidScopeError: a blank or malformed ``user_id``.
    """
    fixed = require_scope(user_id) if user_id is not None else None
    tools = [_tool(spec, memory, fixed) for spec in TOOLS]
    return MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, tools=tools, log_level="WARNING")


def _user_of(ctx: Context, fixed: str | None) -> str:
    if fixed is not None:
        return fixed
    request = ctx.request_context.request
    user = getattr(request, "scope", {}).get(USER_SCOPE_KEY)
    if not user:
        raise ToolError("no user scope for this request; the server resolves it from the "
                        "credentials, never from tool arguments")
    return user


def _tool(spec: ToolSpec, memory: AsyncMemory, fixed: str | None) -> Tool:
    """The SDK tool for ``spec``: its argument schema is ``spec.input_model`` itself (flat,
    unknown fields forbidden), its output schema ``spec.output_model``'s; both with the
    descriptions of :mod:`.mcp_schema` (written for the calling model)."""
    arguments = type(spec.input_model.__name__, (spec.input_model, ArgModelBase),
                     {"model_config": ConfigDict(title=spec.input_model.__name__),
                      "__module__": spec.input_model.__module__})

    async def run(ctx: Context, **fields: Any) -> CallToolResult:
        user = _user_of(ctx, fixed)
        request = spec.input_model.model_validate(fields)
        try:
            result = await spec.run(memory, user, request)
        except AgentMemoryError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc
        return _result(result, spec.omit_nulls)

    metadata = FuncMetadata(arg_model=arguments, output_model=spec.output_model)
    metadata.output_schema = for_model(metadata.output_schema or {})
    return Tool(
        fn=run, name=spec.name, title=spec.title, description=spec.description,
        parameters=for_model(arguments.model_json_schema(by_alias=True)),
        fn_metadata=metadata,
        is_async=True, context_kwarg="ctx",
        annotations=ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                    destructive_hint=spec.destructive,
                                    idempotent_hint=spec.read_only, open_world_hint=False),
    )


def _result(result: BaseModel, omit_nulls: bool) -> CallToolResult:
    """The tool result: the structured content and, for clients that pass text to the model,
    the same JSON without indentation (null fields left out when ``omit_nulls``)."""
    data = result.model_dump(mode="json", by_alias=True, exclude_none=omit_nulls)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


class UserScopeGate:
    """ASGI middleware: resolves each HTTP request's user with ``resolve_user`` and stores it
    in the scope under :data:`USER_SCOPE_KEY`; answers 401 (``application/problem+json``,
    RFC 9457) when the resolver returns ``None`` or an unusable id. Non-HTTP scopes
    (lifespan) pass through."""

    def __init__(self, app: ASGIApp, resolve_user: UserResolver) -> None:
        self.app = app
        self.resolve_user = resolve_user

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.pop(USER_SCOPE_KEY, None)  # only the resolver sets it
        user = self.resolve_user(Request(scope, receive))
        if inspect.isawaitable(user):
            user = await user
        try:
            scope[USER_SCOPE_KEY] = require_scope(user)
        except MissingScopeError:
            await _unauthorized(send)
            return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    body = json.dumps({"type": "about:blank", "title": "Unauthorized", "status": 401,
                       "detail": "missing or invalid credentials"}).encode()
    await send({"type": "http.response.start", "status": 401, "headers": [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})


def mcp_http_app(
    memory: AsyncMemory,
    resolve_user: UserResolver,
    *,
    path: str = "/",
    host: str = "127.0.0.1",
    transport_security: TransportSecuritySettings | None = None,
) -> Starlette:
    """The streamable HTTP MCP app (an ASGI app) with each request's user from
    ``resolve_user``.

    Standalone, serve it with uvicorn (its lifespan runs the SDK's session manager). Mounted in
    another app (``app.mount("/mcp", mcp_app)``), the host must run that lifespan itself, since
    Starlette does not run a mounted app's lifespan: ``async with mcp_lifespan(mcp_app): ...``
    inside the host's own lifespan.

    Args:
        memory: the client the tools run on (the host opens and closes it).
        resolve_user: request -> user id, or ``None`` to refuse (401); may be async.
        path: the endpoint path inside this app (``"/"`` when mounted at ``/mcp``; ``"/mcp"``
            standalone).
        host / transport_security: DNS-rebinding protection (the SDK's): by default, with a
            loopback ``host``, only loopback ``Host`` / ``Origin`` headers are accepted; pass
            ``TransportSecuritySettings`` with the public host names behind a proxy.

    Returns:
        A Starlette app.
    """
    server = build_mcp_server(memory)
    app = server.streamable_http_app(streamable_http_path=path, stateless_http=True,
                                     json_response=True, host=host,
                                     transport_security=transport_security)
    app.add_middleware(UserScopeGate, resolve_user=resolve_user)
    return app


def mcp_lifespan(app: Starlette) -> AbstractAsyncContextManager[Any]:
    """The lifespan of an app from :func:`mcp_http_app`, for a host that mounts it."""
    return app.router.lifespan_context(app)


def trusted_header(name: str = "X-Agent-Memory-User") -> UserResolver:
    """A resolver reading the user id from a header set by a trusted, authenticating gateway.

    Only for deployments where the gateway strips that header from client requests and sets it
    itself; anyone who can reach the app directly can otherwise act for any user.
    """

    def resolve(request: Request) -> str | None:
        return request.headers.get(name)

    return resolve


__all__ = ["SERVER_NAME", "USER_SCOPE_KEY", "UserResolver", "UserScopeGate", "build_mcp_server",
           "mcp_http_app", "mcp_lifespan", "trusted_header"]

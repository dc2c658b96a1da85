"""The MCP endpoint inside the REST service: ``/mcp`` with the service's own authentication.

The REST routes name their user in the path; an MCP client names none (the model must never
choose whose memory it touches). Each MCP request's user comes from its credentials: the API
key (or trusted gateway header, or ``--no-auth``) gives a :class:`~.keys.Scope`, and

- a scope of exactly one user id acts for that user;
- any other scope (several users, a prefix, admin) must name the user in the
  ``X-Agent-Memory-User`` header, and that user must be inside the scope.

Anything else is refused with 401 before the MCP server sees the request, so a key never
reaches a user outside its scope through ``/mcp`` either.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request

from ..errors import AgentMemoryError
from ..models import require_scope
from .auth import Authenticator
from .mcp import UserResolver

USER_HEADER = "X-Agent-Memory-User"
"""Header naming the MCP session's user when the credentials cover more than one."""


def presented_key(request: Request) -> str | None:
    """The API key a request carries (``Authorization: Bearer`` or ``X-API-Key``)."""
    header = request.headers.get("authorization", "")
    scheme, _, credentials = header.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return request.headers.get("x-api-key")


def scoped_user_resolver(auth: Authenticator) -> UserResolver:
    """A resolver for :func:`~.mcp.mcp_http_app`: request -> the user it may act for, or
    ``None`` (401) when the credentials are missing or invalid, the user is ambiguous, or the
    named user is outside the credentials' scope."""

    async def resolve(request: Request) -> str | None:
        try:
            scope = await auth.scope(request, presented_key(request))
        except HTTPException:
            return None
        named = request.headers.get(USER_HEADER)
        if named is None:
            single = not scope.admin and not scope.user_prefix and len(scope.users) == 1
            return scope.users[0] if single else None
        try:
            user = require_scope(named)
        except AgentMemoryError:
            return None
        return user if scope.allows(user) else None

    return resolve


__all__ = ["USER_HEADER", "presented_key", "scoped_user_resolver"]

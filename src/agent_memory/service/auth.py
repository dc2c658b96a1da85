"""Who a request acts for, and the rule that it never leaves that scope.

Three modes, chosen by :class:`~.settings.ServiceSettings`:

- **API keys** (default): ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``, checked
  against the key file (:mod:`.keys`). A missing, malformed, unknown or revoked key answers
  401 with ``WWW-Authenticate: Bearer``.
- **Trusted header** (``trusted_header="X-User-Scope"``): an authenticating gateway in front
  of the service states the caller's scope in that header; the service trusts it as is, so
  the gateway must drop any copy the client sent. Its format, ``;``-separated ``name=value``
  pairs, values percent-encoded (RFC 3986), user ids ``,``-separated::

      X-User-Scope: tenant=acme; users=alice,bob
      X-User-Scope: tenant=acme; prefix=acme%3A
      X-User-Scope: tenant=acme; admin

  ``admin`` is read strictly: ``admin`` or ``admin=true`` (any case) grants admin; any other
  value (``admin=false``, ``admin=0``, ``admin=no``, ``admin=``) makes the header malformed,
  so a gateway that writes an explicit false value never makes its callers admins.
  A missing or malformed header answers 401.
- **No auth** (``no_auth``, loopback only): every request acts as admin.

Every route with a ``{user_id}`` resolves it through :func:`scoped_user`: a user outside the
scope answers 404 with the very body of a record that does not exist
(:data:`.problems.NOT_FOUND`), so a key learns nothing about other users.
"""

from __future__ import annotations

import asyncio
from typing import Annotated
from urllib.parse import unquote

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from ..errors import InvalidInputError, RecordNotFoundError
from .keys import KeyStore, Scope, check_scope

_bearer = HTTPBearer(auto_error=False, description="An API key: `Bearer am_<id>_<secret>`.")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False,
                        description="An API key, as an alternative to Authorization.")

ADMIN = Scope(tenant="local", admin=True)
"""The scope of every request when the service runs with ``no_auth``."""


def parse_scope_header(value: str) -> Scope:
    """The scope a trusted gateway states (format in the module docstring).

    Raises:
        InvalidInputError: a malformed header (no tenant, unknown names, not exactly one of
            users / prefix / admin, bad ids, an ``admin`` value other than ``true``).
    """
    parts: dict[str, str | None] = {}
    for piece in value.split(";"):
        piece = piece.strip()
        if not piece:
            continue
        name, sep, raw = piece.partition("=")
        name = name.strip().lower()
        if name not in ("tenant", "users", "prefix", "admin") or name in parts:
            raise InvalidInputError(f"scope header: unexpected {name!r}")
        parts[name] = raw.strip() if sep else None
    tenant = unquote(parts.get("tenant") or "", errors="strict")
    if not tenant:
        raise InvalidInputError("scope header: tenant is required")
    users = [unquote(u.strip(), errors="strict")
             for u in (parts.get("users") or "").split(",") if u.strip()]
    if "users" in parts and not users:
        raise InvalidInputError("scope header: users is empty")
    if "admin" in parts and parts["admin"] is not None and parts["admin"].lower() != "true":
        raise InvalidInputError("scope header: admin takes no value other than 'true' "
                                f"(got {parts['admin']!r}); omit it for a non-admin scope")
    prefix = parts.get("prefix")
    return check_scope(tenant, users, unquote(prefix, errors="strict") if "prefix" in parts
                       and prefix is not None else ("" if "prefix" in parts else None),
                       "admin" in parts)


class Authenticator:
    """Resolves the :class:`Scope` of a request in the configured mode.

    Args:
        keys: the key file (API key mode), or ``None``.
        trusted_header: the gateway's header (trusted-header mode), or ``None``.
        no_auth: admin for every request.
    """

    def __init__(self, keys: KeyStore | None, *, trusted_header: str | None = None,
                 no_auth: bool = False) -> None:
        self.keys = keys
        self.trusted_header = trusted_header
        self.no_auth = no_auth

    async def scope(self, request: Request, presented: str | None) -> Scope:
        """The scope of ``request``; ``presented`` is the API key it carries, if any.

        Raises:
            HTTPException: 401, no valid credentials.
        """
        if self.no_auth:
            return ADMIN
        if self.trusted_header:
            value = request.headers.get(self.trusted_header)
            if value:
                try:
                    return parse_scope_header(value)
                except (InvalidInputError, UnicodeDecodeError):
                    pass
            raise HTTPException(401)
        if presented and self.keys is not None:
            found = await asyncio.to_thread(self.keys.verify, presented)
            if found is not None:
                return found
        raise HTTPException(401)


async def request_scope(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key)],
) -> Scope:
    """FastAPI dependency: the caller's :class:`Scope` (401 without valid credentials)."""
    presented = bearer.credentials if bearer is not None else api_key
    authenticator: Authenticator = request.app.state.authenticator
    return await authenticator.scope(request, presented)


async def scoped_user(user_id: str, scope: Annotated[Scope, Depends(request_scope)]) -> str:
    """FastAPI dependency: the path's ``user_id`` when the caller may act for it.

    Raises:
        RecordNotFoundError: the user is outside the scope (answered like a missing record).
    """
    if not scope.allows(user_id):
        raise RecordNotFoundError("user outside the caller's scope")
    return user_id


async def admin_scope(scope: Annotated[Scope, Depends(request_scope)]) -> Scope:
    """FastAPI dependency for routes across users: only an admin scope passes (else 404)."""
    if not scope.admin:
        raise RecordNotFoundError("route needs an admin scope")
    return scope


User = Annotated[str, Depends(scoped_user)]
"""A route parameter: the path's ``user_id``, checked against the caller's scope."""
Caller = Annotated[Scope, Depends(request_scope)]
"""A route parameter: the caller's scope."""
Admin = Annotated[Scope, Depends(admin_scope)]
"""A route parameter: the caller's scope, which must be admin."""

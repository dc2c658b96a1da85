"""HTTP for :class:`~agent_memory.remote.RemoteMemory`: requests, retries, and problem details
translated back into the typed errors of :mod:`agent_memory.errors`.

Translation is the inverse of the service's table (:data:`agent_memory.service.problems.PROBLEMS`):
a problem ``type`` URI names one error class (``urn:agent-memory:problem:unknown-role`` ->
:class:`~agent_memory.errors.UnknownRoleError`); where several classes share a type (every 404
has one body, so a caller cannot probe other users' ids) the route's own class is raised (a
session route's 404 is a :class:`~agent_memory.errors.SessionNotFoundError`). A type this
client does not know, or a response that is not problem details, raises
:class:`~agent_memory.errors.ServiceError` with the status.

Retries (``retries`` extra attempts, exponential back-off from ``backoff`` seconds):

- an idempotent call (reads, searches, pipeline steps, deletes, a turn added with its
  own ``id``) is retried on any transport error: refused, reset, timed out;
- any other call only when the connection could not be opened (nothing was sent), so a
  write is never applied twice. HTTP error statuses are never retried.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python

from .. import errors as e
from ..models import require_scope

PROBLEM_PREFIX = "urn:agent-memory:problem:"
RecordMissing = type[e.RecordNotFoundError]


@functools.cache
def problem_classes() -> dict[str, type[e.AgentMemoryError]]:
    """Problem ``type`` URI -> error class: the service's table inverted, the most general
    class kept where several share a type (``not-found``: :class:`RecordNotFoundError`)."""
    from ..problems import PROBLEMS

    found: dict[str, type[e.AgentMemoryError]] = {}
    for cls, kind in PROBLEMS.items():
        known = found.get(kind.uri)
        if known is None or issubclass(known, cls):
            found[kind.uri] = cls
    return found


def error_from(response: httpx.Response, not_found: RecordMissing) -> e.AgentMemoryError:
    """The typed error a non-2xx ``response`` stands for (see the module docstring)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("type"), str):
        text = response.text[:200].strip() or response.reason_phrase
        return e.ServiceError(f"HTTP {response.status_code}: {text}", response.status_code)
    detail = str(body.get("detail") or body.get("title") or response.reason_phrase)
    cls = problem_classes().get(body["type"])
    if cls is None:
        return e.ServiceError(f"HTTP {response.status_code} {body['type']}: {detail}",
                              response.status_code, body["type"])
    if issubclass(cls, e.RecordNotFoundError):
        cls = not_found
    try:
        return cls(detail)
    except TypeError:  # a class with a richer constructor
        return e.ServiceError(detail, response.status_code, body["type"])


def segment(value: str) -> str:
    """A path segment: every reserved character percent-encoded (``/`` included)."""
    return quote(value, safe="")


class HttpClient:
    """JSON over HTTP to one service.

    Args:
        base_url: the service's root, e.g. ``http://127.0.0.1:8080``.
        api_key: sent as ``Authorization: Bearer <key>`` (``None``: no credentials, for a
            ``--no-auth`` or trusted-header deployment; pass ``headers`` for the latter).
        headers: extra headers on every request.
        timeout: seconds per request (connect, read, write, pool each).
        retries: extra attempts on transport errors (see the module docstring).
        backoff: seconds before the first retry; doubled for each further one.
        transport: an httpx transport (e.g. ``httpx.ASGITransport(app)`` in-process).
    """

    def __init__(self, base_url: str, *, api_key: str | None = None,
                 headers: Mapping[str, str] | None = None, timeout: float = 60.0,
                 retries: int = 2, backoff: float = 0.1,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        if retries < 0 or timeout <= 0 or backoff < 0:
            raise e.ConfigError("retries and backoff must be >= 0 and timeout > 0")
        sent = dict(headers or {})
        if api_key is not None:
            sent["Authorization"] = f"Bearer {api_key}"
        self.retries = retries
        self.backoff = backoff
        self.http = httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=sent,
                                      timeout=timeout, transport=transport)

    async def call(self, method: str, path: str, *, json: Any = None,
                   params: Mapping[str, Any] | None = None, idempotent: bool,
                   not_found: RecordMissing = e.RecordNotFoundError,
                   into: TypeAdapter[Any] | None = None) -> Any:
        """Send one request and return its JSON body (parsed by ``into`` when given).

        Raises:
            AgentMemoryError (a subclass): the problem details the service answered.
            ServiceError: no response after the retries allowed, or an unknown problem.
        """
        payload = to_jsonable_python(json) if json is not None else None
        attempt = 0
        while True:
            try:
                response = await self.http.request(method, path, json=payload, params=params)
                break
            except httpx.TransportError as exc:
                unsent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout
                                    | httpx.PoolTimeout)
                if attempt >= self.retries or not (idempotent or unsent):
                    raise e.ServiceError(f"{method} {path}: {type(exc).__name__}: {exc}"
                                         ) from exc
                await asyncio.sleep(self.backoff * 2**attempt)
                attempt += 1
        if response.is_error:
            raise error_from(response, not_found)
        found = response.json()
        return into.validate_python(found) if into is not None else found

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()


class Routes:
    """What the route mixins of :class:`~agent_memory.remote.RemoteMemory` share: the HTTP
    client and the path of a user's routes."""

    http: HttpClient

    @staticmethod
    def user_path(user_id: str, *segments: str) -> str:
        """``/v1/users/<user_id>/<segments...>``, each segment percent-encoded.

        Raises:
            MissingScopeError / InvalidScopeError: a bad ``user_id`` (checked here, as the
                Python API does, so it never turns into another path).
        """
        path = "/v1/users/" + segment(require_scope(user_id))
        return path + "".join("/" + segment(s) for s in segments)

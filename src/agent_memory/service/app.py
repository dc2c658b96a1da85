"""The REST service: :func:`create_app` builds the FastAPI app over one :class:`AsyncMemory`.

The process holds no per-user or per-session state: one client, opened in the app's
lifespan, serves every request; sessions, counters and jobs live in the store, so any number
of worker processes (``agent-memory serve --workers N``) answer alike. Each worker builds its
app from the environment (:func:`app_from_environment`, uvicorn's factory mode).

Routes: ``/v1/users/{user_id}/...`` (:mod:`.routes_memory`, :mod:`.routes_sessions`),
``/v1/jobs`` (admin), ``/healthz`` (the process is up) and ``/readyz`` (the store answers),
both without authentication, and ``/openapi.json`` (authenticated like ``/v1``). Errors are
problem details (:mod:`.problems`); request bodies are limited to
``ServiceSettings.max_body_bytes`` (413).

Other ASGI apps (the MCP server's streamable HTTP transport) are mounted with
``create_app(..., mounts=[("/mcp", mcp_asgi_app)])``; a mounted app does its own
authentication (it may call :meth:`.auth.Authenticator.scope`, reachable as
``app.state.authenticator``) and shares ``app.state.memory``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..client import AsyncMemory
from ..config import Settings
from .auth import Authenticator, Caller
from .deps import Memory
from .keys import KeyStore
from .problems import BODY_TOO_LARGE_TYPE, PROBLEM_JSON, Problem, install, problem_response
from .routes_memory import router as memory_router
from .routes_sessions import admin_router
from .routes_sessions import router as sessions_router
from .schemas import Health
from .settings import ServiceSettings

TITLE = "agent-memory"
PUBLIC_PATHS = ("/healthz", "/readyz")
"""The only routes answered without credentials."""


class BodyLimit:
    """ASGI middleware: answer 413 (problem details) for a request body over ``limit`` bytes.

    A ``Content-Length`` over the limit is refused before reading; a chunked body is
    buffered up to the limit (never more) and replayed to the app.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = problem_response(Problem(
            type=BODY_TOO_LARGE_TYPE, title="Content Too Large", status=413,
            detail=f"the request body is larger than {self.limit} bytes"),
            {"Connection": "close"})
        await response(scope, receive, send)


def _health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz")
    async def healthz() -> Health:
        """The process is up (no store access, no credentials)."""
        return Health()

    @router.get("/readyz", responses={503: {"model": Problem,
                                            "content": {PROBLEM_JSON: {}}}})
    async def readyz(memory: Memory) -> Health:
        """The store answers a read (no credentials); 503 problem details when it does not."""
        await memory.connect()
        await memory.store.get("__readyz__", ["__readyz__"])
        return Health()

    return router


def _problem_media_types(document: dict[str, Any]) -> dict[str, Any]:
    """Error responses are ``application/problem+json`` only (FastAPI files models under
    ``application/json``)."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if status[0] in "45" and "application/json" in content:
                    content[PROBLEM_JSON] = content.pop("application/json")
    return document


def create_app(
    settings: Settings | None = None,
    *,
    service: ServiceSettings | None = None,
    auth: Authenticator | None = None,
    memory: AsyncMemory | None = None,
    mounts: Sequence[tuple[str, ASGIApp]] = (),
    mcp: bool = True,
    ui: bool = True,
) -> FastAPI:
    """Build the service.

    Args:
        settings: the memory's settings (default: :meth:`Settings.load`).
        service: how to listen and authenticate (default: :meth:`ServiceSettings.load`).
        auth: the authenticator (default: from ``service``: API keys from the key file,
            the trusted header, or none).
        memory: a ready client to serve (its owner opens and closes it); default: one built
            from ``settings``, opened and closed by the app's lifespan.
        mounts: ``(path, ASGI app)`` pairs mounted beside the API.
        mcp: serve the MCP tools over streamable HTTP at ``/mcp/`` with the same
            authentication (:mod:`.mcp_mount`: the user from the key, or the
            ``X-Agent-Memory-User`` header inside the key's scope).
        ui: serve the web memory inspector at ``/ui/`` (static files; every record it shows
            comes from the ``/v1`` API with the key the user enters).

    Returns:
        The FastAPI app (``app.state.memory``, ``app.state.authenticator``).

    Raises:
        ConfigError: invalid settings, or no key file location can be derived.
    """
    service = service or ServiceSettings.load()
    settings = settings or (memory.settings if memory else Settings.load())
    if auth is None:
        keys = None
        if not service.no_auth and not service.trusted_header:
            keys = KeyStore(service.key_file(settings.store))
        auth = Authenticator(keys, trusted_header=service.trusted_header,
                             no_auth=service.no_auth)

    owned = memory is None
    client = memory or AsyncMemory(settings)
    mcp_app = None
    if mcp:
        from .mcp import mcp_http_app
        from .mcp_mount import scoped_user_resolver

        mcp_app = mcp_http_app(client, scoped_user_resolver(auth), host=service.host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await client.connect()
        app.state.memory = client
        try:
            if mcp_app is None:
                yield
            else:
                from .mcp import mcp_lifespan

                async with mcp_lifespan(mcp_app):
                    yield
        finally:
            if owned:
                await client.close()

    app = FastAPI(title=TITLE, version=__version__, lifespan=lifespan, openapi_url=None,
                  docs_url=None, redoc_url=None,
                  description="Memory for LLM agents over HTTP: turns, hybrid search, "
                              "recall, facts, summaries, profiles, sessions.")
    app.state.authenticator = auth
    app.state.service = service
    install(app)
    app.include_router(_health_router())
    app.include_router(memory_router)
    app.include_router(sessions_router)
    app.include_router(admin_router)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_document(_: Caller) -> dict[str, Any]:
        return openapi(app)

    if mcp_app is not None:
        app.mount("/mcp", mcp_app)
        app.add_middleware(MountRoot, prefix="/mcp")
    if ui:
        from .ui import mount_ui

        mount_ui(app)
    for path, mounted in mounts:
        app.mount(path, mounted)
    app.add_middleware(BodyLimit, limit=service.max_body_bytes)
    return app


class MountRoot:
    """ASGI middleware: a request for ``prefix`` itself goes to the app mounted there as if it
    were for ``prefix/``. Without it Starlette answers ``POST /mcp`` with a 307 redirect built
    from the request's ``Host`` header, before the mounted app's own ``Host`` check (a foreign
    host would be sent to itself)."""

    def __init__(self, app: Any, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("path") == self.prefix:
            root = self.prefix + "/"
            scope = {**scope, "path": root, "raw_path": root.encode()}
        await self.app(scope, receive, send)


def openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document (what ``/openapi.json`` serves and ``docs/openapi.json``
    holds)."""
    if app.openapi_schema is None:
        document = get_openapi(title=app.title, version=app.version,
                               description=app.description, routes=app.routes)
        app.openapi_schema = _problem_media_types(document)
    return app.openapi_schema


def endpoints(app: FastAPI) -> list[tuple[str, str]]:
    """Every ``(method, path template)`` the app answers (``HEAD`` left out), included
    routers flattened; ``("MOUNT", path)`` for a mounted ASGI app. The isolation tests
    iterate this list, so a new route is checked by default."""
    try:  # FastAPI >= 0.165 keeps included routers as nodes of the route tree
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older releases copy every route into app.routes
        contexts: list[Any] = list(app.routes)
    else:
        contexts = list(iter_route_contexts(app.routes))
    found: list[tuple[str, str]] = []
    for route in contexts:
        path = getattr(route, "path", None)
        methods = getattr(route, "methods", None)
        if path is None:
            continue
        if methods is None:
            found.append(("MOUNT", path))
            continue
        found += [(method, path) for method in sorted(set(methods) - {"HEAD"})]
    return found


def app_from_environment() -> FastAPI:
    """The app built from the environment alone (``AGENT_MEMORY_*`` and
    ``AGENT_MEMORY_SERVICE_*``): the factory each uvicorn worker process calls."""
    return create_app(Settings.load(), service=ServiceSettings.load())

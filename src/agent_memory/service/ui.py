"""The web memory inspector: static files served at ``/ui`` by the REST service.

The inspector is three plain files under ``ui/`` (``index.html``, ``app.js``, ``app.css``):
no build step, no CDN, nothing fetched from outside the server, so it works offline. The page
calls the service's own REST API (``/v1/...``) with ``fetch`` and the API key the user types
in, kept in the tab's ``sessionStorage`` (gone when the tab closes) and sent as
``Authorization: Bearer <key>``. It therefore sees exactly what the key may see: the static
files carry no data and need no authentication, every record comes through the API and its
scope checks.

Screens: threads and their turns; facts and insights with their evidence turns, history and
one-click restore (superseded facts on demand); the profile; hybrid search with each hit's
per-signal ranks and raw scores and its provenance; session summaries; the job queue.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

UI_DIR = Path(__file__).with_name("ui")
"""Folder of the inspector's static files (shipped in the wheel with the package)."""

UI_PATH = "/ui"
"""Where the inspector is mounted."""

_HEADERS = {
    # Scripts and styles only from this server, no inline script, no framing: the page holds
    # an API key, so nothing foreign may run in it or overlay it.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class _InspectorFiles(StaticFiles):
    """:class:`StaticFiles` that adds the inspector's security headers to every answer."""

    async def get_response(self, path: str, scope):  # type: ignore[no-untyped-def]
        response = await super().get_response(path, scope)
        response.headers.update(_HEADERS)
        return response


def ui_app() -> StaticFiles:
    """The inspector as an ASGI app (static files, ``index.html`` for a folder), to mount at
    :data:`UI_PATH`, e.g. ``create_app(..., mounts=[(UI_PATH, ui_app())])``."""
    return _InspectorFiles(directory=UI_DIR, html=True)


def mount_ui(app: FastAPI, path: str = UI_PATH) -> None:
    """Serve the inspector at ``path`` (default ``/ui``) on ``app``.

    ``/ui/`` answers ``index.html``; ``/ui`` redirects there (the router's trailing-slash
    redirect), so the page's relative links resolve. Mounted apps stay out of the OpenAPI
    document.

    Args:
        app: the service's application.
        path: the mount point, starting with ``/`` and without a trailing ``/``.

    Raises:
        ValueError: a ``path`` that does not start with ``/`` or ends with ``/``.
    """
    if not path.startswith("/") or path.endswith("/"):
        raise ValueError(f"mount path must start with '/' and not end with it: {path!r}")
    app.mount(path, ui_app(), name="inspector")


__all__ = ["UI_DIR", "UI_PATH", "mount_ui", "ui_app"]

"""Service commands: ``serve`` (the REST API) and ``keys create|list|revoke`` (API keys).

``serve`` passes its options on through the environment (``AGENT_MEMORY_STORE``,
``AGENT_MEMORY_SERVICE_*``) so that with ``--workers N`` every uvicorn worker process builds
the same app (factory mode). ``serve --openapi FILE`` writes the OpenAPI document and exits.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from .options import StoreOpt
from .render import console, err_console

KeysOpt = Annotated[Path | None, typer.Option(
    "--keys", help="API key file (default: <store>.keys.db beside the store).")]

_ENV = {"host": "HOST", "port": "PORT", "workers": "WORKERS", "no_auth": "NO_AUTH",
        "trusted_header": "TRUSTED_HEADER", "keys_path": "KEYS_PATH",
        "max_body_bytes": "MAX_BODY_BYTES"}


def _key_store(store: str | None, keys: Path | None):
    from ..config import Settings
    from ..service import KeyStore, ServiceSettings

    settings = Settings.load(store=str(store) if store else None)
    service = ServiceSettings.load(keys_path=str(keys) if keys else None)
    return KeyStore(service.key_file(settings.store))


def register(app: typer.Typer) -> None:
    """Add ``serve`` and the ``keys`` group to ``app``."""
    from .commands import handles_errors

    keys_app = typer.Typer(help="Manage the service's API keys.", no_args_is_help=True)
    app.add_typer(keys_app, name="keys")

    @app.command()
    @handles_errors
    def serve(
        host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port to listen on.")] = 8080,
        workers: Annotated[int, typer.Option(help="Server processes.", min=1)] = 1,
        no_auth: Annotated[bool, typer.Option("--no-auth", help="No authentication "
                           "(loopback hosts only).")] = False,
        trusted_header: Annotated[str | None, typer.Option(
            help="Take the caller's scope from this header, set by a gateway "
                 "(e.g. X-User-Scope).")] = None,
        store: StoreOpt = None,
        keys: KeysOpt = None,
        max_body_bytes: Annotated[int | None, typer.Option(
            help="Largest request body in bytes (default 1 MiB).")] = None,
        openapi: Annotated[Path | None, typer.Option(
            help="Write the OpenAPI document to this file and exit.")] = None,
    ) -> None:
        """Serve the REST API (/v1), /healthz and /readyz with uvicorn."""
        from ..config import Settings
        from ..service import ServiceSettings, create_app
        from ..service.app import openapi as openapi_document

        values = {"host": host, "port": port, "workers": workers, "no_auth": no_auth,
                  "trusted_header": trusted_header,
                  "keys_path": str(keys) if keys else None, "max_body_bytes": max_body_bytes}
        service = ServiceSettings.load(**values)
        settings = Settings.load(store=str(store) if store else None)
        if openapi is not None:
            document = openapi_document(create_app(settings, service=service))
            openapi.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
            console.print(f"OpenAPI document written to {openapi}")
            return
        import uvicorn

        if store:
            os.environ["AGENT_MEMORY_STORE"] = str(store)
        for field, name in _ENV.items():
            value = values[field]
            if value is not None and value is not False:
                os.environ[f"AGENT_MEMORY_SERVICE_{name}"] = str(value)
        if not service.no_auth and not service.trusted_header:
            path = service.key_file(settings.store)
            if not path.exists():
                err_console.print(f"no API keys yet ({path}): create one with "
                                  "`agent-memory keys create`")
        if workers > 1:
            from ..service.workers import run_workers

            run_workers(host, port, workers)
        else:
            uvicorn.run(create_app(settings, service=service), host=host, port=port)

    @keys_app.command("create")
    @handles_errors
    def keys_create(
        tenant: Annotated[str, typer.Option(help="The tenant the key belongs to.")],
        user: Annotated[list[str] | None, typer.Option(
            "--user", "-u", help="A user id the key may touch (repeatable).")] = None,
        user_prefix: Annotated[str | None, typer.Option(
            help="Or: every user id starting with this prefix.")] = None,
        admin: Annotated[bool, typer.Option("--admin", help="Or: every user.")] = False,
        name: Annotated[str | None, typer.Option(help="A label for the key.")] = None,
        store: StoreOpt = None,
        keys: KeysOpt = None,
    ) -> None:
        """Create an API key; the key is printed once and never stored."""
        from ..service.keys import check_scope

        scope = check_scope(tenant, user or [], user_prefix, admin)
        created = _key_store(store, keys).create(scope, name)
        err_console.print(f"key {created.key.id} for tenant {tenant!r} (shown once):")
        print(created.secret)

    @keys_app.command("list")
    @handles_errors
    def keys_list(store: StoreOpt = None, keys: KeysOpt = None) -> None:
        """List the API keys (ids and scopes; never the secrets)."""
        found = _key_store(store, keys)
        if not found.path.exists():
            err_console.print(f"no API key file at {found.path} (the keys of --store or --keys; "
                              "create one with `agent-memory keys create`)", markup=False)
        table = Table("id", "tenant", "scope", "name", "created", "revoked",
                      title=f"API keys in {found.path}")
        for key in found.list():
            scope = key.scope
            what = ("admin" if scope.admin else f"prefix {scope.user_prefix}"
                    if scope.user_prefix else "users " + ", ".join(scope.users))
            table.add_row(key.id, scope.tenant, what, key.name or "",
                          f"{key.created_at:%Y-%m-%d %H:%M}",
                          f"{key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "")
        console.print(table)

    @keys_app.command("revoke")
    @handles_errors
    def keys_revoke(key_id: Annotated[str, typer.Argument(help="The key id.")],
                    store: StoreOpt = None, keys: KeysOpt = None) -> None:
        """Revoke an API key (effective on the next request)."""
        key = _key_store(store, keys).revoke(key_id)
        console.print(f"key {key.id} revoked at {key.revoked_at:%Y-%m-%d %H:%M:%S} UTC")

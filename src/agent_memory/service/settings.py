"""Settings of the REST service (``agent-memory serve``), from arguments or the environment.

Environment variables are ``AGENT_MEMORY_SERVICE_<FIELD>`` (e.g.
``AGENT_MEMORY_SERVICE_TRUSTED_HEADER=X-User-Scope``); the store and every other knob of the
memory itself come from :class:`~agent_memory.config.Settings` (``AGENT_MEMORY_STORE``, ...).
With several worker processes each one builds its app from the environment
(:func:`agent_memory.service.app.app_from_environment`).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..errors import ConfigError

DEFAULT_MAX_BODY_BYTES = 1 << 20
"""Largest accepted request body: 1 MiB (32 turns of the default 32,000-character limit)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ServiceSettings(BaseSettings):
    """How the service listens and authenticates.

    Attributes:
        host / port: where it listens (default ``127.0.0.1:8080``).
        workers: server processes (each opens the store itself).
        no_auth: serve without authentication (every request acts as admin); refused unless
            ``host`` is a loopback address.
        trusted_header: take the caller's scope from this request header, set by an
            authenticating gateway in front (see :mod:`.auth` for its format), instead of
            API keys.
        keys_path: the API key file (default: ``<store>.keys.db`` beside a SQLite store).
        max_body_bytes: largest request body accepted (bytes); larger ones answer 413.
    """

    model_config = SettingsConfigDict(env_prefix="AGENT_MEMORY_SERVICE_",
                                      case_sensitive=False, extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    workers: int = Field(default=1, ge=1, le=64)
    no_auth: bool = False
    trusted_header: str | None = None
    keys_path: str | None = None
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024)

    @classmethod
    def load(cls, **overrides: object) -> ServiceSettings:
        """Build from ``overrides`` (``None`` ignored) and the environment, then check.

        Raises:
            ConfigError: an invalid value, ``no_auth`` on a host other than loopback, or both
                ``no_auth`` and ``trusted_header``.
        """
        try:
            built = cls(**{k: v for k, v in overrides.items() if v is not None})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
                                 for err in exc.errors())
            raise ConfigError(f"invalid service settings: {problems}") from exc
        if built.no_auth and not is_loopback(built.host):
            raise ConfigError(f"--no-auth is refused on {built.host!r}: serve without "
                              "authentication only on a loopback address (127.0.0.1, ::1)")
        if built.no_auth and built.trusted_header:
            raise ConfigError("choose one of --no-auth and --trusted-header")
        return built

    def key_file(self, store: str) -> Path:
        """The API key file: ``keys_path``, else ``<store>.keys.db`` beside a SQLite store.

        Raises:
            ConfigError: no ``keys_path`` and the store is not a file (Cosmos DB).
        """
        if self.keys_path:
            return Path(self.keys_path)
        if store == "cosmos" or store.startswith("cosmos:"):
            raise ConfigError("set AGENT_MEMORY_SERVICE_KEYS_PATH (or --keys) for the API "
                              "key file when the store is Cosmos DB")
        path = Path(store.removeprefix("sqlite:"))
        return path.with_name(path.name + ".keys.db")

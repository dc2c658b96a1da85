"""API keys: random secrets shown once, stored hashed in a small SQLite file.

A key reads ``am_<key id>_<secret>``: the id (12 hex characters) names the row, the secret
(32 random bytes, URL-safe base64, from :mod:`secrets`) is stored only as its SHA-256. A
salted slow hash (bcrypt, scrypt) protects low-entropy passwords; a 256-bit random secret
cannot be guessed, so one SHA-256 suffices and keeps verification fast. Hashes are compared
with :func:`hmac.compare_digest`.

Each key carries its :class:`Scope`: the tenant it belongs to and the user ids it may touch:
a list of ids, an id prefix, or every user (``admin``). Revoking a key takes effect on the
next request: every request reads the key's row.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, InvalidInputError, RecordNotFoundError
from ..validation import scope as clean_scope

_KEY = re.compile(r"^am_([0-9a-f]{12})_([A-Za-z0-9_-]{20,100})$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    secret_sha256 TEXT NOT NULL,
    tenant TEXT NOT NULL,
    users TEXT NOT NULL,          -- JSON list of user ids
    user_prefix TEXT,
    admin INTEGER NOT NULL DEFAULT 0,
    name TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""


class Scope(BaseModel):
    """Whom a request may act for.

    Attributes:
        tenant: the owner of the key (a label shown in ``keys list`` and in logs).
        users: user ids the key may touch.
        user_prefix: or every user id starting with this prefix.
        admin: or every user.
    """

    model_config = ConfigDict(frozen=True)

    tenant: str
    users: tuple[str, ...] = ()
    user_prefix: str | None = None
    admin: bool = False

    def allows(self, user_id: str) -> bool:
        """Whether ``user_id`` is inside the scope (exact match; ids are never normalized)."""
        if self.admin:
            return True
        if user_id in self.users:
            return True
        return bool(self.user_prefix) and user_id.startswith(self.user_prefix)  # type: ignore[arg-type]


class ApiKey(BaseModel):
    """A stored key, without its secret.

    Attributes:
        id: the key id (the part after ``am_``).
        scope: what it may touch.
        name: an optional label.
        created_at / revoked_at: aware UTC datetimes (``revoked_at`` ``None`` while valid).
    """

    id: str
    scope: Scope
    name: str | None = None
    created_at: datetime
    revoked_at: datetime | None = None


class CreatedKey(BaseModel):
    """A key just created: ``secret`` is the whole key, shown this once and never stored."""

    key: ApiKey
    secret: str = Field(repr=False)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_scope(tenant: str, users: list[str] | tuple[str, ...], user_prefix: str | None,
                admin: bool) -> Scope:
    """A valid :class:`Scope` from its parts.

    Raises:
        InvalidInputError: a bad tenant or user id, a blank prefix, or not exactly one of
            users / prefix / admin.
    """
    tenant = clean_scope(tenant, "tenant")
    chosen = sum([bool(users), user_prefix is not None, admin])
    if chosen != 1:
        raise InvalidInputError("a key needs exactly one of: user ids, a user-id prefix, admin")
    if user_prefix is not None:
        user_prefix = clean_scope(user_prefix, "user_prefix")
    return Scope(tenant=tenant, users=tuple(dict.fromkeys(clean_scope(u) for u in users)),
                 user_prefix=user_prefix, admin=admin)


class KeyStore:
    """The key file (SQLite). Every method opens its own connection: safe from any thread.

    Args:
        path: the SQLite file (created with its parent directory on first write).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _connect(self, create: bool) -> sqlite3.Connection:
        if not create and not self.path.exists():
            raise ConfigError(f"no API key file at {self.path}; create a key with "
                              "`agent-memory keys create`")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=10.0)
            conn.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the API key file {self.path}: {exc}") from exc
        return conn

    def create(self, scope: Scope, name: str | None = None) -> CreatedKey:
        """Create a key for ``scope``; the returned ``secret`` is the only copy."""
        key_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        with closing(self._connect(create=True)) as conn, conn:
            conn.execute(
                "INSERT INTO api_keys (id, secret_sha256, tenant, users, user_prefix, admin, "
                "name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key_id, _hash(secret), scope.tenant, json.dumps(list(scope.users)),
                 scope.user_prefix, int(scope.admin), name, now.isoformat()))
        return CreatedKey(key=ApiKey(id=key_id, scope=scope, name=name, created_at=now),
                          secret=f"am_{key_id}_{secret}")

    def list(self) -> list[ApiKey]:
        """Every key (revoked ones included), oldest first."""
        if not self.path.exists():
            return []
        with closing(self._connect(create=False)) as conn:
            rows = conn.execute("SELECT id, tenant, users, user_prefix, admin, name, "
                                "created_at, revoked_at FROM api_keys "
                                "ORDER BY created_at, id").fetchall()
        return [_key(row) for row in rows]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key (idempotent: revoking twice keeps the first time).

        Raises:
            RecordNotFoundError: no key with that id.
        """
        now = datetime.now(UTC).isoformat()
        with closing(self._connect(create=True)) as conn, conn:
            conn.execute("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) "
                         "WHERE id = ?", (now, key_id))
            row = conn.execute("SELECT id, tenant, users, user_prefix, admin, name, "
                               "created_at, revoked_at FROM api_keys WHERE id = ?",
                               (key_id,)).fetchone()
        if row is None:
            raise RecordNotFoundError(f"no API key {key_id!r}")
        return _key(row)

    def verify(self, presented: str) -> Scope | None:
        """The scope of a valid, unrevoked key; ``None`` for anything else (malformed,
        unknown, wrong secret, revoked). Blocking (SQLite): call it from a worker thread."""
        match = _KEY.match(presented)
        if match is None or not self.path.exists():
            return None
        key_id, secret = match.groups()
        with closing(self._connect(create=False)) as conn:
            row = conn.execute("SELECT secret_sha256, tenant, users, user_prefix, admin, "
                               "revoked_at FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        if row is None:
            _hash(secret)  # the same work as for a known id
            return None
        stored, tenant, users, prefix, admin, revoked = row
        if not hmac.compare_digest(stored, _hash(secret)) or revoked is not None:
            return None
        return Scope(tenant=tenant, users=tuple(json.loads(users)), user_prefix=prefix,
                     admin=bool(admin))


def _key(row: tuple) -> ApiKey:
    key_id, tenant, users, prefix, admin, name, created, revoked = row
    return ApiKey(id=key_id, scope=Scope(tenant=tenant, users=tuple(json.loads(users)),
                                         user_prefix=prefix, admin=bool(admin)),
                  name=name, created_at=datetime.fromisoformat(created),
                  revoked_at=datetime.fromisoformat(revoked) if revoked else None)

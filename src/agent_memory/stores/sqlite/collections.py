"""Agent-to-collection bindings in the SQLite store (table ``agent_collections``, migration 2).

Functions of a connection the store already holds under its lock; the store wraps them in a
transaction and translates ``sqlite3`` errors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ...models import utcnow


def bind(conn: sqlite3.Connection, user_id: str, agent_id: str, names: Sequence[str]) -> int:
    """Bind ``agent_id`` to ``names`` (already bound ones are kept); returns how many were new."""
    now = utcnow().timestamp()
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO agent_collections (user_id, agent_id, collection, created_at) "
        "VALUES (?, ?, ?, ?)",
        [(user_id, agent_id, name, now) for name in dict.fromkeys(names)],
    )
    return conn.total_changes - before


def unbind(conn: sqlite3.Connection, user_id: str, agent_id: str, names: Sequence[str]) -> int:
    """Remove the bindings of ``agent_id`` to ``names``; returns how many existed."""
    before = conn.total_changes
    conn.executemany(
        "DELETE FROM agent_collections WHERE user_id = ? AND agent_id = ? AND collection = ?",
        [(user_id, agent_id, name) for name in dict.fromkeys(names)],
    )
    return conn.total_changes - before


def bound(conn: sqlite3.Connection, user_id: str, agent_id: str) -> list[str]:
    """The collections ``agent_id`` is bound to, in binding order."""
    return [
        name
        for (name,) in conn.execute(
            "SELECT collection FROM agent_collections WHERE user_id = ? AND agent_id = ? "
            "ORDER BY rowid",
            (user_id, agent_id),
        )
    ]

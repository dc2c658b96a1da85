"""Read-modify-write with optimistic concurrency, above any store.

Every record a store returns carries its version (``etag``); writing back a changed copy is
conditional on it and raises :class:`~agent_memory.errors.ConflictError` when another writer
got there first. A caller that can re-apply its change to the fresh record (flags, status,
counters, marks) uses :func:`modify`: read, apply, write, and on a conflict read again and
re-apply. Callers whose change depends on the whole state they read (a summary folded from
the turns after a watermark) re-run their step instead.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from ..errors import ConflictError, RecordNotFoundError
from ..models import MemoryRecord

if TYPE_CHECKING:
    from .base import MemoryStore

R = TypeVar("R", bound=MemoryRecord)
T = TypeVar("T")

MAX_ATTEMPTS = 20
"""Re-reads after a conflict before giving up (each conflict means another writer made
progress, so this bounds contention, not correctness)."""


async def backoff(attempt: int) -> None:
    """Wait a random 0 to ``2 * (attempt + 1)`` ms after a lost conditional write, so that
    writers retrying together spread out."""
    await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))


async def modify(
    store: MemoryStore,
    user_id: str,
    record_id: str,
    change: Callable[[R], R | None],
    *,
    kind: type[R] = MemoryRecord,  # type: ignore[assignment]
    attempts: int = MAX_ATTEMPTS,
) -> R | None:
    """Apply ``change`` to the stored record and write it back conditionally, retrying on
    conflicts with fresh reads.

    Args:
        store: an open store.
        user_id / record_id: the record.
        change: gets the record as stored now and returns the changed copy, or ``None`` to
            write nothing (e.g. the change is already there). Called once per attempt, so it
            must not have side effects.
        kind: the record class expected (a record of another class counts as missing).
        attempts: conflicts tolerated before giving up.

    Returns:
        The record as written (with its new ``etag``), or the stored one when ``change``
        returned ``None``.

    Raises:
        RecordNotFoundError: no such record (or it was deleted meanwhile).
        ConflictError: concurrent writers changed it ``attempts`` times in a row.
    """
    for attempt in range(attempts):
        found = await store.get(user_id, [record_id])
        if not found or not isinstance(found[0], kind):
            raise RecordNotFoundError(f"no {kind.__name__} {record_id!r} for user {user_id!r}")
        current: R = found[0]
        changed = change(current)
        if changed is None:
            return current
        try:
            written = await store.update([changed])
        except ConflictError:
            await backoff(attempt)
            continue
        if not written:
            raise RecordNotFoundError(f"{kind.__name__} {record_id!r} of user {user_id!r} "
                                      "was deleted")
        return written[0]  # type: ignore[return-value]
    raise ConflictError(
        f"record {record_id!r} of user {user_id!r} kept changing under concurrent writers; "
        f"gave up after {attempts} attempts", [record_id])


async def retry_on_conflict(run: Callable[[], Awaitable[T]], *, attempts: int = MAX_ATTEMPTS
                            ) -> T:
    """Run a whole read-compute-write step again, on fresh reads, while its conditional write
    loses to a concurrent writer (a step whose result depends on everything it read, such as
    a summary folded from the turns after a watermark).

    Args:
        run: the step; each call must read what it needs anew.
        attempts: runs tried before the conflict is raised.

    Raises:
        ConflictError: every run lost to a concurrent writer.
    """
    for attempt in range(attempts):
        try:
            return await run()
        except ConflictError:
            if attempt == attempts - 1:
                raise
            await backoff(attempt)
    raise AssertionError("unreachable")

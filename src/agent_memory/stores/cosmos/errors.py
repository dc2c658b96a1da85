"""Azure Cosmos DB errors translated, where they enter, into the tree of
:mod:`agent_memory.errors`.

=============================  ==============================================================
Cosmos DB status               raised
=============================  ==============================================================
412 precondition failed        :class:`~agent_memory.errors.ConflictError` (a stale ``etag``)
409 conflict                   :class:`~agent_memory.errors.ConflictError` (id or position
                               taken)
404 not found                  :class:`~agent_memory.errors.RecordNotFoundError` (callers
                               whose contract skips missing records catch it)
429 too many requests          :class:`ThrottledError` (after the SDK's own retries)
401 / 403                      :class:`CosmosAuthError` (a :class:`ConfigError`)
400 bad request                :class:`~agent_memory.errors.StoreError` with the server's
                               message
anything else, transport       :class:`~agent_memory.errors.StoreError`
=============================  ==============================================================

The original exception is kept as ``__cause__``. Messages never include credentials.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ...errors import ConfigError, ConflictError, RecordNotFoundError, StoreError


class ThrottledError(StoreError):
    """The account refused requests for lack of throughput (HTTP 429) even after the SDK's
    retries: raise the RU/s (autoscale maximum) or slow down."""


class CosmosAuthError(ConfigError, StoreError):
    """The account refused the credentials (HTTP 401/403): a wrong key, or an Entra ID
    identity without a data-plane role on the account."""


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of an azure error (``None`` for transport failures)."""
    status = getattr(exc, "status_code", None)
    return int(status) if isinstance(status, int) else None


def _message(exc: BaseException) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return text[:300] or type(exc).__name__


def translate(exc: BaseException, action: str, ids: Sequence[str] = ()) -> BaseException:
    """The error of :mod:`agent_memory.errors` for an azure exception raised by ``action``
    (returned, for ``raise ... from exc``); other exceptions are returned unchanged.

    Args:
        exc: what the SDK raised.
        action: what was being done, for the message (e.g. ``"put"``).
        ids: the record ids concerned (carried by :class:`ConflictError`).
    """
    from azure.core.exceptions import AzureError, ClientAuthenticationError

    if not isinstance(exc, AzureError):
        return exc
    status = status_of(exc)
    if isinstance(exc, ClientAuthenticationError) or status in (401, 403):
        return CosmosAuthError(f"{action}: the Cosmos DB account refused the credentials "
                               f"(HTTP {status or 'auth'}): {_message(exc)}")
    if status == 412:
        return ConflictError(f"{action}: a record changed since it was read (version "
                             "mismatch); read it again and re-apply the change", list(ids))
    if status == 409:
        return ConflictError(f"{action}: a record with this id (or a turn with this seq in "
                             "its thread) already exists", list(ids))
    if status == 404:
        return RecordNotFoundError(f"{action}: not found: {_message(exc)}")
    if status == 429:
        return ThrottledError(f"{action}: the Cosmos DB account is throttling requests "
                              "(HTTP 429, request rate too large) after the SDK's retries; "
                              "raise its throughput or slow down")
    if status == 400:
        return StoreError(f"{action}: the Cosmos DB account rejected the request: "
                          f"{_message(exc)}")
    where = f"HTTP {status}" if status is not None else type(exc).__name__
    return StoreError(f"{action} failed on Cosmos DB ({where}): {_message(exc)}")


@contextmanager
def translated(action: str, ids: Sequence[str] = ()) -> Iterator[None]:
    """Raise every azure error of the block as its :func:`translate` counterpart."""
    try:
        yield
    except Exception as exc:
        mapped = translate(exc, action, ids)
        if mapped is exc:
            raise
        raise mapped from exc

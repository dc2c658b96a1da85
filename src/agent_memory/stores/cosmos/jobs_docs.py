"""The documents of the Cosmos DB job queue and the SDK calls on them.

Every document lives in the ``jobs`` container (partition key ``/user_id``), in its user's
logical partition, told apart by ``type``::

    counter  id "counter|<thread>"          thread_id (null: user scope), seen, version
    mark     id "mark|<thread>|<step>"      thread_id, step, mark
    job      id "job|<key>"                 the Job fields; times as Unix seconds (float)
    queue    id "queue"                     last_seq: the user's latest job seq

Ids escape the characters Cosmos DB forbids in ids (``/ \\ ? #``) by percent-encoding and
fall back to a SHA-256 digest past 200 characters (the id limit is 255).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from azure.core.exceptions import AzureError
from azure.cosmos.exceptions import CosmosHttpResponseError

from ...errors import StoreError
from ...jobqueue.models import Job

ChargeHook = Callable[[Mapping[str, Any]], None]
"""Receives the response headers of every SDK call (``x-ms-request-charge``: its RU)."""

QUEUE_ID = "queue"
BATCH_LIMIT = 100
"""Most operations in one Cosmos DB transactional batch."""


def _part(value: str) -> str:
    return quote(value, safe="")


def _bounded(doc_id: str) -> str:
    if len(doc_id) <= 200:
        return doc_id
    kind = doc_id.split("|", 1)[0]
    return f"{kind}|sha256-{hashlib.sha256(doc_id.encode()).hexdigest()}"


def counter_id(thread_id: str | None) -> str:
    """The id of a scope's counter document (``thread_id`` ``None``: the user scope)."""
    return _bounded(f"counter|{_part(thread_id or '')}")


def mark_id(thread_id: str | None, step: str) -> str:
    """The id of a step's watermark document in a scope."""
    return _bounded(f"mark|{_part(thread_id or '')}|{_part(step)}")


def job_id(key: str) -> str:
    """The id of the document of the job with this key."""
    return _bounded(f"job|{_part(key)}")


def ts(value: datetime | None) -> float | None:
    """Unix seconds of ``value`` (``None`` stays ``None``)."""
    return None if value is None else value.timestamp()


def dt(value: float | None) -> datetime | None:
    """The UTC time of Unix seconds ``value``."""
    return None if value is None else datetime.fromtimestamp(value, UTC)


_JOB_FIELDS = ("key", "kind", "user_id", "thread_id", "upto", "seq", "state", "attempts",
               "lease_owner", "last_error")
_JOB_TIMES = ("available_at", "lease_expires_at", "created_at", "finished_at")


def job_doc(job: Job) -> dict[str, Any]:
    """The document of ``job``."""
    doc: dict[str, Any] = {"id": job_id(job.key), "type": "job"}
    for name in _JOB_FIELDS:
        value = getattr(job, name)
        doc[name] = getattr(value, "value", value)
    for name in _JOB_TIMES:
        doc[name] = ts(getattr(job, name))
    return doc


def job_from(doc: Mapping[str, Any]) -> Job:
    """The job a stored document holds."""
    fields = {name: doc.get(name) for name in _JOB_FIELDS}
    fields.update({name: dt(doc.get(name)) for name in _JOB_TIMES})
    return Job(**fields)


def status(exc: BaseException) -> int | None:
    """The HTTP status of an SDK error (``None`` for transport errors)."""
    return getattr(exc, "status_code", None)


@contextmanager
def translated(action: str) -> Iterator[None]:
    """Turn SDK errors escaping the block into :class:`StoreError` naming ``action``.

    Callers handle the statuses the queue expects (404, 409, 412) before they reach here.
    """
    try:
        yield
    except CosmosHttpResponseError as exc:
        code = status(exc)
        reason = "throttled (429) after the SDK's retries" if code == 429 else \
            f"status {code}: {exc.message}"
        raise StoreError(f"Cosmos DB job queue: {action} failed, {reason}") from exc
    except AzureError as exc:
        raise StoreError(f"Cosmos DB job queue: {action} failed: {exc}") from exc

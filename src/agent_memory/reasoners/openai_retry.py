"""When the LLM reasoners send a chat completions request again, and when they do not.

A local server (llama.cpp, Ollama) works on one request at a time and does not stop when the
client gives up: a request abandoned on a timeout keeps the server busy until its answer is
written. Sending it again queues the copy behind the abandoned one, which makes the copy time
out in turn. So the reasoners never re-send a request that timed out (``reasoner_timeout`` is
the one knob: make it long enough for the slowest answer), and retry only errors that prove
the server is not working on the request:

- the connection could not be made (connection refused, connect timeout) or was closed
  before any response (the server dropped or never read the request);
- HTTP 408 (the server gave up reading it), 429 (rate limited) and 503 (not accepting work),
  after the ``Retry-After`` header's delay when it gives one (at most :data:`MAX_RETRY_AFTER`
  seconds; a longer wait is not taken), else after an exponential backoff.

Everything else (a read timeout, HTTP 500/502/504, 4xx) is raised at once. The OpenAI SDK's
own retries are turned off in the clients the reasoner builds (they re-send timed-out
requests), so this policy is the only one.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import openai

logger = logging.getLogger("agent_memory.reasoners")

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 429, 503})
"""HTTP statuses with which the server says it is not working on the request."""

MAX_RETRY_AFTER = 60.0
"""Longest ``Retry-After`` delay (seconds) waited for; a longer one ends the retries."""

BACKOFF_BASE = 0.5
"""First backoff delay (seconds) when the server gives no ``Retry-After``; doubled per retry
(with up to 25% jitter), at most :data:`BACKOFF_MAX`."""

BACKOFF_MAX = 8.0

_DROPPED = frozenset({"ConnectError", "ConnectTimeout", "RemoteProtocolError"})
"""Transport errors (httpx class names) raised before the server could have read the request
or after it closed the connection without an answer."""


def retry_after(headers: object) -> float | None:
    """Seconds a ``Retry-After`` (or ``retry-after-ms``) header asks to wait, or ``None``.

    Args:
        headers: the response headers (a mapping with case-insensitive ``get``).
    """
    get = getattr(headers, "get", None)
    if get is None:
        return None
    millis = get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def retry_delay(exc: BaseException, attempt: int) -> float | None:
    """How long to wait before sending again after ``exc``, or ``None`` to give up now.

    Args:
        exc: the SDK error of the failed request.
        attempt: 0 for the first retry, 1 for the second, ...

    Returns:
        Seconds (see the module docstring for which errors are retried), or ``None``.
    """
    backoff = min(BACKOFF_MAX, BACKOFF_BASE * 2 ** attempt) * (1 + random.random() / 4)
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError included
        return backoff if type(exc.__cause__).__name__ in _DROPPED else None
    if isinstance(exc, openai.APIStatusError) and exc.status_code in RETRY_STATUSES:
        wait = retry_after(exc.response.headers)
        if wait is None:
            return backoff
        return wait if wait <= MAX_RETRY_AFTER else None
    return None


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a timeout after the request was sent (the server may still be
    working on it)."""
    return isinstance(exc, openai.APITimeoutError) and type(exc.__cause__).__name__ not in _DROPPED


async def send(request: Callable[[], Awaitable[T]], max_retries: int, name: str) -> T:
    """Await ``request()``, again after each retryable error, at most ``max_retries`` times.

    Args:
        request: makes one SDK call (a new one per call).
        max_retries: retries after the first attempt (>= 0).
        name: the reasoner's name, for the log.

    Raises:
        openai.OpenAIError: the last error, when it is not retryable or the retries are spent.
    """
    attempt = 0
    while True:
        try:
            return await request()
        except openai.OpenAIError as exc:
            delay = retry_delay(exc, attempt) if attempt < max_retries else None
            if delay is None:
                raise
            logger.info("%s: %s; sending again in %.1f s (retry %d of %d)", name,
                        type(exc).__name__, delay, attempt + 1, max_retries)
            await asyncio.sleep(delay)
            attempt += 1

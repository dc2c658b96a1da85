"""One chat completions endpoint of the LLM reasoner: requests, response format, errors.

:class:`ChatEndpoint` sends a request through the ``openai`` SDK's async client with
``response_format`` set to the JSON schema of the output model (structured outputs). An
endpoint that refuses ``json_schema`` -- HTTP 400, or an error of any status whose body names
``response_format`` / ``json_schema`` / ``json_object`` (llama.cpp's server answers HTTP 500)
-- is asked again in JSON mode (``{"type": "json_object"}``) and keeps that mode afterwards,
unless the ``response_format`` option fixes the mode. A request is retried only when the
server provably is not working on it (:mod:`.openai_retry`). What remains is translated into
:class:`~agent_memory.errors.ReasonerError` (:meth:`ChatEndpoint.translate`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

import openai
from pydantic import BaseModel

from ..errors import ReasonerError
from . import openai_retry
from .structured import Message, response_format

ResponseFormat = Literal["auto", "json_schema", "json_object"]
"""How answers are requested: ``json_schema`` (structured outputs), ``json_object`` (JSON mode),
or ``auto``: ``json_schema`` first, JSON mode from the first refusal of it on."""

RESPONSE_FORMATS: tuple[ResponseFormat, ...] = ("auto", "json_schema", "json_object")
"""The accepted ``response_format`` values."""

_FORMAT_REFUSAL = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)
"""An error body naming these refuses the requested response format, whatever its status."""


class ChatEndpoint:
    """A chat completions endpoint with its model and request options.

    Args:
        client: the SDK client (``openai.AsyncOpenAI`` / ``AsyncAzureOpenAI``).
        name: the reasoner's name for messages (``openai:<model>``...).
        model: the model (or Azure deployment) requests name.
        temperature: sampling temperature; ``None`` leaves it to the server.
        timeout: the client's per-request timeout (seconds), quoted in timeout errors.
        max_retries: retries of requests the server provably did not work on (>= 0).
        response_format: ``auto``, ``json_schema`` or ``json_object``.
        owns_client: :meth:`aclose` closes ``client``.

    Attributes:
        format_mode: the mode requests use now (``json_schema`` or ``json_object``).
    """

    def __init__(self, client: Any, *, name: str, model: str, temperature: float | None,
                 timeout: float, max_retries: int, response_format: ResponseFormat,
                 owns_client: bool) -> None:
        self.client = client
        self.name = name
        self.model = model
        self.temperature = temperature
        self.timeout = timeout
        self.max_retries = max_retries
        self.response_format: ResponseFormat = response_format
        self.format_mode = "json_object" if response_format == "json_object" else "json_schema"
        self.owns_client = owns_client

    async def ask(self, messages: list[Message], model: type[BaseModel]) -> str:
        """Send one request for an answer shaped as ``model``; return the answer text.

        Raises:
            ReasonerError: the endpoint failed, returned no choice or the model refused.
        """
        try:
            completion = await self.create(messages, model, self.format_mode)
        except openai.APIStatusError as first:
            if self.response_format != "auto" or self.format_mode != "json_schema" \
                    or not refuses_format(first):
                raise self.translate(first) from first
            # The endpoint may not know json_schema (older vLLM, llama.cpp, some proxies).
            try:
                completion = await self.create(messages, model, "json_object")
            except openai.OpenAIError as exc:
                raise self.translate(exc) from exc
            self.format_mode = "json_object"
        except openai.OpenAIError as exc:
            raise self.translate(exc) from exc
        if not completion.choices:
            raise ReasonerError(f"{self.name}: the endpoint returned no choices")
        message = completion.choices[0].message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ReasonerError(f"{self.name}: the model refused the task: {refusal}")
        return message.content or ""

    async def create(self, messages: list[Message], model: type[BaseModel], mode: str) -> Any:
        """One chat completions call in response format ``mode`` (SDK errors pass through)."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "response_format": response_format(model, mode=mode),
        }
        if self.temperature is not None:
            params["temperature"] = self.temperature
        return await self.send(params)

    async def send(self, params: dict[str, Any]) -> Any:
        """One chat completions call under the retry policy of :mod:`.openai_retry`."""
        return await openai_retry.send(
            lambda: self.client.chat.completions.create(**params), self.max_retries, self.name)

    def translate(self, exc: Exception) -> ReasonerError:
        """The :class:`ReasonerError` for an SDK error (HTTP status, timeout, connection)."""
        if isinstance(exc, openai.APIStatusError):
            detail = error_message(exc)
            kind = type(exc).__name__
            return ReasonerError(f"{self.name}: HTTP {exc.status_code} ({kind}): {detail}")
        if openai_retry.timed_out(exc):
            return ReasonerError(
                f"{self.name}: no answer within {self.timeout:g} s (reasoner_timeout); not "
                "re-sent, as the server may still be working on it: raise reasoner_timeout "
                "for a slow local model")
        if isinstance(exc, openai.APIConnectionError):
            return ReasonerError(f"{self.name}: cannot reach the endpoint: {exc}")
        return ReasonerError(f"{self.name}: {type(exc).__name__}: {exc}")

    async def aclose(self) -> None:
        """Close the SDK client if this endpoint owns it."""
        if self.owns_client:
            await self.client.close()


def refuses_format(exc: openai.APIStatusError) -> bool:
    """Whether ``exc`` refuses the ``json_schema`` response format: HTTP 400, or any status
    whose error body names the response format (llama.cpp's server: HTTP 500 with a validation
    error naming ``json_object``)."""
    if exc.status_code == 400:
        return True
    body = exc.body if exc.body is not None else exc.message
    text = body if isinstance(body, str) else repr(body)
    return bool(_FORMAT_REFUSAL.search(text) or _FORMAT_REFUSAL.search(str(exc.message)))


def error_message(exc: openai.APIStatusError) -> str:
    """The server's own error message in ``exc`` (``{"error": {"message": ...}}``), else the
    SDK's."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(exc.message)

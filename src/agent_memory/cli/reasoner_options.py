"""The ``--reasoner`` options shared by the commands that run pipeline steps (``ingest``,
``demo``, ``reconcile``): the reasoner spec, its endpoint, its key, how it asks for JSON and how long it waits. Each defaults to the
settings (``AGENT_MEMORY_REASONER``, ``AGENT_MEMORY_REASONER_BASE_URL``,
``AGENT_MEMORY_REASONER_API_KEY``, ``AGENT_MEMORY_REASONER_TIMEOUT``... or the config file)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

ReasonerOpt = Annotated[str | None, typer.Option(
    "--reasoner", help="extractive (offline), openai:<model>, azure:<deployment> or "
    "compatible:<model> (default: AGENT_MEMORY_REASONER or extractive).")]
ReasonerBaseUrlOpt = Annotated[str | None, typer.Option(
    "--reasoner-base-url", help="OpenAI-compatible endpoint of compatible:/openai: reasoners, "
    "e.g. http://localhost:11434/v1 (Ollama), http://localhost:8080/v1 (llama.cpp).")]
ReasonerApiKeyOpt = Annotated[str | None, typer.Option(
    "--reasoner-api-key", help="Key for that endpoint (default: "
    "AGENT_MEMORY_REASONER_API_KEY; prefer the variable: options show in process lists).")]

ResponseFormatOpt = Annotated[str | None, typer.Option(
    "--reasoner-response-format", help="auto (structured outputs, JSON mode once refused), "
    "json_schema or json_object (JSON mode always, e.g. llama.cpp's server).")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--reasoner-timeout", min=0.001, help="Seconds to wait for one LLM answer (default: "
    "AGENT_MEMORY_REASONER_TIMEOUT or 60). A timed-out request is not re-sent: give a slow "
    "local model minutes (e.g. 600).")]


def reasoner_overrides(
    reasoner: str | None, base_url: str | None, api_key: str | None,
    response_format: str | None = None, timeout: float | None = None,
) -> dict[str, Any]:
    """The :class:`~agent_memory.config.Settings` overrides the options give (unset options
    are left out, so the environment and the config file still apply)."""
    found = {"reasoner": reasoner, "reasoner_base_url": base_url, "reasoner_api_key": api_key,
             "reasoner_response_format": response_format, "reasoner_timeout": timeout}
    return {name: value for name, value in found.items() if value is not None}

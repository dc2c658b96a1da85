"""The ``--reasoner`` options shared by the commands that run pipeline steps (``ingest``,
``demo``, ``reconcile``): the reasoner spec, its endpoint and its key. Each defaults to the
settings (``AGENT_MEMORY_REASONER``, ``AGENT_MEMORY_REASONER_BASE_URL``,
``AGENT_MEMORY_REASONER_API_KEY`` or the config file)."""

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


def reasoner_overrides(
    reasoner: str | None, base_url: str | None, api_key: str | None
) -> dict[str, Any]:
    """The :class:`~agent_memory.config.Settings` overrides the three options give (unset
    options are left out, so the environment and the config file still apply)."""
    found = {"reasoner": reasoner, "reasoner_base_url": base_url, "reasoner_api_key": api_key}
    return {name: value for name, value in found.items() if value is not None}

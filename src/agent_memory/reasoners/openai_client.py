"""Building the ``openai`` SDK client of the LLM reasoner from its settings.

Three providers share one SDK: OpenAI (``openai.AsyncOpenAI``, key from ``OPENAI_API_KEY``),
Azure OpenAI (``openai.AsyncAzureOpenAI``: endpoint, API version and deployment; a key or an
Entra ID token provider) and any OpenAI-compatible endpoint (``AsyncOpenAI`` on a
``base_url``: Ollama, vLLM, llama.cpp's server). :func:`infer_provider` picks the provider from
the options given, :func:`build_client` makes the client. The SDK's own retries are turned off
(``max_retries=0``): they would re-send a timed-out request, which :mod:`.openai_retry` never
does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Literal

import openai

from ..errors import ConfigError

Provider = Literal["openai", "azure", "compatible"]

PROVIDERS: tuple[Provider, ...] = ("openai", "azure", "compatible")
"""The accepted ``provider`` values."""

DEFAULT_AZURE_API_VERSION = "2024-10-21"
"""Azure OpenAI GA API version with structured outputs (json_schema response_format)."""

COMPATIBLE_PLACEHOLDER_KEY = "unused"
"""Key sent to an OpenAI-compatible endpoint when none is given (Ollama and vLLM ignore it).
``OPENAI_API_KEY`` is deliberately not used there, so an OpenAI key never leaks to a third party."""


def infer_provider(
    provider: str | None,
    *,
    deployment: str | None = None,
    azure_endpoint: str | None = None,
    base_url: str | None = None,
    client: Any = None,
) -> Provider:
    """The provider named, or the one the options imply: ``azure`` with a deployment, an Azure
    endpoint or an ``AsyncAzureOpenAI`` client; ``compatible`` with a ``base_url``; else
    ``openai``.

    Raises:
        ConfigError: ``provider`` is given but not one of :data:`PROVIDERS`.
    """
    if provider is None:
        if deployment or azure_endpoint or isinstance(client, openai.AsyncAzureOpenAI):
            return "azure"
        return "compatible" if base_url else "openai"
    for known in PROVIDERS:
        if provider == known:
            return known
    raise ConfigError(f"unknown provider {provider!r}; use openai, azure or compatible")


def azure_api_version(api_version: str | None) -> str:
    """``api_version``, else ``AZURE_OPENAI_API_VERSION``, ``OPENAI_API_VERSION`` or
    :data:`DEFAULT_AZURE_API_VERSION`."""
    return (api_version
            or os.environ.get("AZURE_OPENAI_API_VERSION")
            or os.environ.get("OPENAI_API_VERSION")
            or DEFAULT_AZURE_API_VERSION)


def build_client(
    provider: Provider,
    *,
    timeout: float,
    api_key: str | None = None,
    base_url: str | None = None,
    azure_endpoint: str | None = None,
    api_version: str | None = None,
    azure_ad_token_provider: Callable[[], Any] | None = None,
    http_client: Any | None = None,
) -> openai.AsyncOpenAI:
    """The SDK's async client for ``provider``.

    Args:
        provider: ``openai``, ``azure`` or ``compatible``.
        timeout: per-request timeout (seconds).
        api_key: API key; default from the SDK's environment (``OPENAI_API_KEY``,
            ``AZURE_OPENAI_API_KEY``), or :data:`COMPATIBLE_PLACEHOLDER_KEY` for compatible
            endpoints.
        base_url: the endpoint of a compatible server (or another OpenAI base URL).
        azure_endpoint: ``https://<resource>.openai.azure.com``; default
            ``AZURE_OPENAI_ENDPOINT``.
        api_version: Azure API version (see :func:`azure_api_version`).
        azure_ad_token_provider: Entra ID token callable for Azure, instead of a key.
        http_client: an ``httpx.AsyncClient`` for the SDK.

    Raises:
        ConfigError: a compatible provider without ``base_url``, or the SDK refused the
            options (no key, no endpoint...).
    """
    if provider == "compatible" and not base_url:
        raise ConfigError("the compatible reasoner needs base_url")
    # The SDK's own retries would re-send timed-out requests: openai_retry decides instead.
    common: dict[str, Any] = {"timeout": timeout, "max_retries": 0}
    if http_client is not None:
        common["http_client"] = http_client
    try:
        if provider == "azure":
            return openai.AsyncAzureOpenAI(
                azure_endpoint=azure_endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT"),
                api_version=azure_api_version(api_version),
                api_key=api_key,
                azure_ad_token_provider=azure_ad_token_provider,
                **common,
            )
        if provider == "compatible":
            return openai.AsyncOpenAI(
                api_key=api_key or COMPATIBLE_PLACEHOLDER_KEY, base_url=base_url, **common
            )
        return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **common)
    except (openai.OpenAIError, ValueError) as exc:  # the SDK raises both for bad config
        raise ConfigError(f"cannot configure the {provider} reasoner: {exc}") from exc

"""Reasoners: every LLM-shaped task (summarize, extract, ...) behind one interface.

Resolve one from a spec string with :func:`get_reasoner`:

================================  ================================================================
``extractive``                    offline, no LLM (:class:`ExtractiveReasoner`)
``openai:<model>``                OpenAI (``OPENAI_API_KEY``)
``azure:<deployment>``            Azure OpenAI (``azure_endpoint`` / ``AZURE_OPENAI_ENDPOINT``)
``compatible:<model>``            any OpenAI-compatible ``base_url`` (Ollama, llama.cpp, vLLM)
================================  ================================================================

:func:`reasoner_from_settings` builds the one :class:`~agent_memory.config.Settings` names, with
its endpoint (``reasoner_base_url``), key (``reasoner_api_key``) and context window
(``reasoner_context_tokens``); every surface (client, CLI, service) goes through it.

Implementations are imported lazily: importing this package does not import ``openai``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .base import FactDraft, FactExtraction, Reasoner, SummaryDraft

if TYPE_CHECKING:
    from ..config import Settings
    from .extractive import ExtractiveReasoner
    from .openai import OpenAIReasoner
    from .scripted import ScriptedChatModel, ScriptedHTTPError

__all__ = [
    "ExtractiveReasoner",
    "FactDraft",
    "FactExtraction",
    "OpenAIReasoner",
    "Reasoner",
    "ScriptedChatModel",
    "ScriptedHTTPError",
    "SummaryDraft",
    "get_reasoner",
    "reasoner_from_settings",
]

_LAZY = {
    "ExtractiveReasoner": ".extractive",
    "OpenAIReasoner": ".openai",
    "ScriptedChatModel": ".scripted",
    "ScriptedHTTPError": ".scripted",
}

_LLM_PROVIDERS = ("openai", "azure", "compatible")


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)


def get_reasoner(spec: str, **options: Any) -> Reasoner:
    """Build the reasoner named by ``spec``.

    Args:
        spec: ``extractive``, ``openai:<model>``, ``azure:<deployment>`` or
            ``compatible:<model>`` (case of the provider ignored).
        **options: passed to the implementation's constructor (e.g. ``api_key``,
            ``base_url``, ``azure_endpoint``, ``api_version``, ``temperature``,
            ``max_repairs``, ``timeout``, ``client``, ``http_client`` for the LLM reasoners).

    Returns:
        A :class:`Reasoner` whose ``name`` is the normalised spec.

    Raises:
        ConfigError: unknown spec, missing model / deployment / ``base_url`` / key, or an
            option the implementation does not take.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("reasoner spec must be a non-empty string")
    provider, _, target = spec.strip().partition(":")
    provider = provider.strip().lower()
    target = target.strip()
    if provider == "extractive" and not target:
        try:
            from .extractive import ExtractiveReasoner
        except ImportError as exc:  # pragma: no cover - ships with the package
            raise ConfigError(f"the extractive reasoner is unavailable: {exc}") from exc
        return _build(ExtractiveReasoner, spec, options)
    if provider in _LLM_PROVIDERS:
        if not target:
            what = "deployment" if provider == "azure" else "model"
            raise ConfigError(f"reasoner spec {spec!r} needs a {what}: '{provider}:<{what}>'")
        if provider == "compatible" and not options.get("base_url"):
            raise ConfigError(
                f"reasoner {spec!r} needs a base URL: set reasoner_base_url "
                "(AGENT_MEMORY_REASONER_BASE_URL, --reasoner-base-url), e.g. "
                "http://localhost:11434/v1 for Ollama or http://localhost:8080/v1 for llama.cpp"
            )
        from .openai import OpenAIReasoner

        if provider == "azure":
            options.setdefault("deployment", target)
            return _build(OpenAIReasoner, spec, {**options, "provider": "azure"})
        return _build(OpenAIReasoner, spec, {"model": target, **options, "provider": provider})
    raise ConfigError(
        f"unknown reasoner {spec!r}; expected extractive, openai:<model>, azure:<deployment> "
        "or compatible:<model>"
    )


def reasoner_from_settings(settings: Settings, **options: Any) -> Reasoner:
    """Build the reasoner ``settings.reasoner`` names, configured from ``settings``.

    ``reasoner_base_url`` and ``reasoner_api_key`` go to ``openai:`` and ``compatible:``
    reasoners (``azure:`` takes its endpoint from ``azure_endpoint`` /
    ``AZURE_OPENAI_ENDPOINT``, and the key), ``reasoner_context_tokens`` and
    ``reasoner_response_format`` and ``reasoner_timeout`` to every LLM reasoner; ``extractive`` takes ``wordnet``.

    Args:
        settings: the settings.
        **options: more constructor options (they win over the settings'), as for
            :func:`get_reasoner`.

    Raises:
        ConfigError: as :func:`get_reasoner`.
    """
    provider = settings.reasoner.strip().partition(":")[0].strip().lower()
    if provider in _LLM_PROVIDERS:
        found: dict[str, Any] = {"context_tokens": settings.reasoner_context_tokens,
                                 "response_format": settings.reasoner_response_format,
                                 "timeout": settings.reasoner_timeout}
        if settings.reasoner_api_key is not None:
            found["api_key"] = settings.reasoner_api_key.get_secret_value()
        if settings.reasoner_base_url and provider != "azure":
            found["base_url"] = settings.reasoner_base_url
        options = {**found, **options}
    elif provider == "extractive" and settings.wordnet:
        options = {"wordnet": settings.wordnet, **options}
    return get_reasoner(settings.reasoner, **options)


def _build(cls: type[Reasoner], spec: str, options: dict[str, Any]) -> Reasoner:
    import inspect

    try:
        inspect.signature(cls).bind(**options)
    except TypeError as exc:
        raise ConfigError(f"bad option for reasoner {spec!r}: {exc}") from exc
    return cls(**options)

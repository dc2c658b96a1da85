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
from ..plugins import Registry
from .base import FactDraft, FactExtraction, Reasoner, SummaryDraft

if TYPE_CHECKING:
    from ..config import Settings
    from .extractive import ExtractiveReasoner
    from .openai import OpenAIReasoner
    from .scripted import ScriptedChatModel, ScriptedHTTPError

__all__ = [
    "REASONERS",
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
"""Providers that take the LLM settings (endpoint, key, context window)."""

BUILTIN = {
    "extractive": "agent_memory.reasoners.builtin:extractive",
    "openai": "agent_memory.reasoners.builtin:openai",
    "azure": "agent_memory.reasoners.builtin:azure",
    "compatible": "agent_memory.reasoners.builtin:compatible",
}
"""The package's own providers, as declared under
``[project.entry-points."agent_memory.reasoners"]``."""

REASONERS = Registry("agent_memory.reasoners", "reasoner provider", BUILTIN)
"""Reasoner factories by provider: the built-ins and every ``agent_memory.reasoners`` entry
point."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)


def get_reasoner(spec: str, **options: Any) -> Reasoner:
    """Build the reasoner named by ``spec``, its provider resolved through :data:`REASONERS`.

    Args:
        spec: ``extractive``, ``openai:<model>``, ``azure:<deployment>``,
            ``compatible:<model>`` or ``provider:<target>`` of a reasoner registered by a
            plugin (case of the provider ignored).
        **options: passed to the implementation's constructor (e.g. ``api_key``,
            ``base_url``, ``azure_endpoint``, ``api_version``, ``temperature``,
            ``max_repairs``, ``timeout``, ``client``, ``http_client`` for the LLM reasoners).

    Returns:
        A :class:`Reasoner` whose ``name`` is the normalised spec.

    Raises:
        ConfigError: unknown provider (the message lists the known ones), missing model /
            deployment / ``base_url`` / key, or an option the implementation does not take.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("reasoner spec must be a non-empty string")
    provider, _, target = spec.strip().partition(":")
    factory = REASONERS.get(provider.strip())
    return factory(target.strip(), **options)


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

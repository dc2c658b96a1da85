"""The package's own reasoner factories, registered in the ``agent_memory.reasoners``
entry-point group (see :mod:`agent_memory.plugins`): ``extractive``, ``openai``, ``azure``
and ``compatible``.

A factory takes the part of the spec after ``provider:`` (``""`` when absent) and the
constructor options of :func:`~agent_memory.reasoners.get_reasoner`.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..errors import ConfigError
from .base import Reasoner


def build(cls: type[Reasoner], spec: str, options: dict[str, Any]) -> Reasoner:
    """``cls(**options)``, an option it does not take reported as a :class:`ConfigError`."""
    try:
        inspect.signature(cls).bind(**options)
    except TypeError as exc:
        raise ConfigError(f"bad option for reasoner {spec!r}: {exc}") from exc
    return cls(**options)


def extractive(target: str, /, **options: Any) -> Reasoner:
    """The offline extractive reasoner (no LLM).

    Raises:
        ConfigError: a target was given (``extractive`` takes none), or a bad option.
    """
    if target:
        raise ConfigError(f"unknown reasoner 'extractive:{target}'; 'extractive' takes no model")
    from .extractive import ExtractiveReasoner

    return build(ExtractiveReasoner, "extractive", options)


def _llm(provider: str, target: str, options: dict[str, Any]) -> Reasoner:
    spec = f"{provider}:{target}"
    if not target:
        what = "deployment" if provider == "azure" else "model"
        raise ConfigError(f"reasoner spec {provider!r} needs a {what}: '{provider}:<{what}>'")
    if provider == "compatible" and not options.get("base_url"):
        raise ConfigError(
            f"reasoner {spec!r} needs a base URL: set reasoner_base_url "
            "(AGENT_MEMORY_REASONER_BASE_URL, --reasoner-base-url), e.g. "
            "http://localhost:11434/v1 for Ollama or http://localhost:8080/v1 for llama.cpp"
        )
    from .openai import OpenAIReasoner

    if provider == "azure":
        options.setdefault("deployment", target)
        return build(OpenAIReasoner, spec, {**options, "provider": "azure"})
    return build(OpenAIReasoner, spec, {"model": target, **options, "provider": provider})


def openai(target: str, /, **options: Any) -> Reasoner:
    """An OpenAI model (``OPENAI_API_KEY``).

    Raises:
        ConfigError: no model, or a bad option.
    """
    return _llm("openai", target, options)


def azure(target: str, /, **options: Any) -> Reasoner:
    """An Azure OpenAI deployment (``azure_endpoint`` / ``AZURE_OPENAI_ENDPOINT``).

    Raises:
        ConfigError: no deployment, or a bad option.
    """
    return _llm("azure", target, options)


def compatible(target: str, /, **options: Any) -> Reasoner:
    """A model behind any OpenAI-compatible ``base_url`` (Ollama, llama.cpp, vLLM).

    Raises:
        ConfigError: no model or no ``base_url``, or a bad option.
    """
    return _llm("compatible", target, options)

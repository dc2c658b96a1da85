"""The package's own embedder factories, registered in the ``agent_memory.embedders``
entry-point group (see :mod:`agent_memory.plugins`): ``local``, ``openai`` and ``azure``.

A factory takes the model part of ``"provider:model"`` (``""`` when absent) and the
constructor options of :func:`~agent_memory.embedders.get_embedder`.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .base import Embedder


def local(model: str, /, **options: Any) -> Embedder:
    """The bundled all-MiniLM-L6-v2 (``model`` empty or its name), or an exported model
    (:func:`agent_memory.embedders._local_export`).

    Raises:
        ConfigError / ModelUnavailableError: the model is not available.
    """
    from . import _local_export
    from .local import LOCAL_MODEL, LocalEmbedder

    if model and model != LOCAL_MODEL:
        return LocalEmbedder(_local_export(model), **options)
    return LocalEmbedder(**options)


def openai(model: str, /, **options: Any) -> Embedder:
    """The OpenAI embeddings API (or an OpenAI-compatible ``base_url``) with ``model``.

    Raises:
        ConfigError: no model given.
    """
    if not model:
        raise ConfigError("embedder 'openai' names no model: use 'openai:<model>'")
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(model, **options)


def azure(model: str, /, **options: Any) -> Embedder:
    """Azure OpenAI embeddings by deployment name ``model``.

    Raises:
        ConfigError: no deployment given.
    """
    if not model:
        raise ConfigError("embedder 'azure' names no model: use 'azure:<deployment>'")
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(azure_deployment=model, **options)

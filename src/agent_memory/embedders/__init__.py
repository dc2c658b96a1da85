"""Embedders behind one contract (:class:`Embedder`), resolved from ``"provider:model"`` strings.

Providers:
    ``local``   the bundled all-MiniLM-L6-v2 run with onnxruntime (offline, 384 dims):
                ``local:all-MiniLM-L6-v2`` (or just ``local``); or any model exported with
                ``agent-memory model export --from FOLDER``: ``local:<name>`` (its name),
                ``local:<export dir>`` or ``local:<model folder>`` (:mod:`.folder`).
    ``openai``  the OpenAI embeddings API, or any OpenAI-compatible ``base_url``:
                ``openai:text-embedding-3-small``.
    ``azure``   Azure OpenAI, by deployment name: ``azure:<deployment>``.

Importing this package imports neither onnxruntime nor openai: the implementations load on
first use (:func:`get_embedder`, or attribute access such as ``embedders.LocalEmbedder``).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ModelUnavailableError
from ..plugins import Registry
from .base import Embedder, l2_normalize

if TYPE_CHECKING:  # pragma: no cover
    from .local import LocalEmbedder
    from .openai import OpenAIEmbedder

__all__ = [
    "EMBEDDERS",
    "PROVIDERS",
    "Embedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "get_embedder",
    "l2_normalize",
]

_LAZY = {"LocalEmbedder": ".local", "OpenAIEmbedder": ".openai"}

BUILTIN = {
    "local": "agent_memory.embedders.builtin:local",
    "openai": "agent_memory.embedders.builtin:openai",
    "azure": "agent_memory.embedders.builtin:azure",
}
"""The package's own providers, as declared under
``[project.entry-points."agent_memory.embedders"]``."""

EMBEDDERS = Registry("agent_memory.embedders", "embedder provider", BUILTIN)
"""Embedder factories by provider: the built-ins and every ``agent_memory.embedders`` entry
point."""

PROVIDERS = tuple(BUILTIN)
"""The built-in provider prefixes (plugins add more to :data:`EMBEDDERS`)."""


def get_embedder(spec: str, **options: Any) -> Embedder:
    """Build the embedder named by ``spec``, its provider resolved through :data:`EMBEDDERS`.

    Args:
        spec: ``"provider:model"``: ``local:all-MiniLM-L6-v2``, ``openai:<model>``,
            ``azure:<deployment>`` or a provider registered by a plugin. A bare ``local``
            means the default local model.
        **options: passed to the embedder's constructor (e.g. ``batch_size=32`` for local;
            ``api_key=``, ``base_url=``, ``dimensions=``, ``azure_endpoint=``, ``api_version=``
            for openai / azure).

    Returns:
        An :class:`Embedder`; the local model loads lazily, on its first ``embed``.

    Raises:
        ConfigError: the provider is unknown (the message lists the known ones), the model is
            missing or not supported, or the options do not fit the provider.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(
            f"embedder must be 'provider:model', one of {', '.join(EMBEDDERS.names())}")
    provider, _, model = spec.strip().partition(":")
    factory = EMBEDDERS.get(provider.strip())
    try:
        return factory(model.strip(), **options)
    except TypeError as exc:  # an option the constructor does not take
        raise ConfigError(f"bad option for embedder {spec!r}: {exc}") from exc


def _local_export(model: str):
    """The export directory ``local:<model>`` names: an export directory, a model folder
    (exported on first use when torch is installed) or the name of an export in the cache.

    Raises:
        ConfigError / ModelUnavailableError: nothing by that name, or not exported yet.
    """
    from pathlib import Path

    from . import export, folder

    path = Path(model).expanduser()
    if path.is_dir():
        if export.is_exported(path):
            return path
        target = folder.export_dir(path.resolve().name)
        if export.is_exported(target) and export.read_manifest(target).get("source") == str(
                path.resolve()):
            return target
        if importlib.util.find_spec("torch") is None:
            raise ModelUnavailableError(
                f"{path} is not exported yet: run `{folder.FOLDER_EXPORT_COMMAND} {path}` "
                f"(needs `{export.INSTALL_HINT}`)")
        return folder.export_folder(path)
    if "/" not in model and export.is_exported(folder.export_dir(model)):
        return folder.export_dir(model)
    raise ConfigError(
        f"local embedder {model!r} is not available: give a model folder or an export "
        f"directory, or export it first (`{folder.FOLDER_EXPORT_COMMAND} FOLDER --name {model}`);"
        f" the bundled model is {export.MODEL_NAME!r}")


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value

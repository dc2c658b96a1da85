"""Registries of stores, embedders and reasoners, filled from entry points.

A store backend, an embedder provider or a reasoner provider is a *factory* registered under a
name in one of three entry-point groups (as simonw/llm finds its plugins):

==========================  =====================  ==========================================
group                       name                   factory
==========================  =====================  ==========================================
``agent_memory.stores``     a scheme (``sqlite``)  ``factory(spec, **options) -> MemoryStore``
``agent_memory.embedders``  a provider (``local``) ``factory(model, **options) -> Embedder``
``agent_memory.reasoners``  a provider (``openai``) ``factory(target, **options) -> Reasoner``
==========================  =====================  ==========================================

A third party adds one with an entry point in its own ``pyproject.toml``::

    [project.entry-points."agent_memory.stores"]
    redis = "my_package.store:open_redis_store"

and ``open_store("redis://...")`` then builds its store. The package's own built-ins are
declared the same way in its ``pyproject.toml``, and are also registered through
:meth:`Registry.register` from a table beside each registry (the way llm registers its
default plugins through its own plugin manager), so a source checkout that was never installed
resolves them too; the table and the entry points are kept equal by a test.

Entry points are read once per registry (:func:`importlib.metadata.entry_points`), on the first
lookup; a factory's module is imported only when that factory is first used, then cached.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any

from .errors import ConfigError

Factory = Callable[..., Any]
"""A plugin's factory: called with the spec's remainder and keyword options."""


def _load(target: str) -> Factory:
    """Import ``"module:attribute"``."""
    module, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


class Registry:
    """Named factories of one kind (stores, embedders or reasoners).

    Args:
        group: the entry-point group read on first lookup (``"agent_memory.stores"``).
        kind: what a name names, for error messages (``"store scheme"``).
        builtins: name -> ``"module:attribute"`` of the package's own factories, registered
            through :meth:`register` like any other.

    Names are case-insensitive. The first registration of a name wins: the built-ins, then
    entry points in the order the environment lists them (a third-party entry point that
    reuses a taken name is skipped with a warning); :meth:`register` with ``replace=True``
    overrides one.
    """

    def __init__(self, group: str, kind: str, builtins: Mapping[str, str]) -> None:
        self.group = group
        self.kind = kind
        self._targets: dict[str, str | Factory] = {}
        self._loaded: dict[str, Factory] = {}
        self._from_points: set[str] = set()
        self._scanned = False
        self._lock = threading.Lock()
        for name, target in builtins.items():
            self.register(name, target)

    def register(self, name: str, factory: str | Factory, *, replace: bool = False) -> None:
        """Register ``factory`` (or its ``"module:attribute"`` path, imported on first use)
        under ``name``.

        Raises:
            ConfigError: the name is empty or holds ``:``, or it is taken by another
                factory and ``replace`` is false.
        """
        key = name.strip().lower() if isinstance(name, str) else ""
        if not key or ":" in key:
            raise ConfigError(f"{self.kind} name {name!r} must be non-empty without ':'")
        with self._lock:
            taken = self._targets.get(key)
            if taken is not None and taken != factory and not replace:
                raise ConfigError(f"{self.kind} {key!r} is already registered ({taken!r})")
            self._targets[key] = factory
            self._from_points.discard(key)
            self._loaded.pop(key, None)

    def _scan(self) -> None:
        """Register the group's entry points (once)."""
        if self._scanned:
            return
        found = entry_points(group=self.group)
        with self._lock:
            if self._scanned:
                return
            for point in found:
                key = point.name.strip().lower()
                taken = self._targets.get(key)
                if taken is None:
                    self._targets[key] = point.value
                    self._from_points.add(key)
                elif taken != point.value:
                    warnings.warn(
                        f"{self.group} entry point {point.name!r} = {point.value!r} skipped: "
                        f"{key!r} is already {taken!r}", RuntimeWarning, stacklevel=3)
            self._scanned = True

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        self._scan()
        return tuple(sorted(self._targets))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.names()

    def get(self, name: str) -> Factory:
        """The factory registered under ``name``, imported on first use.

        Raises:
            ConfigError: no factory has that name (the message lists the known ones), or its
                module cannot be imported.
        """
        key = name.strip().lower()
        factory = self._loaded.get(key)
        if factory is not None:
            return factory
        self._scan()
        target = self._targets.get(key)
        if target is None:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}")
        if isinstance(target, str):
            try:
                factory = _load(target)
            except (ImportError, AttributeError) as exc:
                raise ConfigError(f"{self.kind} {key!r} ({target}) cannot be loaded: {exc}") from exc
        else:
            factory = target
        self._loaded[key] = factory
        return factory

    def reset(self) -> None:
        """Forget the loaded factories and read the entry points again on the next lookup
        (after installing a plugin in a running process)."""
        with self._lock:
            for key in self._from_points:
                self._targets.pop(key, None)
            self._from_points.clear()
            self._loaded.clear()
            self._scanned = False

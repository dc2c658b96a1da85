"""Stores, embedders and reasoners resolved through entry-point registries
(:mod:`agent_memory.plugins`): a third-party store installed as a distribution with an
``agent_memory.stores`` entry point is opened by ``open_store("toy://...")`` and passes the
shipped conformance suite; the built-in table equals the entry points ``pyproject.toml``
declares; unknown names get a :class:`ConfigError` naming the known ones."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from agent_memory import embedders, reasoners, stores
from agent_memory.errors import ConfigError
from agent_memory.plugins import Registry
from agent_memory.stores import STORES, open_store
from agent_memory.stores.sqlite import SQLiteStore
from agent_memory.testing import StoreConformance, StoreFactory

PLUGIN_DIST = Path(__file__).parent / "plugin_dist"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.fixture
def toy_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The ``toystore`` distribution (package + dist-info) on the import path, as ``pip
    install`` leaves it; the store registry reads the entry points again."""
    monkeypatch.syspath_prepend(str(PLUGIN_DIST))
    STORES.reset()
    yield
    monkeypatch.undo()
    sys.modules.pop("toystore", None)
    STORES.reset()


def test_the_toy_distribution_declares_its_entry_point(toy_installed):
    (point,) = [p for p in entry_points(group="agent_memory.stores") if p.name == "toy"]
    assert point.value == "toystore:open_toy_store"
    assert "toy" in STORES.names()


def test_open_store_builds_the_plugin_store(toy_installed, tmp_path):
    store = open_store(f"toy://{tmp_path}")
    assert type(store).__name__ == "ToyStore" and type(store).__module__ == "toystore"
    assert store.directory == tmp_path


def test_without_the_plugin_its_scheme_is_unknown(tmp_path):
    STORES.reset()
    with pytest.raises(ConfigError, match=r"unknown store scheme 'toy'; known: .*sqlite"):
        open_store(f"toy://{tmp_path}")


@pytest.fixture
def store_factory(toy_installed, tmp_path: Path) -> StoreFactory:
    """Clients of the plugin store, opened by URL through the registry."""
    return lambda: open_store(f"toy://{tmp_path / 'toy'}")


class TestToyStorePlugin(StoreConformance):
    """The shipped conformance suite on the store a third party registered by entry point."""


def _declared(group: str) -> dict[str, str]:
    table = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]
    return dict(table[group])


@pytest.mark.parametrize(("group", "builtin"), [
    ("agent_memory.stores", stores.BUILTIN),
    ("agent_memory.embedders", embedders.BUILTIN),
    ("agent_memory.reasoners", reasoners.BUILTIN),
])
def test_builtins_equal_the_declared_entry_points(group, builtin):
    assert _declared(group) == builtin
    for target in builtin.values():  # every declared factory imports
        module, _, name = target.partition(":")
        assert callable(getattr(__import__(module, fromlist=[name]), name))


def test_paths_and_schemes(tmp_path):
    assert isinstance(open_store(str(tmp_path / "a.db")), SQLiteStore)
    assert isinstance(open_store(f"sqlite:{tmp_path / 'b.db'}"), SQLiteStore)
    assert stores.store_scheme("C:\\data\\memory.db") is None  # a drive letter is no scheme
    assert stores.store_scheme("cosmos://localhost:8081") == "cosmos"
    with pytest.raises(ConfigError, match="store path is empty"):
        open_store("sqlite:")
    with pytest.raises(ConfigError, match="unknown store scheme 'redis'; known: azure-cosmos"):
        open_store("redis://localhost")


def test_unknown_providers_name_the_known_ones():
    with pytest.raises(ConfigError, match="unknown embedder provider 'cohere'; known: azure, "
                                          "local, openai"):
        embedders.get_embedder("cohere:embed-v3")
    with pytest.raises(ConfigError, match="unknown reasoner provider 'claude'; known: azure, "
                                          "compatible, extractive, openai"):
        reasoners.get_reasoner("claude:haiku")


def test_register_a_factory_object_and_conflicts():
    registry = Registry("agent_memory.tests.none", "widget", {"a": "builtins:dict"})
    assert registry.get("A") is dict  # names are case-insensitive; imported on first use
    registry.register("b", list)
    assert registry.names() == ("a", "b") and registry.get("b") is list
    with pytest.raises(ConfigError, match="already registered"):
        registry.register("b", tuple)
    registry.register("b", tuple, replace=True)
    assert registry.get("b") is tuple
    with pytest.raises(ConfigError, match="without ':'"):
        registry.register("x:y", list)
    broken = Registry("agent_memory.tests.none", "widget", {"gone": "no_such_module:f"})
    with pytest.raises(ConfigError, match="widget 'gone' .* cannot be loaded"):
        broken.get("gone")


def test_a_plugin_cannot_take_a_builtin_name(tmp_path, monkeypatch):
    dist = tmp_path / "shadow-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shadow\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[agent_memory.stores]\nsqlite = shadow:evil\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry("agent_memory.stores", "store scheme", stores.BUILTIN)
    with pytest.warns(RuntimeWarning, match="'sqlite' is already"):
        assert registry.get("sqlite") is not None
    assert registry.get("sqlite").__module__ == "agent_memory.stores.builtin"

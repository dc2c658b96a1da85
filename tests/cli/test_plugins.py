"""CLI commands come from the ``agent_memory.commands`` entry-point group
(:mod:`agent_memory.cli.commands`): the built-ins are the table ``pyproject.toml`` declares, and
a third-party distribution with an entry point adds a working command (a broken one is skipped
with a warning, the rest of the CLI still works)."""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agent_memory import Memory, Settings
from agent_memory.cli.app import app, build_app
from agent_memory.cli.commands import BUILTIN, COMMANDS, HANDLES_ERRORS

PLUGIN_DIST = Path(__file__).parent / "plugin_dist"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

runner = CliRunner()


@pytest.fixture
def toy_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The ``toycommand`` distribution (package + dist-info) on the import path, as ``pip
    install`` leaves it; the command registry reads the entry points again."""
    monkeypatch.syspath_prepend(str(PLUGIN_DIST))
    COMMANDS.reset()
    yield
    monkeypatch.undo()
    sys.modules.pop("toycommand", None)
    COMMANDS.reset()


def test_builtins_equal_the_declared_entry_points() -> None:
    table = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]
    assert dict(table["agent_memory.commands"]) == BUILTIN
    for name in BUILTIN:  # every declared registrar imports
        assert callable(COMMANDS.get(name))


def test_the_builtin_commands_are_all_there() -> None:
    names = set(typer.main.get_command(app).commands)
    assert {"ingest", "search", "memories", "summary", "profile", "demo", "eval", "model",
            "recall", "facts", "serve", "mcp", "copy"} <= names
    assert "kinds" not in names


def test_a_plugin_distribution_adds_a_working_command(toy_installed, tmp_path) -> None:
    (point,) = [p for p in entry_points(group="agent_memory.commands") if p.name == "toy"]
    assert point.value == "toycommand:register"
    store = str(tmp_path / "m.db")
    with Memory(Settings.load(store=store)) as memory:
        memory.add_turns([
            {"user_id": "ana", "thread_id": "t1", "role": "user", "content": "I moved to Porto."},
            {"user_id": "ana", "thread_id": "t2", "role": "user", "content": "I have a cat."},
        ])
        memory.add_memories("ana", [{"content": "Ana lives in Porto."}])
    with_plugin = build_app()
    command = typer.main.get_command(with_plugin).commands["kinds"]
    assert getattr(command.callback, HANDLES_ERRORS, False)
    result = runner.invoke(with_plugin, ["kinds", "--user", "ana", "--store", store])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"fact": 1, "turn": 2}
    result = runner.invoke(with_plugin, ["kinds", "--user", "ana", "--store", store,
                                         "--thread", "t2"])
    assert json.loads(result.stdout) == {"turn": 1}
    result = runner.invoke(with_plugin, ["kinds", "--user", "ana", "--store", store,
                                         "--kind", "nope"])
    assert result.exit_code == 2 and "UnknownOptionError" in result.output


def test_a_broken_plugin_is_skipped_with_a_warning(toy_installed, capsys) -> None:
    with_plugin = build_app()
    assert "cannot be loaded" in capsys.readouterr().err
    names = set(typer.main.get_command(with_plugin).commands)
    assert {"kinds", "search", "memories"} <= names

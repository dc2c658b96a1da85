"""``--store`` and ``--user`` are defined once (:mod:`agent_memory.cli.options`) and mean the
same in every command; a store spec reaches the store registry as written (a URL is not
turned into a path)."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from agent_memory.cli.app import app
from agent_memory.cli.options import StoreOpt, UserOpt

runner = CliRunner()

OWN_STORE = {"demo", "setup cosmos", "eval locomo", "eval locomo-memory"}
"""Commands whose --store means something else (a store to keep, a Cosmos URL only)."""


def _commands(group, prefix=""):
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        if hasattr(command, "commands"):
            yield from _commands(command, f"{full} ")
        else:
            yield full, command


def _option(command, flag):
    return next((p for p in command.params if flag in getattr(p, "opts", ())), None)


def test_every_store_and_user_option_is_the_shared_definition():
    shared_store = StoreOpt.__metadata__[0].help
    shared_user = UserOpt.__metadata__[0].help
    commands = dict(_commands(typer.main.get_command(app)))
    stores = {name: _option(c, "--store") for name, c in commands.items()}
    with_store = [n for n, o in stores.items() if o is not None and n not in OWN_STORE]
    assert len(with_store) >= 10
    for name in with_store:
        assert stores[name].help == shared_store, name
    users = {name: _option(c, "--user") for name, c in commands.items()}
    single = [n for n, o in users.items() if o is not None and not o.multiple and not o.envvar]
    assert len(single) >= 5
    for name in single:
        assert users[name].help == shared_user, name


@pytest.mark.parametrize("spec", ["nosuch://somewhere/db", "NoSuch://x"])
def test_a_store_url_reaches_the_registry_as_written(spec):
    result = runner.invoke(app, ["profile", "--user", "u", "--store", spec])
    assert result.exit_code == 2
    assert "unknown store scheme" in result.output and "known: azure-cosmos" in result.output


def test_a_store_path_still_works(tmp_path):
    """A plain path is a SQLite store: a command that writes makes it, one that only reads
    then finds it (and refuses it while it does not exist)."""
    store = str(tmp_path / "m.db")
    result = runner.invoke(app, ["profile", "--user", "u", "--store", store])
    assert result.exit_code == 2 and "StoreNotFoundError" in result.output
    assert runner.invoke(app, ["reconcile", "--user", "u", "--store", store]).exit_code == 0
    assert (tmp_path / "m.db").exists()
    result = runner.invoke(app, ["profile", "--user", "u", "--store", store])
    assert result.exit_code == 1 and "no profile for user 'u'" in result.output


def test_every_filter_option_is_the_shared_definition():
    """The options of MemoryFilter's fields (--kind, --as-of, ...) come from the filter's one
    definition in every command that has them (--thread and --agent also name other things:
    a summary's thread, the agent a recall is for)."""
    from agent_memory.filters import filter_fields

    shared = {meta["option"]: meta["help"] for _, meta in filter_fields()
              if meta["option"] not in ("--thread", "--agent")}
    commands = dict(_commands(typer.main.get_command(app)))
    found = {}
    for name, command in commands.items():
        for flag, help in shared.items():
            option = _option(command, flag)
            if option is not None:
                assert option.help.startswith(help), (name, flag)
                found.setdefault(flag, set()).add(name)
    assert set(found) == set(shared)
    assert found["--as-of"] >= {"search", "memories", "facts"}

"""``agent-memory copy SRC DST``, run in-process with typer's CliRunner on real files."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app
from agent_memory.datasets.locomo import load_locomo

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def source(locomo_store, tmp_path):
    path = tmp_path / "source.db"
    shutil.copy(locomo_store, path)
    return path


def test_copy_prints_counts_per_kind_and_a_rerun_copies_nothing(source, tmp_path, locomo_path):
    user = load_locomo(locomo_path)[0].sample_id
    dst = tmp_path / "dst.db"
    result = runner.invoke(app, ["copy", str(source), str(dst), "--user", user, "--batch", "50"])
    assert result.exit_code == 0, result.output
    assert "nothing re-embedded" in result.output
    assert "copying " + user in result.output  # the progress bar
    cells = [[c.strip() for c in line.strip("│").split("│")]
             for line in result.output.splitlines() if line.startswith("│")]
    rows = {kind: values for kind, *values in cells}
    assert set(rows) >= {"turn", "fact", "summary", "profile", "interaction", "total"}
    assert rows["turn"][1] == "0" and int(rows["turn"][0]) > 0
    assert "Job queue: " in result.output and "counter(s)" in result.output

    again = runner.invoke(app, ["copy", str(source), str(dst), "--user", user, "--json"])
    assert again.exit_code == 0, again.output
    report = json.loads(again.output.splitlines()[-1])
    assert report["copied"] == {} and (report["counters"], report["jobs"]) == (0, 0)
    assert report["unchanged"]["turn"] == int(rows["turn"][0]) and not report["reembedded"]

    rest = runner.invoke(app, ["copy", str(source), str(dst), "--all-users", "--json"])
    report = json.loads(rest.output.splitlines()[-1])
    assert len(report["users"]) == 2 and report["unchanged"]["turn"] == int(rows["turn"][0])
    assert report["copied"]["turn"] > 0  # only the second user's records were written

    search = runner.invoke(app, ["search", "support group", "--user", user, "--store", str(dst),
                                 "--json", "-k", "3"])
    assert search.exit_code == 0 and json.loads(search.output)


@pytest.mark.parametrize(("args", "error"), [
    (["SRC", "SRC", "--all-users"], "ConfigError: source and destination are the same store"),
    (["SRC", "redis://cache/0", "--all-users"], "ConfigError: unknown store spec"),
    (["SRC", "DST", "--user", "nobody"], "RecordNotFoundError: user(s) 'nobody'"),
    (["SRC", "DST"], "InvalidInputError: give --user (repeatable) or --all-users"),
    (["SRC", "DST", "--user", "x", "--all-users"], "InvalidInputError: give --user"),
    (["MISSING", "DST", "--all-users"], "NotAStoreError: the source holds no agent-memory"),
    (["SRC", "DST", "--all-users", "--embedder", "nope:model"], "ConfigError"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(source, tmp_path, args, error):
    names = {"SRC": str(source), "DST": str(tmp_path / "dst.db"),
             "MISSING": str(tmp_path / "missing.db")}
    before = source.read_bytes()
    result = runner.invoke(app, ["copy", *[names.get(a, a) for a in args]])
    assert result.exit_code == 2, result.output
    assert error in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "dst.db").exists() and not (tmp_path / "missing.db").exists()
    assert source.read_bytes() == before

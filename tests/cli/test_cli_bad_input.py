"""The CLI on bad input: one line ``error: <TypedError>: ...`` on stderr, exit code 2, no
traceback, and the store file unchanged (full ``iterdump`` compared)."""

from __future__ import annotations

import json
import sqlite3

import pytest
import typer
from typer.testing import CliRunner

from agent_memory.cli.app import HANDLES_ERRORS, app

runner = CliRunner()

ROWS = [
    {"user_id": "victim", "thread_id": "t1", "role": "user", "content": "I live in Lisbon."},
    {"user_id": "victim", "thread_id": "t1", "role": "user", "content": "My sister is a pilot."},
]


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # narrow: the error line must still be one line


def _dump(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    data, store = folder / "turns.jsonl", folder / "m.db"
    _jsonl(data, ROWS)
    result = runner.invoke(app, ["ingest", str(data), "--store", str(store)])
    assert result.exit_code == 0, result.output
    return store


def _bad(args, store, error):
    before = _dump(store)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {error}: "), result.stderr
    assert _dump(store) == before


CASES = [
    (["search", "Lisbon", "--user", "victim "], "InvalidScopeError"),
    (["search", "Lisbon", "--user", "victim\x1f"], "InvalidScopeError"),
    (["search", "Lisbon", "--user", " "], "MissingScopeError"),
    (["search", "Lisbon", "--user", "victim", "--thread", " t1"], "InvalidScopeError"),
    (["search", "Lisbon", "--user", "victim", "--kind", "memo"], "UnknownOptionError"),
    (["search", "Lis\ud800bon", "--user", "victim"], "InvalidTextError"),
    (["summary", "--user", "victim", "--thread", "t1 "], "InvalidScopeError"),
    (["profile", "--user", "victim\x00"], "InvalidScopeError"),
    (["recall", "Lisbon", "--user", "victim", "--strategy", "TOP"], "UnknownOptionError"),
    (["recall", "Lisbon", "--user", "victim ", "--json"], "InvalidScopeError"),
    (["forget", "--user", "victim ", "--yes"], "InvalidScopeError"),
    (["forget", "--user", "victim", "--thread", "t1\n", "--yes"], "InvalidScopeError"),
    (["forget", "--user", "victim", "--turns-older-than", "inf", "--yes"],
     "InvalidNumberError"),
    (["forget", "--user", "victim", "--turns-older-than", "nan", "--yes"],
     "InvalidNumberError"),
    (["forget", "--user", "victim", "--turns-older-than", "1e300", "--yes"],
     "InvalidTimeError"),
    (["history", "", "--user", "victim"], "InvalidInputError"),
    (["restore", "fact_1", "--user", "\tvictim"], "InvalidScopeError"),
    (["reconcile", "--user", "victim\x1f"], "InvalidScopeError"),
    (["context", "--user", "victim", "--session", "s\x00"], "InvalidScopeError"),
    (["ask", "where do I live?", "--user", "victim "], "InvalidScopeError"),
    (["reflect", "--user", "victim "], "InvalidScopeError"),
]


@pytest.mark.parametrize(("args", "error"), CASES, ids=[" ".join(map(repr, c[0][:4]))
                                                        for c in CASES])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(seeded, args, error):
    _bad([*args, "--store", str(seeded)], seeded, error)


@pytest.mark.parametrize("args", [
    ["recall", "Lisbon", "--user", "victim", "--relevance-alpha", "nan"],
    ["search", "Lisbon", "--user", "victim", "-k", "0"],
    ["search", "Lisbon", "--user", "victim", "-k", "1000000"],
    ["search", "Lisbon", "--user", "victim", "--mode", "semantic"],
])
def test_options_out_of_range_are_usage_errors(seeded, args):
    """Typer checks these before the command runs: a usage message, exit 2, no traceback."""
    before = _dump(seeded)
    result = runner.invoke(app, [*args, "--store", str(seeded)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value" in result.stderr
    assert _dump(seeded) == before


def test_ingest_is_all_or_nothing(seeded, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_MAX_CONTENT_CHARS", "40")
    good = [{"user_id": "newcomer", "thread_id": f"t{i}", "role": "user",
             "content": f"Line {i} fits."} for i in range(6)]
    for bad, error in (({"content": "x" * 41}, "ContentTooLargeError"),
                       ({"user_id": "victim "}, "InvalidScopeError"),
                       ({"content": "bad \\ud800"}, "InvalidTextError")):
        data = tmp_path / "turns.jsonl"
        _jsonl(data, [*good, {**good[0], "thread_id": "late", **bad}])
        if "\\ud800" in bad.get("content", ""):  # a lone surrogate escaped in the JSON text
            data.write_text(data.read_text().replace("\\\\ud800", "\\ud800"))
        _bad(["ingest", str(data), "--store", str(seeded)], seeded, error)


def test_every_command_has_the_error_handler():
    def commands(group: typer.Typer):
        for info in group.registered_commands:
            yield info.callback
        for sub in group.registered_groups:
            yield from commands(sub.typer_instance)

    found = list(commands(app))
    assert len(found) >= 17
    assert all(getattr(cb, HANDLES_ERRORS, False) for cb in found), [
        cb.__name__ for cb in found if not getattr(cb, HANDLES_ERRORS, False)]


def _locomo(path, session: list, date: str = "1:56 pm on 8 May, 2023") -> None:
    path.write_text(json.dumps([{"sample_id": "s1", "qa": [], "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": date,
        "session_1": session}}]))


def test_ingest_of_hostile_files_is_one_line_exit_2(seeded, tmp_path):
    """Times that overflow in UTC, turns that are not objects, numbers for times, deep JSON."""
    base = {"user_id": "victim", "thread_id": "t9", "role": "user", "content": "hi"}
    for bad, error in (({"created_at": "9999-12-31T23:59:59-01:00"}, "InvalidTimeError"),
                       ({"created_at": "0001-01-01T00:00:00+01:00"}, "InvalidTimeError"),
                       ({"created_at": 10**12}, "InvalidTimeError"),
                       ({"content": 5}, "InvalidTextError"),
                       ({"id": ""}, "InvalidInputError"),
                       ({"thread_id": "a/b"}, "InvalidScopeError")):
        data = tmp_path / "turns.jsonl"
        _jsonl(data, [{**base, **bad}])
        _bad(["ingest", str(data), "--store", str(seeded)], seeded, error)
    data = tmp_path / "nan.jsonl"
    data.write_text(json.dumps(base)[:-1] + ', "metadata": {"x": NaN}}\n')
    _bad(["ingest", str(data), "--store", str(seeded)], seeded, "InvalidNumberError")
    data.write_text("[" * 100_000 + "\n")
    _bad(["ingest", str(data), "--store", str(seeded)], seeded, "InvalidInputError")
    turns = [{"dia_id": f"D1:{i}", "speaker": "A", "text": "hi"} for i in range(1, 40)]
    data = tmp_path / "locomo.json"
    _locomo(data, turns, "11:59 pm on 31 December, 9999")
    _bad(["ingest", str(data), "-f", "locomo", "--store", str(seeded)], seeded,
         "InvalidTimeError")
    _locomo(data, ["a turn that is a string"])
    _bad(["ingest", str(data), "-f", "locomo", "--store", str(seeded)], seeded,
         "InvalidInputError")


@pytest.mark.parametrize("args", [
    ["search", "hello"], ["memories"], ["facts"], ["profile"], ["history", "fact_x"],
    ["ask", "where do I live?"], ["recall", "a trip"], ["context", "--session", "s1"],
    ["summary", "--thread", "t1"], ["restore", "fact_x"],
])
def test_a_command_that_needs_a_store_refuses_a_missing_one(tmp_path, args):
    """A mistyped ``--store`` (or a missing folder) is a StoreNotFoundError naming the path,
    exit 2, and no file or folder is made: not an empty result read as "no memories"; a path
    that cannot even be checked (a name too long) is a StoreError, also one line."""
    missing = tmp_path / "no" / "such.db"
    result = runner.invoke(app, [*args, "--user", "u1", "--store", str(missing)])
    assert result.exit_code == 2, result.output
    assert "StoreNotFoundError" in result.output and str(missing) in result.output
    assert not (tmp_path / "no").exists()
    result = runner.invoke(app, [*args, "--user", "u1", "--store", f"sqlite:{missing}"])
    assert result.exit_code == 2 and "StoreNotFoundError" in result.output
    result = runner.invoke(app, [*args, "--user", "u1", "--store", str(tmp_path / ("a" * 300))])
    assert result.exit_code == 2 and "StoreError" in result.output, result.output

"""The session commands (chat, context, reflect, ask) run in-process on a real store."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agent_memory.cli.app import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def test_chat_context_reflect_ask(tmp_path):
    store = str(tmp_path / "m.db")
    typed = ("I am 50 and I want to retire at 62.\nassistant: A good goal.\n/context\n"
             "I prefer monthly calls.\n/quit\n")
    result = runner.invoke(app, ["chat", "--user", "u1", "--session", "s1", "--store", store],
                           input=typed)
    assert result.exit_code == 0, result.output
    assert "### Recent turns\nuser: I am 50 and I want to retire at 62.\nassistant: A good goal." \
        in result.output

    result = runner.invoke(app, ["context", "--user", "u1", "--session", "s1", "--store", store])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("user: I prefer monthly calls.")

    result = runner.invoke(app, ["chat", "--user", "u1", "--session", "s1", "--store", store],
                           input="/end\n")
    assert result.exit_code == 0, result.output
    assert "reflection: insight" in result.output and "[financial_goals]" in result.output

    result = runner.invoke(app, ["reflect", "--user", "u1", "--store", store,
                                 "--profile-model", "no.such.module:Model"])
    assert result.exit_code == 2 and "ConfigError" in result.output
    result = runner.invoke(app, ["reflect", "--user", "u1", "--store", store])
    assert result.exit_code == 0, result.output
    assert "2 insights merged" in result.output

    result = runner.invoke(app, ["ask", "when does the user want to retire?", "--user", "u1",
                                 "--store", store])
    assert result.exit_code == 0, result.output
    assert "retire at 62" in result.output and "Sources:" in result.output

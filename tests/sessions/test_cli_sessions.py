"""The session commands (chat, context, reflect, ask) run in-process on a real store."""

from __future__ import annotations

import sys

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
    # the age, the retirement goal and the call preference ("The user is 50." had no keyword
    # of a category and was dropped before the profile field model placed it)
    assert "3 insights merged" in result.output and "The user is 50." in result.output

    result = runner.invoke(app, ["ask", "when does the user want to retire?", "--user", "u1",
                                 "--store", store])
    assert result.exit_code == 0, result.output
    assert "retire at 62" in result.output and "Sources:" in result.output


def test_a_session_keeps_what_the_user_says_about_themself(tmp_path):
    """A session's reflection keeps a self-introduction, an age and a job, which name no
    keyword of an insight category: the profile field model files them as demographics (the
    session kept 2 of the 5 facts below, and the name as "The user goes by Kofi.")."""
    store = str(tmp_path / "m.db")
    typed = ("I'm Kofi, I'm 52 and I teach chemistry in Accra.\n"
             "assistant: Have you thought about retiring early to Cape Coast?\n"
             "No, I plan to work until 65.\nMy wife Ama runs a bakery.\n/end\n/quit\n")
    result = runner.invoke(app, ["chat", "--user", "kofi", "--store", store], input=typed)
    assert result.exit_code == 0, result.output
    for insight in ("[demographics] The user's name is Kofi.", "[demographics] The user is 52.",
                    "[demographics] The user teaches chemistry in Accra.",
                    "The user plans to work until 65.", "The user's wife Ama runs a bakery."):
        assert insight in result.output, insight
    assert "Cape Coast" not in result.output.split("reflection:")[1]  # the assistant's idea


def test_a_profile_model_is_found_in_the_current_directory(tmp_path, monkeypatch):
    """``--profile-model module:Class`` imports from the current directory too, as the
    README's ``examples.financial_profile:FinancialClientProfile`` run from the repository
    root needs (an installed script does not put the directory on ``sys.path``); a module
    found nowhere is a ConfigError naming the spec."""
    from agent_memory.cli.sessions import load_profile_model
    from agent_memory.errors import ConfigError

    (tmp_path / "pets_profile.py").write_text(
        "from pydantic import BaseModel\n\n\nclass PetsProfile(BaseModel):\n"
        "    pets: list[str] = []\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "pets_profile", raising=False)
    assert load_profile_model("pets_profile:PetsProfile").__name__ == "PetsProfile"
    with pytest.raises(ConfigError, match="no_such_module"):
        load_profile_model("no_such_module:Profile")


def test_chat_refuses_a_bad_line_and_goes_on(tmp_path):
    """In ``chat`` an empty agent turn is reported and not stored, an unknown /command is
    refused (not stored as a turn), and the session goes on to store the next turn."""
    store = str(tmp_path / "m.db")
    typed = "assistant:\n/contxt\nI walk my dog every morning.\n/quit\n"
    result = runner.invoke(app, ["chat", "--user", "u1", "--session", "s1", "--store", store],
                           input=typed)
    assert result.exit_code == 0, result.output
    assert "not stored: EmptyContentError" in result.output
    assert "unknown command '/contxt'" in result.output
    result = runner.invoke(app, ["context", "--user", "u1", "--session", "s1", "--store", store])
    assert result.exit_code == 0, result.output
    assert "user: I walk my dog every morning." in result.output
    assert "contxt" not in result.output and "assistant:" not in result.output

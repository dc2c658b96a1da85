"""Session settings come from keyword arguments, the environment and a TOML file."""

from __future__ import annotations

import pytest

from agent_memory import Settings
from agent_memory.errors import ConfigError


def test_keyword_arguments_win(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_K_TURN_BUFFER", "8")
    settings = Settings.load(k_turn_buffer=6, n_active_turns=3)
    assert (settings.k_turn_buffer, settings.n_active_turns) == (6, 3)


def test_environment(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_K_TURN_BUFFER", "8")
    monkeypatch.setenv("AGENT_MEMORY_INSIGHT_CONFIDENCE_THRESHOLD", "0.9")
    monkeypatch.setenv("AGENT_MEMORY_INSIGHT_CATEGORIES", '["goals", "worries"]')
    settings = Settings.load()
    assert settings.k_turn_buffer == 8
    assert settings.insight_confidence_threshold == 0.9
    assert settings.insight_categories == ("goals", "worries")


def test_toml_file(tmp_path, monkeypatch):
    path = tmp_path / "agent-memory.toml"
    path.write_text(
        "k_turn_buffer = 12\nnum_recent_sessions_for_init = 4\n"
        "min_sessions_for_aggregation = 2\ninsight_categories = [\"a\", \"b\"]\n"
    )
    monkeypatch.setenv("AGENT_MEMORY_CONFIG", str(path))
    monkeypatch.setenv("AGENT_MEMORY_MIN_SESSIONS_FOR_AGGREGATION", "5")
    settings = Settings.load()
    assert settings.k_turn_buffer == 12
    assert settings.num_recent_sessions_for_init == 4
    assert settings.insight_categories == ("a", "b")
    assert settings.min_sessions_for_aggregation == 5  # the environment beats the file


def test_a_config_file_that_is_not_toml_is_named_in_the_error(tmp_path, monkeypatch):
    path = tmp_path / "agent-memory.toml"
    path.write_text("k_turn_buffer = = 3\n")
    monkeypatch.setenv("AGENT_MEMORY_CONFIG", str(path))
    with pytest.raises(ConfigError, match=f"cannot read config file {path}"):
        Settings.load()
    path.write_text("k_turn_buffer = 3\n")  # a bad environment value is not blamed on the file
    monkeypatch.setenv("AGENT_MEMORY_INSIGHT_CATEGORIES", "[bad")
    with pytest.raises(ConfigError) as caught:
        Settings.load()
    assert str(path) not in str(caught.value)


def test_defaults_are_the_seed_values(monkeypatch):
    monkeypatch.delenv("AGENT_MEMORY_CONFIG", raising=False)
    settings = Settings.load()
    assert (settings.k_turn_buffer, settings.n_active_turns,
            settings.num_recent_sessions_for_init, settings.top_k_facts) == (10, 5, 2, 5)
    assert settings.insight_confidence_threshold == 0.7
    assert settings.min_sessions_for_aggregation == 3
    assert "financial_goals" in settings.insight_categories


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"k_turn_buffer": 0}, "k_turn_buffer"),
        ({"insight_confidence_threshold": 1.5}, "insight_confidence_threshold"),
        ({"k_turn_buffer": 3, "n_active_turns": 5}, "n_active_turns"),
    ],
)
def test_bad_values_raise_config_error(overrides, field):
    with pytest.raises(ConfigError, match=field):
        Settings.load(**overrides)


def test_bad_environment_value(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_N_ACTIVE_TURNS", "many")
    with pytest.raises(ConfigError, match="n_active_turns"):
        Settings.load()

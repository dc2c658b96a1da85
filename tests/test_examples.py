"""The example scripts run offline on the embedded default and print what they show."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py") if p.name.startswith(("scenario_",
                                                                          "advisor_agent")))


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs_offline_and_again_on_the_same_store(script, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AZURE_OPENAI_"))}
    for _ in range(2):  # the second run finds its sessions stored and goes on
        result = subprocess.run([sys.executable, str(EXAMPLES / script), "--store",
                                 str(tmp_path / "example.db")], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=180, check=False)
        assert result.returncode == 0, result.stderr
        assert len(result.stdout.splitlines()) > 5


def _advisor():
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("advisor_agent", EXAMPLES / "advisor_agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_advisor_uses_the_real_model_when_configured(monkeypatch):
    from agent_framework.openai import OpenAIChatCompletionClient

    from agent_memory.integrations.local_chat import LocalChatClient

    advisor = _advisor()
    for name in ("AZURE_OPENAI_ENDPOINT", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(advisor.chat_client(), LocalChatClient)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # built, never called
    assert isinstance(advisor.chat_client(), OpenAIChatCompletionClient)
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://example-resource.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "test-key")
    assert isinstance(advisor.chat_client(), OpenAIChatCompletionClient)

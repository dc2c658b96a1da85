"""get_reasoner resolves spec strings; importing the package stays light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import agent_memory
from agent_memory.errors import ConfigError
from agent_memory.models import Turn
from agent_memory.reasoners import Reasoner, get_reasoner


def test_importing_reasoners_does_not_import_openai():
    src = str(Path(agent_memory.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    code = (
        "import sys, agent_memory.reasoners as r; "
        "assert callable(r.get_reasoner); "
        "print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_openai_spec(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    reasoner = get_reasoner("openai:gpt-4o-mini", api_key="sk-test", max_repairs=1)
    assert isinstance(reasoner, Reasoner)
    assert reasoner.name == "openai:gpt-4o-mini"
    assert reasoner.max_repairs == 1


def test_azure_spec():
    reasoner = get_reasoner(
        "Azure:mem-deploy", azure_endpoint="https://contoso.openai.azure.com", api_key="k"
    )
    assert reasoner.name == "azure:mem-deploy"


def test_compatible_spec_needs_base_url():
    with pytest.raises(ConfigError, match="base_url"):
        get_reasoner("compatible:llama3.1")
    reasoner = get_reasoner("compatible:llama3.1", base_url="http://localhost:11434/v1")
    assert reasoner.name == "compatible:llama3.1"


@pytest.mark.parametrize("spec", ["", "   ", "gpt-4o", "anthropic:claude", "openai:", "azure:",
                                  "extractive:v2"])
def test_unknown_or_incomplete_specs_are_config_errors(spec):
    with pytest.raises(ConfigError):
        get_reasoner(spec)


def test_unknown_option_is_a_config_error():
    with pytest.raises(ConfigError, match="bad option"):
        get_reasoner("openai:gpt-4o-mini", api_key="k", tempreature=0.2)


def test_missing_openai_key_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="cannot configure"):
        get_reasoner("openai:gpt-4o-mini")


def test_missing_azure_endpoint_is_a_config_error(monkeypatch):
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError):
        get_reasoner("azure:dep", api_key="k")


def test_extractive_spec():
    module = pytest.importorskip("agent_memory.reasoners.extractive")
    if not hasattr(module, "ExtractiveReasoner"):
        pytest.skip("agent_memory.reasoners.extractive does not define ExtractiveReasoner yet")
    from agent_memory.reasoners import ExtractiveReasoner

    reasoner = get_reasoner("extractive")
    assert isinstance(reasoner, ExtractiveReasoner)


async def test_factory_reasoner_runs_against_a_scripted_model():
    from agent_memory.reasoners import ScriptedChatModel

    chat = ScriptedChatModel([{"text": "Ana saves for a house.", "key_topics": ["savings"],
                               "evidence": ["a1"]}])
    reasoner = get_reasoner("openai:gpt-test", client=chat.async_client())
    turn = Turn(id="a1", user_id="u", thread_id="t", role="user", speaker="Ana",
                content="I'm saving for a house deposit.")
    draft = await reasoner.summarize_thread(None, [turn], max_tokens=40)
    assert draft.text == "Ana saves for a house." and draft.evidence == ["a1"]
    assert chat.requests[0]["model"] == "gpt-test"

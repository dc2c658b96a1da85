"""The Python examples of docs/langgraph.md and docs/openai-agents.md run as written, offline
(in a temporary directory, without OpenAI credentials), and print what they promise."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


def run(code: str, cwd: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_OPENAI_"))}
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_langgraph_page_examples(tmp_path):
    pytest.importorskip("langgraph.prebuilt")
    store, agent = blocks("langgraph.md")
    lines = run(store, tmp_path)
    assert lines[0].endswith("diet Alice is vegetarian and cooks a lot.")  # ranked first
    assert not any("Bob" in line for line in lines)
    assert lines[2] == "{'text': 'Alice has a beagle called Pixel.'}"
    assert lines[3] == "[('alice', 'memories')]"
    assert run(agent, tmp_path) == ["The user's beagle is called Pixel.",
                                    "Your dog is called Pixel."]


def test_openai_agents_page_examples(tmp_path):
    pytest.importorskip("agents")
    session, agent = blocks("openai-agents.md")
    assert run(session, tmp_path) == [
        "4 items", "{'role': 'assistant', 'content': 'Lisbon is lovely in spring.'}",
        "[{'type': 'function_call_output', 'call_id': 'call_1', 'output': 'Portugal'}]",
        "I'm moving to Lisbon in March.", "[]"]
    assert run(agent, tmp_path) == ["Your beagle is called Pixel.",
                                    "3 items of history in the second run's first call"]

"""The ``sh`` examples of docs/service.md run against the service (``$AM``, ``$KEY`` set to
its address and Alice's key) and succeed."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"
BLOCKS = re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_guide_has_runnable_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("script", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_guide_example_runs(served, script) -> None:
    env = {**os.environ, "AM": served.url, "KEY": served.secrets["alice"]}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr + result.stdout

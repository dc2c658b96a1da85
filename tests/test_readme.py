"""The README's Python examples run as written (in a temporary directory)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code, tmp_path):
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "each example prints what it shows"


def test_quickstart_prints_the_fact_it_promises(tmp_path):
    result = subprocess.run([sys.executable, "-c", BLOCKS[0]], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert "Pixel" in result.stdout.splitlines()[0]

"""The package's import structure: no runtime import cycle between its modules."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_runtime_import_cycle_between_modules() -> None:
    assert _checker().cycles(ROOT / "src" / "agent_memory") == []


def test_the_checker_finds_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import c\n"
        "def f():\n    from ..a import x\n")
    (package / "c.py").write_text("from .sub.b import f\n")
    assert _checker().cycles(package) == [["pkg.a", "pkg.sub.b"]]

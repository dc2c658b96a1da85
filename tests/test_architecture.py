"""The package's import structure: no runtime import cycle between its modules."""

from __future__ import annotations

import importlib.util
import inspect
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


def test_the_remote_client_works_without_the_service_extra() -> None:
    """``RemoteMemory`` (and its error mapping) imports and maps problems with FastAPI,
    Starlette, uvicorn and mcp all unimportable, as after ``pip install agent-memory``."""
    import subprocess
    import sys

    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"fastapi", "starlette", "uvicorn", "mcp"}:
            raise ImportError(f"{name} is not installed")
sys.meta_path.insert(0, Block())
from agent_memory.remote import RemoteMemory
from agent_memory.remote._http import problem_classes
from agent_memory.errors import ConflictError
remote = RemoteMemory("http://127.0.0.1:9", api_key="k")
assert problem_classes()["urn:agent-memory:problem:conflict"] is ConflictError
assert not any(m.split(".")[0] in {"fastapi", "starlette"} for m in sys.modules)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


def test_the_sync_facades_are_written_out_and_current() -> None:
    """``Memory`` and ``Remote`` carry one written-out method per public coroutine of their
    async client (scripts/gen_sync.py; nothing attached at import time), and they are current."""
    import subprocess
    import sys

    from agent_memory import AsyncMemory, Memory
    from agent_memory.remote import Remote, RemoteMemory

    for facade, client in ((Memory, AsyncMemory), (Remote, RemoteMemory)):
        for name in dir(client):
            if not name.startswith("_") and name not in ("connect", "close", "open") \
                    and inspect.iscoroutinefunction(getattr(client, name)):
                assert name in vars(facade), f"{facade.__name__}.{name} is not written out"
                assert inspect.signature(getattr(facade, name)) == inspect.signature(
                    getattr(client, name)), name
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_sync.py"), "--check"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr

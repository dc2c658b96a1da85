"""Find import cycles between the modules of ``agent_memory`` at run time.

Every ``import`` / ``from ... import`` statement counts, at module level or inside a function
(a lazy import still runs), except those under ``if TYPE_CHECKING:``. A package's
``__init__`` counts as the package module. Prints each strongly connected component of more
than one module and exits 1 when there is any.

Usage: ``python scripts/import_cycles.py [src/agent_memory]``
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """``src/agent_memory/stores/base.py`` -> ``agent_memory.stores.base``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The project modules ``name`` imports at run time."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (hit := resolve(alias.name)) is not None:
                    found.add(hit)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                stem = f"{base}.{node.module}" if node.module else base
            else:
                stem = node.module or ""
            for alias in node.names:
                hit = resolve(f"{stem}.{alias.name}") if f"{stem}.{alias.name}" in modules \
                    else resolve(stem)
                if hit is not None:
                    found.add(hit)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return found


def cycles(root: Path) -> list[list[str]]:
    """Strongly connected components (Tarjan) of more than one module, each sorted."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    graph = {m: imports_of(p, m, modules) for m, p in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for m in sorted(graph):
        if m not in index:
            strong(m)
    return out


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).parents[1] / "src" / "agent_memory")
    found = cycles(root.resolve())
    for comp in found:
        print(f"cycle of {len(comp)}: " + ", ".join(comp))
    print(f"{len(found)} import cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))

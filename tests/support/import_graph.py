"""Cove's modules and who imports whom, read from the source (every import: at the top of a
module, inside a function, under ``TYPE_CHECKING``): the circles between modules, and the imports
that run from a lower floor of the engine to a higher one (the floors are the layers contract in
pyproject.toml). import-linter checks the floors between packages; this counts between modules.

    python bench/import_graph.py           # a line a circle and an upward import; exit 1 if any
    python bench/import_graph.py --sizes   # lines per package of engine/ and app/, and the largest
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "app")


@dataclass(frozen=True, slots=True)
class Graph:
    files: dict[str, Path]  # module -> file
    edges: dict[str, set[str]]  # module -> modules it imports


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def read_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> Graph:
    files = {
        module_name(p, root): p
        for package in packages
        for p in sorted((root / package).rglob("*.py"))
    }
    edges = {m: _imports(m, p, files) for m, p in files.items()}
    return Graph(files, edges)


def _imports(module: str, path: Path, files: dict[str, Path]) -> set[str]:
    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # "from package import submodule" imports the submodule; else the module named.
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = known(name)
            if target is not None and target != module:
                found.add(target)
    return found


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph.edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph.files):
        if module not in index:
            visit(module)
    return found


def floors(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, int]:
    """engine's top-level packages and modules -> their floor (1 is the ground), from the layers
    contract whose container is ``engine``."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract.get("type") == "layers" and contract.get("containers") == ["engine"]:
            layers = contract["layers"]
            return {
                name.strip(): len(layers) - i
                for i, layer in enumerate(layers)
                for name in layer.replace(":", "|").split("|")
            }
    raise SystemExit("pyproject.toml has no layers contract for engine")


def upward(graph: Graph, floor_of: dict[str, int]) -> list[tuple[str, str]]:
    """Imports from a module of engine/ to one on a higher floor (or a sibling of its floor,
    where the floor's packages must be independent: not counted here, import-linter checks)."""

    def floor(module: str) -> int | None:
        parts = module.split(".")
        return floor_of.get(parts[1]) if len(parts) > 1 and parts[0] == "engine" else None

    found = []
    for source, targets in sorted(graph.edges.items()):
        low = floor(source)
        for target in sorted(targets):
            high = floor(target)
            if low is not None and high is not None and high > low:
                found.append((source, target))
    return found


def sizes(graph: Graph) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """Lines per package (a top-level module counts as its own) and per module, largest first."""
    per_package: dict[str, int] = {}
    per_module = []
    for module, path in graph.files.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        parts = module.split(".")
        is_package = path.name == "__init__.py" or len(parts) > 2
        key = ".".join(parts[:2]) if len(parts) > 1 else module
        if not is_package and len(parts) == 2:
            key = module
        per_package[key] = per_package.get(key, 0) + lines
        per_module.append((lines, module))
    return per_package, sorted(per_module, reverse=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", action="store_true", help="lines per package and module")
    args = parser.parse_args(argv)
    graph = read_graph()
    if args.sizes:
        per_package, per_module = sizes(graph)
        for name, lines in sorted(per_package.items()):
            print(f"{lines:6d}  {name}")
        print("largest modules:")
        for lines, module in per_module[:15]:
            print(f"{lines:6d}  {module}")
        return 0
    found_circles = circles(graph)
    found_upward = upward(graph, floors())
    for component in found_circles:
        print("circle:", " <-> ".join(component))
    for source, target in found_upward:
        print("upward:", source, "->", target)
    print(
        f"{len(graph.files)} modules, {sum(map(len, graph.edges.values()))} imports, "
        f"{len(found_circles)} circles, {len(found_upward)} upward imports"
    )
    return 1 if found_circles or found_upward else 0


if __name__ == "__main__":
    sys.exit(main())

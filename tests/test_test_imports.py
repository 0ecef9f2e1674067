"""Tests share helpers through modules made for sharing, never through each other: no module of
tests/ or bench/ imports a test module (a file named test_*.py), at its top or inside a function,
so that running or changing one test file never runs or breaks another's. The benches take from
tests/ only what tests/support/ holds, and the tests take nothing from bench/."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("tests", "bench")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """Every module name an import statement of ``path`` may load, with its line: ``import a.b``
    gives ``a.b``; ``from a import b`` gives ``a`` and ``a.b`` (``b`` may be a module), with a
    relative ``from`` resolved against the file's own package."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package.pop()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if module:
                yield node.lineno, module
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{module}.{alias.name}" if module else alias.name


def is_test_module(name: str, test_modules: set[str]) -> bool:
    return name in test_modules or any(part.startswith("test_") for part in name.split("."))


def sources(root: Path) -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.py"))


def imports_of_test_modules(root: Path) -> list[str]:
    """``file:line module`` for each import statement under tests/ and bench/ that loads a test
    module."""
    files = sources(root)
    test_modules = {module_name(p, root) for p in files if p.name.startswith("test_")}
    found: dict[tuple[str, int], str] = {}
    for path in files:
        for line, name in imported(path, root):
            if name.split(".")[0] in FOLDERS and is_test_module(name, test_modules):
                where = (path.relative_to(root).as_posix(), line)
                found[where] = min(found.get(where, name), name, key=len)
    return [f"{file}:{line} {name}" for (file, line), name in sorted(found.items())]


def test_no_module_of_tests_or_bench_imports_a_test_module() -> None:
    assert imports_of_test_modules(ROOT) == []


def test_bench_takes_from_tests_only_the_support_modules() -> None:
    taken = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for path in sorted((ROOT / "bench").rglob("*.py"))
        for line, name in imported(path, ROOT)
        if name.split(".")[0] == "tests"
        and name != "tests"
        and not name.startswith("tests.support.")
        and name != "tests.support"
    ]
    assert taken == []


def test_the_tests_take_nothing_from_bench() -> None:
    taken = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for line, name in imported(path, ROOT)
        if name.split(".")[0] == "bench"
    ]
    assert taken == []


def test_every_way_of_importing_a_test_module_is_found(tmp_path: Path) -> None:
    files = {
        "tests/__init__.py": "",
        "tests/engine/__init__.py": "",
        "tests/engine/test_a.py": "HELPER = 1\n",
        "tests/engine/helpers.py": "from tests.engine.test_a import HELPER\n",
        "tests/engine/test_b.py": "import tests.engine.test_a\n",
        "tests/engine/test_c.py": "def f() -> None:\n    from tests.engine import test_a\n",
        "tests/engine/test_d.py": "from .test_a import HELPER\nfrom . import test_a as a\n",
        "tests/engine/test_e.py": "from tests.engine.helpers import HELPER\nimport os\n",
        "bench/__init__.py": "",
        "bench/bench_x.py": "def g() -> None:\n    import tests.engine.test_a as a\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert imports_of_test_modules(tmp_path) == [
        "bench/bench_x.py:2 tests.engine.test_a",
        "tests/engine/helpers.py:1 tests.engine.test_a",
        "tests/engine/test_b.py:1 tests.engine.test_a",
        "tests/engine/test_c.py:2 tests.engine.test_a",
        "tests/engine/test_d.py:1 tests.engine.test_a",
        "tests/engine/test_d.py:2 tests.engine.test_a",
    ]

"""Every exception class of engine/ and app/ is defined in an error module, where a reader finds
them all and their codes stay unique; the modules that raise them import them from there."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ERROR_MODULES = {"engine/errors.py", "app/common/errors.py"}


def _base_names(node: ast.ClassDef) -> list[str]:
    names: list[str] = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def exception_classes() -> list[tuple[str, int, str]]:
    """(module, line, name) of every class that derives from an exception, followed through the
    classes of engine/ and app/ by name."""
    found: list[tuple[str, int, str, list[str]]] = []
    for package in ("engine", "app"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    found.append((name, node.lineno, node.name, _base_names(node)))
    exceptions = {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    grown = True
    while grown:
        grown = False
        for _, _, name, bases in found:
            if name not in exceptions and any(base in exceptions for base in bases):
                exceptions.add(name)
                grown = True
    return [(module, line, name) for module, line, name, _ in found if name in exceptions]


def test_exception_classes_live_in_the_error_modules() -> None:
    elsewhere = [
        f"{module}:{line} {name}"
        for module, line, name in exception_classes()
        if module not in ERROR_MODULES
    ]
    assert not elsewhere, "define these in engine/errors.py (or app/common/errors.py):\n" + (
        "\n".join(elsewhere)
    )


def test_the_walk_finds_the_error_module_classes() -> None:
    names = {name for module, _, name in exception_classes() if module == "engine/errors.py"}
    assert {"EngineError", "StoreError", "HistoryDamaged", "ArchiveError"} <= names

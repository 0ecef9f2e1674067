"""The window meets the engine at each package's public face: app/ imports ``engine.<package>``
(whose ``__init__`` names what the window may use) or one of the engine's single-module leaves
(``engine.errors``, ``engine.types``, ...), never a module inside a package. A package's inside
can then be rearranged without touching the window."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Packages whose own module runs measurements and probes, which reach the runtimes the window
# never imports: the window takes their plain values from these modules. Only ever fewer.
VALUE_MODULES = {"engine.hardware.report", "engine.tuning.idle", "engine.tuning.store"}


def deep_imports(root: Path) -> list[str]:
    """Each import of app/ that reaches inside an engine package, as ``path:line module``."""
    found = []
    for path in sorted((root / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("engine.") and name.count(".") > 1 and name not in VALUE_MODULES:
                    found.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {name}")
    return found


def test_the_window_imports_only_the_engine_s_faces() -> None:
    assert deep_imports(ROOT) == []


def test_a_deep_import_is_found_wherever_it_is(tmp_path: Path) -> None:
    (tmp_path / "app" / "chat").mkdir(parents=True)
    (tmp_path / "app" / "chat" / "view.py").write_text(
        "from engine.store import Store\n"
        "from engine.errors import EngineError\n"
        "import engine.hub.download\n"
        "def f() -> None:\n"
        "    from engine.store.types import Message\n"
    )
    assert deep_imports(tmp_path) == [
        "app/chat/view.py:3 engine.hub.download",
        "app/chat/view.py:5 engine.store.types",
    ]

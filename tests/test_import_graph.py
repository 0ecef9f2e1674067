"""The house keeps its floors between single modules too: no two modules of engine/ or app/ import
each other, directly or round a loop (import-linter checks between packages), and no module of
engine/ imports one on a higher floor. The counting script is bench/import_graph.py."""

from __future__ import annotations

from pathlib import Path

from tests.support.import_graph import Graph, circles, floors, read_graph, upward


def test_no_module_is_in_an_import_circle() -> None:
    assert circles(read_graph()) == []


def test_no_engine_module_imports_upward() -> None:
    assert upward(read_graph(), floors()) == []


def test_a_circle_and_an_upward_import_are_found(tmp_path: Path) -> None:
    files = {name: tmp_path / f"{name}.py" for name in ("engine.a", "engine.b", "engine.c")}
    graph = Graph(
        files,
        {"engine.a": {"engine.b"}, "engine.b": {"engine.c"}, "engine.c": {"engine.a"}},
    )
    assert circles(graph) == [["engine.a", "engine.b", "engine.c"]]
    graph = Graph(files, {"engine.a": {"engine.b"}, "engine.b": set(), "engine.c": set()})
    assert upward(graph, {"a": 1, "b": 2}) == [("engine.a", "engine.b")]
    assert upward(graph, {"a": 2, "b": 1}) == []

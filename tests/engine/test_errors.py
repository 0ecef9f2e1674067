"""Every error the engine raises has a code of its own: the code crosses the process boundary and
is what callers check."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import engine.host.http.guards
import engine.store  # noqa: F401  (defines StoreError)
from engine.client import protocol
from engine.errors import EngineError, InsufficientMemory


def every_error() -> list[type[EngineError]]:
    found: list[type[EngineError]] = []
    pending: list[type[EngineError]] = [EngineError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def test_every_error_has_its_own_code() -> None:
    classes = every_error()
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes)), sorted(codes)
    for cls in classes:
        assert "code" in vars(cls), f"{cls.__name__} inherits its code"
        assert protocol.error_class(cls.code) is cls


def test_an_error_body_comes_back_as_its_class() -> None:
    for cls in every_error():
        body = protocol.error_body("what to do", "server_error", cls.code)
        error = protocol.error_from(body["error"], 500)
        assert type(error) is cls and str(error) == "what to do"


def test_without_a_code_the_status_decides() -> None:
    assert isinstance(protocol.error_from({"message": "full"}, 507), InsufficientMemory)
    assert type(protocol.error_from("odd", 500)) is EngineError


def test_the_error_module_imports_nothing_of_the_engine() -> None:
    # Errors carry data: importing the modules that raise them (even for types only) is a circle.
    source = Path(str(sys.modules[EngineError.__module__].__file__)).read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name.split(".")[0] == "engine"], imported

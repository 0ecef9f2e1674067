"""Installed models: the starter, GGUF files and ONNX model folders in the models folder, and
files the user imported from elsewhere. Reads only file names and sizes, never model data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from engine.errors import ModelLoadError, ModelNotFound
from engine.gguf import describe_mix, read_gguf
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
    quantization: str = ""  # what the file says it is: Q4_K_M, IQ4_XS, ... (GGUF only)
    tensor_types: str = ""  # the mix behind it: "Q8_0 45 %, Q4_K 40 %, Q6_K 15 %"


def scan_models(folder: Path | None = None, imported: Iterable[str] = ()) -> list[ModelEntry]:
    """The starter, then models in ``folder`` (the models folder by default: GGUF files and ONNX
    model folders, one level deep, as downloads and imports lay them out), then imported paths that
    still exist. A path is listed once."""
    found: list[ModelEntry] = []
    seen: set[Path] = set()
    try:
        starter = starter_path()
        found.append(_gguf_entry(STARTER_NAME, STARTER_TITLE, starter, "starter"))
    except (ModelNotFound, OSError):
        pass
    else:
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
            return _gguf_entry(str(path), path.stem, path, source)
        if is_onnx_chat_folder(path):
            return ModelEntry(str(path), path.name, "ONNX", _folder_size(path), path, source)
    except OSError:
        return None
    return None


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _gguf_entry(model_id: str, name: str, path: Path, source: Source) -> ModelEntry:
    """A GGUF file's entry, with the quantization its header declares (read without the
    weights); a file whose header cannot be read is listed anyway, and its plan says why."""
    entry = ModelEntry(model_id, name, "GGUF", path.stat().st_size, path, source)
    try:
        info = read_gguf(path)
    except ModelLoadError:
        return entry
    mix = describe_mix(dict(info.tensor_types()))
    return replace(entry, quantization=info.quantization(), tensor_types=mix)

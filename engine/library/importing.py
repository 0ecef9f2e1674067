"""Import a model by copy: a GGUF file, or an ONNX model folder, copied into the models folder so
that it stays usable when the original moves (an external disk, a Downloads folder cleaned up).
The source is checked first (a malformed GGUF is refused before a byte is copied), free space
is checked, and the copy is renamed into place only once complete and flushed.

A GGUF with a vision projector beside it (``engine.formats.gguf.projector.find_projector``: same
folder, ``mmproj`` in its name, its output width the model's) brings the projector along, both into
a folder of their own (``imported/<model name>/``), where no other import's projector can be taken
for its; the projector is renamed into place before the model, so an imported model is whole once
its file is there."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InsufficientDisk, ModelLoadError, ModelNotFound
from engine.formats.gguf import read_gguf
from engine.formats.gguf.projector import is_projector
from engine.formats.onnx import is_onnx_chat_folder, read_onnx_model
from engine.library.layout import IMPORTED_FOLDER
from engine.library.projectors import projector_of
from engine.paths import models_dir
from engine.units import format_bytes

__all__ = ["IMPORTED_FOLDER", "Imported", "import_copy", "import_model"]

MARGIN = 256 << 20
CHUNK = 8 << 20

FreeSpace = Callable[[Path], int]


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import installed: the model, and the vision projector that came with it."""

    path: Path
    projector: Path | None = None
    projector_source: Path | None = None  # the file it was copied from


def import_copy(
    source: Path,
    models: Path | None = None,
    *,
    free_space: FreeSpace = lambda p: shutil.disk_usage(p).free,
) -> Path:
    """Copy ``source`` into ``<models>/imported/``; returns the installed path. An existing copy
    of the same name is refused rather than overwritten."""
    return import_model(source, models, free_space=free_space).path


def import_model(
    source: Path,
    models: Path | None = None,
    *,
    free_space: FreeSpace = lambda p: shutil.disk_usage(p).free,
) -> Imported:
    """``import_copy``, saying which projector (if any) came with the model."""
    source = source.expanduser()
    if not source.exists():
        raise ModelNotFound(f"No model at {source}.")
    projector: Path | None = None
    if source.is_dir():
        if not is_onnx_chat_folder(source):
            raise ModelLoadError(f"{source} is not a model folder (it has no genai_config.json).")
        read_onnx_model(source)
        files = [p for p in source.rglob("*") if p.is_file()]
    elif source.suffix.lower() == ".gguf":
        info = read_gguf(source)  # refuses a malformed file before anything is copied
        if is_projector(info):
            raise ModelLoadError(
                f"{source.name} is a vision projector, not a model. Import the model file beside "
                "it: its projector comes with it."
            )
        projector = projector_of(source)
        files = [source] if projector is None else [source, projector]
    else:
        raise ModelLoadError(f"{source.name} is neither a .gguf file nor an ONNX model folder.")
    imported = (models or models_dir()) / IMPORTED_FOLDER
    folder = imported if projector is None else imported / source.stem
    for earlier in (imported / source.name, imported / source.stem / source.name):
        if earlier.exists():
            raise ModelLoadError(f"A model named {source.name} was already imported ({earlier}).")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    projector_target = folder / projector.name if projector is not None else None
    need = sum(p.stat().st_size for p in files)
    free = free_space(folder)
    if need + MARGIN > free:
        raise InsufficientDisk(
            f"Copying {source.name} needs {format_bytes(need + MARGIN)} free on the models "
            f"folder's disk and {format_bytes(free)} is free. Free some space, or use the model "
            "where it is instead of copying it."
        )
    staging = folder / f".{source.name}.importing"
    staged_projector = folder / f".{projector.name if projector else ''}.importing"
    try:
        if source.is_dir():
            for path in files:
                _copy(path, staging / path.relative_to(source))
        else:
            _copy(source, staging)
        if projector is not None and projector_target is not None:
            _copy(projector, staged_projector)
            os.replace(staged_projector, projector_target)
        os.replace(staging, target)
    except BaseException:
        for leftover in (staging, staged_projector):
            with contextlib.suppress(OSError):
                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        if folder != imported:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return Imported(target, projector_target, projector)


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as fin, dst.open("wb") as fout:
        shutil.copyfileobj(fin, fout, CHUNK)
        fout.flush()
        os.fsync(fout.fileno())

"""Import a model by copy: a GGUF file, or an ONNX model folder, copied into the models folder so
that it stays usable when the original moves (an external disk, a Downloads folder cleaned up).
The source is checked first (a malformed GGUF is refused before a byte is copied), free space
is checked, and the copy is renamed into place only once complete and flushed."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from engine.errors import InsufficientDisk, ModelLoadError, ModelNotFound
from engine.gguf import read_gguf
from engine.onnx_model import is_onnx_chat_folder, read_onnx_model
from engine.paths import models_dir
from engine.units import format_bytes

IMPORTED_FOLDER = "imported"
MARGIN = 256 << 20
CHUNK = 8 << 20


def import_copy(
    source: Path,
    models: Path | None = None,
    *,
    free_space: Callable[[Path], int] = lambda p: shutil.disk_usage(p).free,
) -> Path:
    """Copy ``source`` into ``<models>/imported/``; returns the installed path. An existing copy
    of the same name is refused rather than overwritten."""
    source = source.expanduser()
    if not source.exists():
        raise ModelNotFound(f"No model at {source}.")
    if source.is_dir():
        if not is_onnx_chat_folder(source):
            raise ModelLoadError(f"{source} is not a model folder (it has no genai_config.json).")
        read_onnx_model(source)
        files = [p for p in source.rglob("*") if p.is_file()]
    elif source.suffix.lower() == ".gguf":
        read_gguf(source)  # refuses a malformed file before anything is copied
        files = [source]
    else:
        raise ModelLoadError(f"{source.name} is neither a .gguf file nor an ONNX model folder.")
    folder = (models or models_dir()) / IMPORTED_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    if target.exists():
        raise ModelLoadError(f"A model named {source.name} was already imported ({target}).")
    need = sum(p.stat().st_size for p in files)
    free = free_space(folder)
    if need + MARGIN > free:
        raise InsufficientDisk(
            f"Copying {source.name} needs {format_bytes(need + MARGIN)} free on the models "
            f"folder's disk and {format_bytes(free)} is free. Free some space, or use the model "
            "where it is instead of copying it."
        )
    staging = folder / f".{source.name}.importing"
    try:
        if source.is_dir():
            for path in files:
                _copy(path, staging / path.relative_to(source))
        else:
            _copy(source, staging)
        os.replace(staging, target)
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging) if staging.is_dir() else staging.unlink()
        raise
    return target


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as fin, dst.open("wb") as fout:
        shutil.copyfileobj(fin, fout, CHUNK)
        fout.flush()
        os.fsync(fout.fileno())

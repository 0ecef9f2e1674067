"""Installed models: the starter, GGUF files and ONNX model folders in the models folder (downloads
sit in one folder per repository), and files the user imported from elsewhere. Reads only file
names, sizes and GGUF headers, never model data. A vision model is a GGUF with its projector
(``mmproj``) beside it: the projector is not listed as a model of its own, and goes when the last
model using it is deleted. Deleting is limited to the models folder and refused while a process
has the model loaded."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from engine.errors import ModelInUse, ModelLoadError, ModelNotFound
from engine.formats.gguf import describe_mix, read_gguf
from engine.formats.onnx import is_onnx_chat_folder, onnx_chat_template
from engine.formats.thinking_switch import switches_thinking
from engine.library.in_use import processes_using
from engine.library.layout import IMPORTED_FOLDER, find_installed, repo_of_folder
from engine.library.names import STARTER_NAME, starter_path
from engine.library.partial import disk_usage, list_partials, remove_partial
from engine.library.projectors import listed_as_model, projector_of, remove_unused
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
    repo: str | None = None  # the hub repository it was downloaded from
    projector: Path | None = None  # the vision projector the engine loads with it (GGUF only)
    # Its chat template can turn its thinking off (engine/formats/thinking_switch.py).
    thinking_switch: bool = False

    @property
    def vision(self) -> bool:
        """It reads images: its projector is beside it."""
        return self.projector is not None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "model": f"{self.repo}/{self.path.name}" if self.repo else self.name,
            "format": self.kind,
            "size_bytes": self.size_bytes,
            "path": str(self.path),
            "source": self.source,
            "repo": self.repo,
            "quantization": self.quantization,
            "vision": self.vision,
            "thinking_switch": self.thinking_switch,
            "projector": str(self.projector) if self.projector else None,
        }


def scan_models(folder: Path | None = None, imported: Iterable[str] = ()) -> list[ModelEntry]:
    """The starter, then models in ``folder`` (the models folder by default: GGUF files and ONNX
    model folders, one level deep, as downloads and imports lay them out), then imported paths that
    still exist. A path is listed once."""
    found: list[ModelEntry] = []
    seen: set[Path] = set()
    try:
        starter = starter_path()
        entry = _gguf_entry(STARTER_NAME, STARTER_TITLE, starter, "starter")
    except (ModelNotFound, OSError):
        pass
    else:
        if entry is not None:
            found.append(entry)
        seen.add(starter.absolute())
    folder = folder if folder is not None else models_dir()
    candidates: list[tuple[Path, Source]] = []
    if folder.is_dir():
        for child in sorted(folder.iterdir(), key=lambda p: p.name.lower()):
            candidates.append((child, "folder"))
            if child.is_dir() and not is_onnx_chat_folder(child):
                candidates += [(p, "folder") for p in sorted(child.glob("*.gguf"))]
                if child.name == IMPORTED_FOLDER:  # imported vision models, each in its folder
                    candidates += [(p, "folder") for p in sorted(child.glob("*/*.gguf"))]
                candidates += [
                    (p, "folder") for p in sorted(child.iterdir()) if is_onnx_chat_folder(p)
                ]
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
            repo = repo_of_folder(path.parent) if source == "folder" else None
            return _gguf_entry(str(path), path.stem, path, source, repo)
        if is_onnx_chat_folder(path):
            repo = repo_of_folder(path.parent) if source == "folder" else None
            name = f"{path.name}" if repo is None else f"{repo.split('/')[1]} {path.name}"
            size = _folder_size(path)
            switch = switches_thinking(onnx_chat_template(path))
            return ModelEntry(
                str(path), name, "ONNX", size, path, source, repo=repo, thinking_switch=switch
            )
    except OSError:
        return None
    return None


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _gguf_entry(
    model_id: str, name: str, path: Path, source: Source, repo: str | None = None
) -> ModelEntry | None:
    """A GGUF file's entry, with the quantization its header declares (read without the
    weights) and the projector beside it; a file whose header cannot be read is listed anyway,
    and its plan says why. None for a vision projector: it is part of a model, not one."""
    entry = ModelEntry(model_id, name, "GGUF", path.stat().st_size, path, source, repo=repo)
    try:
        info = read_gguf(path)
    except ModelLoadError:
        return entry if listed_as_model(path, None) else None
    if not listed_as_model(path, info):
        return None
    mix = describe_mix(dict(info.tensor_types()))
    try:
        width: int | None = info.embedding_length
    except ModelLoadError:
        width = None
    projector = projector_of(path, width) if width is not None else None
    return replace(
        entry,
        quantization=info.quantization(),
        tensor_types=mix,
        projector=projector,
        thinking_switch=switches_thinking(info.chat_template),
    )


@dataclass(frozen=True, slots=True)
class Removed:
    path: Path
    freed_bytes: int
    partial: bool  # a partial download was discarded, not an installed model
    projector: Path | None = None  # the vision projector deleted with the model

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "freed_bytes": self.freed_bytes,
            "partial": self.partial,
            "projector": str(self.projector) if self.projector else None,
        }


def remove_model(
    name: str,
    folder: Path | None = None,
    *,
    in_use: Callable[[Path], list[int]] = processes_using,
) -> Removed:
    """Delete a model from the models folder (by any name ``cove models`` shows), or discard a
    partial download of that name. Refuses the starter, files outside the models folder, and a
    model some process has loaded."""
    folder = folder if folder is not None else models_dir()
    if name == STARTER_NAME:
        raise ModelNotFound("The starter model ships with Cove and cannot be deleted.")
    path = find_installed(folder, name)
    if path is None:
        candidate = Path(name).expanduser()
        if candidate.exists():
            path = candidate
    if path is None:
        for partial in list_partials(folder):
            if name in (f"{partial.repo}/{partial.file}", partial.target.name, partial.target.stem):
                return Removed(partial.target, remove_partial(partial.target), partial=True)
        raise ModelNotFound(f"No downloaded model named {name!r}. 'cove models' lists them.")
    root = folder.resolve()
    resolved = path.resolve()
    if root not in resolved.parents:
        raise ModelNotFound(
            f"{path} is not in Cove's models folder ({folder}); Cove only deletes models it "
            "downloaded. Delete the file yourself if you no longer want it."
        )
    users = in_use(resolved)
    if users:
        pids = ", ".join(str(p) for p in users)
        raise ModelInUse(
            f"{path.name} is loaded (process {pids}). Unload it or switch to another model, "
            "then delete it."
        )
    projector: Path | None = None
    if resolved.is_dir():
        freed = sum(disk_usage(p) for p in resolved.rglob("*") if p.is_file())
        shutil.rmtree(resolved)
    else:
        projector = projector_of(resolved)
        freed = disk_usage(resolved)
        resolved.unlink()
        # Its projector goes with it, unless another model beside it still uses it.
        freed += remove_unused(projector, besides=resolved)
        projector = projector if projector is not None and not projector.exists() else None
    if resolved.parent != root:
        with contextlib.suppress(OSError):
            resolved.parent.rmdir()  # the repository's (or imported model's) folder, once empty
    return Removed(path, freed, partial=False, projector=projector)

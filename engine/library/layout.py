"""Where a downloaded file lives in the models folder: ``<owner>__<repo>/<file>``, one folder per
repository, so the library scan finds it and ``owner/repo/FILE`` or the file's stem names it.

A partial download sits beside its target as ``<file>.part`` (the bytes, at their final offsets) and
``<file>.part.json`` (which parts are done); both are on the same file system as the target, so
the finished file is installed by an atomic rename.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import HubNotFound

REPO_SEPARATOR = "__"
# Copies of models imported from elsewhere; a vision model and its projector in a folder of their
# own inside it (``imported/<model name>/``).
IMPORTED_FOLDER = "imported"
PART_SUFFIX = ".part"
STATE_SUFFIX = ".part.json"


def repo_folder(models: Path, repo: str) -> Path:
    owner, _, name = repo.partition("/")
    return models / f"{owner}{REPO_SEPARATOR}{name}"


def repo_of_folder(folder: Path) -> str | None:
    """``owner/repo`` for a download folder's name, None for any other folder."""
    owner, sep, name = folder.name.partition(REPO_SEPARATOR)
    return f"{owner}/{name}" if sep and owner and name else None


def target_path(models: Path, repo: str, file: str) -> Path:
    """The installed file's path. Folders inside the repository become part of the name, so one
    repository is one flat folder; nothing can climb out of it."""
    parts = [p for p in file.split("/") if p]
    if not parts or any(p in (".", "..") or "\\" in p for p in parts):
        raise HubNotFound(f"{file!r} is not a file name Cove can install.")
    return repo_folder(models, repo) / REPO_SEPARATOR.join(parts)


def dest_path(models: Path, dest: str) -> Path:
    """A file of a model folder: ``dest`` is relative to the models folder and stays inside it."""
    parts = [p for p in dest.split("/") if p]
    if len(parts) < 2 or any(p in (".", "..") or "\\" in p for p in parts):
        raise HubNotFound(f"{dest!r} is not a place Cove can install a file.")
    return models.joinpath(*parts)


def build_folder_name(folder: str) -> str:
    """The installed folder of a repository's subfolder build: ``cpu/int4`` -> ``cpu__int4``."""
    return REPO_SEPARATOR.join(p for p in folder.split("/") if p) or "model"


def partial_path(target: Path) -> Path:
    return target.with_name(target.name + PART_SUFFIX)


def state_path(target: Path) -> Path:
    return target.with_name(target.name + STATE_SUFFIX)


def find_installed(models: Path, name: str) -> Path | None:
    """A downloaded model by the names ``cove pull`` prints: ``owner/repo/FILE``, ``owner/repo``
    (when it holds one GGUF model, its projector aside), the file's name or its stem. None when
    nothing matches; ``ModelNotFound`` when a short name matches several files."""
    from engine.errors import ModelNotFound

    pieces = name.strip("/").split("/")
    if len(pieces) >= 3:
        try:
            path = target_path(models, "/".join(pieces[:2]), "/".join(pieces[2:]))
        except HubNotFound:
            return None
        return path if path.is_file() or (path / "genai_config.json").is_file() else None
    if len(pieces) == 2:  # a vision model's projector beside it is not a second model
        found = sorted(repo_folder(models, name).glob("*.gguf"))
        files = [p for p in found if "mmproj" not in p.name.lower()]
        return files[0] if len(files) == 1 else None
    if not models.is_dir():
        return None
    matches = [
        p
        for p in sorted(models.glob("*/*.gguf"))
        + sorted(models.glob(f"{IMPORTED_FOLDER}/*/*.gguf"))
        + sorted(models.glob("*.gguf"))
        if name in (p.name, p.stem) and p.is_file()
    ]
    if len(matches) > 1:
        names = ", ".join(_display_name(models, p) for p in matches)
        raise ModelNotFound(f"{name!r} names several models: {names}. Give the full name.")
    return matches[0] if matches else None


def _display_name(models: Path, path: Path) -> str:
    repo = repo_of_folder(path.parent) if path.parent != models else None
    return f"{repo}/{path.name}" if repo else path.name

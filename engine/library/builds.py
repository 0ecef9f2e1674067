"""A catalog build on disk: which files it downloads, where they go, and whether it is installed.

- GGUF: one file in the repository's folder, as any pull (``layout.target_path``); a vision
  build's projector (``mmproj-….gguf``) beside it in the same folder, fetched in the same download
  before the model, so that the model's file is there only once both are;
- ONNX (onnxruntime-genai): the repository's subfolder becomes a model folder of its own,
  ``<owner>__<repo>/<folder>/``; ``genai_config.json``, which makes the folder a model, comes last,
  so a folder whose download stopped half way is never taken for a model;
- encoders (embedding, reranking): their files side by side in the repository's folder, the
  ``.onnx`` graph last.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.formats.onnx import CONFIG, is_onnx_chat_folder
from engine.hub.api import RemoteFile
from engine.hub.download import DownloadRequest
from engine.library.catalog import Catalog, CatalogModel, Variant
from engine.library.layout import build_folder_name, repo_folder, target_path


def install_path(models: Path, variant: Variant) -> Path:
    """The installed file (GGUF) or folder (ONNX builds) of ``variant``."""
    if variant.format == "gguf":
        return target_path(models, variant.repo, str(variant.file))
    if variant.format == "onnx":
        return repo_folder(models, variant.repo) / build_folder_name(str(variant.folder))
    return repo_folder(models, variant.repo)


def projector_path(models: Path, variant: Variant) -> Path | None:
    """Where a vision build's projector is installed: beside its model."""
    if variant.projector is None:
        return None
    return target_path(models, variant.repo, variant.projector)


def is_installed(models: Path, variant: Variant) -> bool:
    """Every file of the build is there (a vision build: its projector too)."""
    path = install_path(models, variant)
    if variant.format == "gguf":
        projector = projector_path(models, variant)
        return path.is_file() and (projector is None or projector.is_file())
    if variant.format == "onnx":
        return is_onnx_chat_folder(path)
    return all((path / installed_name(p)).is_file() for p in variant.files)


def installed_build(models: Path, model: CatalogModel) -> Variant | None:
    """The catalog model's first installed build."""
    return next((v for v in model.variants if is_installed(models, v)), None)


def resolve_catalog_name(models: Path, name: str, catalog: Catalog) -> Path | None:
    """A catalog id (``qwen2.5-7b-instruct``) as a model to load: its installed build, else a
    build whose model file is there without its projector (it chats, without images)."""
    model = catalog.get(name)
    if model is None or model.kind != "chat":
        return None
    variant = installed_build(models, model)
    if variant is not None:
        return install_path(models, variant)
    files = (install_path(models, v) for v in model.variants if v.format == "gguf")
    return next((p for p in files if p.is_file()), None)


def requests_for(variant: Variant, files: tuple[RemoteFile, ...]) -> list[DownloadRequest]:
    """What to download for ``variant``, given the hub's listing of its files, in order."""
    if variant.format == "gguf":
        return _gguf_requests(variant, files)
    owner, _, name = variant.repo.partition("/")
    base = f"{owner}__{name}"
    if variant.format == "onnx":
        base += "/" + build_folder_name(str(variant.folder))
        last = CONFIG
    else:
        last = ".onnx"
    ordered = sorted(files, key=lambda f: (f.path.endswith(last), f.path))
    rename = installed_name if variant.format == "onnx-encoder" else _basename
    return [_request(f, dest=f"{base}/{rename(f.path)}") for f in ordered]


def _gguf_requests(variant: Variant, files: tuple[RemoteFile, ...]) -> list[DownloadRequest]:
    """A GGUF build is one download: its model file, with a vision build's projector (from the
    listing, with its SHA-256) fetched and verified in the same download."""
    projector = next((f for f in files if f.path == variant.projector), None)
    models = [f for f in files if f is not projector]
    if projector is None:
        return [_request(f) for f in models]
    return [
        replace(_request(f), projector=projector.path, projector_sha256=projector.sha256)
        for f in models
    ]


def _request(f: RemoteFile, dest: str | None = None) -> DownloadRequest:
    """The download of a listed file, with what it is checked against: its LFS SHA-256, or for a
    file kept in git itself its blob SHA-1 (so the listing is not asked again)."""
    blob = f.blob_oid if f.sha256 is None else None
    return DownloadRequest(f.repo, f.path, f.revision, f.sha256, dest=dest, blob_oid=blob)


def installed_name(path: str) -> str:
    """An encoder file's name in its installed folder. sentence-transformers keeps its pooling
    settings in ``1_Pooling/config.json``, beside a ``config.json`` of the model's own: it is
    installed as ``pooling_config.json``, where ``engine/documents/embeddings.py`` reads it."""
    if path.endswith("1_Pooling/config.json"):
        return "pooling_config.json"
    return _basename(path)


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def resume_request(repo: str, file: str, catalog: Catalog | None = None) -> DownloadRequest:
    """The download that finishes a partial file: for the model or the projector of a catalog
    vision build, the build's one download of both; otherwise the file alone."""
    for model in catalog.models if catalog is not None else ():
        for v in model.variants:
            if v.repo == repo and v.projector is not None and file in (v.file, v.projector):
                return DownloadRequest(repo, str(v.file), projector=v.projector)
    return DownloadRequest(repo, file)

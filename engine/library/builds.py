"""A catalog build on disk: where its files go, and whether it is installed (what to download,
in what order, is ``engine/hub/requests.py``).

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

from pathlib import Path

from engine.formats.onnx import is_onnx_chat_folder
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


def installed_name(path: str) -> str:
    """An encoder file's name in its installed folder. sentence-transformers keeps its pooling
    settings in ``1_Pooling/config.json``, beside a ``config.json`` of the model's own: it is
    installed as ``pooling_config.json``, where ``engine/documents/embeddings.py`` reads it."""
    if path.endswith("1_Pooling/config.json"):
        return "pooling_config.json"
    return basename(path)


def basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]

"""What to download for a catalog build, in what order, and what a partial file's download
finishes. Where each file goes, and whether a build is installed, is ``engine/library/builds.py``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.formats.onnx import CONFIG
from engine.hub.api import RemoteFile
from engine.hub.download import DownloadRequest
from engine.library.builds import basename, installed_name
from engine.library.catalog import Catalog, Variant
from engine.library.layout import build_folder_name


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
    rename = installed_name if variant.format == "onnx-encoder" else basename
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


def resume_request(repo: str, file: str, catalog: Catalog | None = None) -> DownloadRequest:
    """The download that finishes a partial file: for the model or the projector of a catalog
    vision build, the build's one download of both; otherwise the file alone."""
    for model in catalog.models if catalog is not None else ():
        for v in model.variants:
            if v.repo == repo and v.projector is not None and file in (v.file, v.projector):
                return DownloadRequest(repo, str(v.file), projector=v.projector)
    return DownloadRequest(repo, file)

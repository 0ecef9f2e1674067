"""From what the user names in ``cove pull`` to files on the hub: a catalog id picks the build
recommended for this machine (``engine/advice/recommend.py``) or the quant asked for;
``owner/repo/FILE`` is taken as is; ``owner/repo`` picks its Q4_K_M GGUF (or the quant asked for),
else the largest one the planner says fits this machine, read by its remote header before any
weight is fetched, with the vision projector the repository ships (if any) in the same download."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.errors import EngineError, HubNotFound, InsufficientMemory
from engine.hub.api import Hub, RemoteFile, check_repo
from engine.hub.download import DownloadRequest
from engine.hub.gguf_names import projector_for, quant_of, single_ggufs
from engine.hub.meta import ListingCache
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.library.catalog import CatalogModel
    from engine.planner.plan import Resources

DEFAULT_QUANT = "Q4_K_M"


def choose_file(
    hub: Hub,
    model: str,
    quant: str | None = None,
    *,
    revision: str = "main",
    resources: Resources | None = None,
) -> DownloadRequest:
    pieces = model.strip("/").split("/")
    if len(pieces) < 2:
        raise HubNotFound(
            f"Unknown model {model!r}: it is not in the catalog ('cove search {model}' looks for "
            "it). Name a Hugging Face repository as owner/repo, or one file as owner/repo/FILE."
        )
    repo = check_repo("/".join(pieces[:2]))
    if len(pieces) > 2:
        file = "/".join(pieces[2:])
        if quant and quant_of(file) not in (None, quant.upper()):
            raise HubNotFound(f"{file} is not a {quant.upper()} file; drop --quant or the file.")
        return DownloadRequest(repo, file, revision)
    listed = hub.list_files(repo, revision)
    candidates = single_ggufs(listed)
    if not candidates:
        from engine.hub.search import onnx_folders

        builds = list(onnx_folders(listed))
        if builds:
            names = ", ".join(f"{repo}/{b}" for b in builds if b)
            raise HubNotFound(
                f"{repo} holds onnxruntime-genai builds, not a GGUF file; pull one by its "
                f"folder: {names}."
            )
        raise HubNotFound(
            f"{repo} has no single-file GGUF model. Cove downloads GGUF files and "
            "onnxruntime-genai folders; split (sharded) GGUF files are not supported yet."
        )
    wanted = (quant or DEFAULT_QUANT).upper()
    matching = [f for f in candidates if quant_of(f.path) == wanted]
    if matching:
        return _with_projector(_request(min(matching, key=lambda f: f.path)), listed)
    if quant:
        have = sorted({q for f in candidates if (q := quant_of(f.path))})
        raise HubNotFound(f"{repo} has no {wanted} file. It has: {', '.join(have) or 'none'}.")
    chosen = _largest_that_fits(hub, candidates, revision, resources)
    return _with_projector(_request(chosen), listed)


def _with_projector(request: DownloadRequest, listed: list[RemoteFile]) -> DownloadRequest:
    """A repository that ships a vision projector: it comes with the model, in one download."""
    projector = projector_for(request.file, listed)
    if projector is None:
        return request
    return replace(request, projector=projector.path, projector_sha256=projector.sha256)


def _largest_that_fits(
    hub: Hub, candidates: list[RemoteFile], revision: str, resources: Resources | None
) -> RemoteFile:
    from engine.advice.remote_gguf import plan_remote
    from engine.backends.loader import current_resources

    resources = resources or current_resources()
    for item in sorted(candidates, key=lambda f: f.size, reverse=True):
        _header, plan = plan_remote(
            hub, item.repo, item.path, revision=revision, resources=resources
        )
        if plan.loadable:
            return item
    smallest = min(candidates, key=lambda f: f.size)
    raise InsufficientMemory(
        f"No GGUF file of {smallest.repo} fits in this machine's free memory (the smallest, "
        f"{smallest.path}, is {format_bytes(smallest.size)}). Close other programs or pick a "
        "smaller model."
    )


def _request(item: RemoteFile) -> DownloadRequest:
    return DownloadRequest(item.repo, item.path, item.revision, item.sha256)


@dataclass(frozen=True, slots=True)
class PullPlan:
    """What ``cove pull MODEL`` fetches: the files (in order) and, for a catalog model, which
    build was chosen and why."""

    name: str
    requests: tuple[DownloadRequest, ...]
    catalog_id: str | None = None
    variant: str | None = None
    reason: str | None = None


def plan_pull(
    hub: Hub,
    model: str,
    quant: str | None = None,
    *,
    report: HardwareReport | None = None,
    cache: ListingCache | None = None,
) -> PullPlan:
    """``model`` as a catalog id (its recommended build, or the one ``quant`` names: a GGUF
    quant or an ONNX target); as ``owner/repo/FOLDER`` (or ``owner/repo``) holding an
    onnxruntime-genai build; else as ``owner/repo[/FILE]`` (``choose_file``)."""
    from engine.library.catalog import load_catalog

    entry = load_catalog().get(model)
    if entry is None:
        pieces = model.strip("/").split("/")
        if len(pieces) > 2 and not pieces[-1].lower().endswith(".gguf"):
            folder = onnx_folder_pull(hub, check_repo("/".join(pieces[:2])), "/".join(pieces[2:]))
            if folder is not None:
                return folder
        try:
            request = choose_file(hub, model, quant)
        except HubNotFound:
            root = onnx_folder_pull(hub, model.strip("/"), "") if len(pieces) == 2 else None
            if root is None:
                raise
            return root
        return PullPlan(request.name, (request,))
    return _catalog_pull(hub, entry, quant, report, cache or ListingCache())


def _catalog_pull(
    hub: Hub,
    entry: CatalogModel,
    quant: str | None,
    report: HardwareReport | None,
    cache: ListingCache,
) -> PullPlan:
    from engine.advice.recommend import recommend
    from engine.hardware import probe_hardware
    from engine.hub.meta import build_files, fetch_listings
    from engine.hub.requests import requests_for

    listings, problems = fetch_listings(hub, {v.repo for v in entry.variants}, cache, refresh=True)
    if quant:
        variant = entry.variant(quant)
        if variant is None:
            have = ", ".join(v.label.removeprefix("ONNX ") for v in entry.variants)
            raise HubNotFound(f"{entry.id} has no {quant} build. It has: {have}.")
        reason = None
    else:
        rec = recommend(entry, report or probe_hardware(), listings)
        if rec.choice is None:
            raise InsufficientMemory(f"{entry.name}: {rec.reason}")
        variant, reason = rec.choice.variant, rec.reason
    build = build_files(entry, variant, listings.get(variant.repo))
    if not build.files:
        problem = next((p for p in problems if p.repo == variant.repo), None)
        if problem is not None:
            raise error_class(problem.code)(problem.message)
        raise HubNotFound(build.missing or f"{variant.key} is not on the hub.")
    requests = tuple(requests_for(variant, build.files))
    return PullPlan(variant.key, requests, entry.id, variant.key, reason)


def onnx_folder_pull(hub: Hub, repo: str, folder: str) -> PullPlan | None:
    """``owner/repo/FOLDER`` naming an onnxruntime-genai build (a folder with genai_config.json):
    all its files, the config last; None when the path is not such a folder."""
    from engine.hub.requests import requests_for
    from engine.library.catalog import Variant

    folder = folder.strip("/")
    prefix = f"{folder}/" if folder else ""
    files = tuple(
        f
        for f in hub.list_files(repo)
        if f.path.startswith(prefix) and "/" not in f.path[len(prefix) :]
    )
    if not any(f.path == f"{prefix}genai_config.json" for f in files):
        return None
    variant = Variant("onnx", repo, folder=folder)
    return PullPlan(variant.key, tuple(requests_for(variant, files)), variant=variant.key)


def error_class(code: str) -> type[EngineError]:
    from engine.client import protocol

    return protocol.error_class(code) or EngineError

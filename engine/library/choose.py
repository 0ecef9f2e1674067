"""From what the user names in ``cove pull`` to one file on the hub: ``owner/repo/FILE`` as is;
``owner/repo`` picks its Q4_K_M GGUF (or the quant asked for), else the largest one the planner
says fits this machine, read by its remote header before any weight is fetched."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.errors import HubNotFound, InsufficientMemory
from engine.library.download import DownloadRequest
from engine.library.hub import Hub, RemoteFile, check_repo
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.planner import Resources

DEFAULT_QUANT = "Q4_K_M"
_QUANT = re.compile(r"^(I?Q\d+(_[A-Z0-9]+)*|B?F16|F32|MXFP4|TQ\d_\d)$", re.IGNORECASE)
_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.IGNORECASE)


def quant_of(file: str) -> str | None:
    """The quantisation a GGUF file's name declares (``...-Q4_K_M.gguf`` -> ``Q4_K_M``)."""
    stem = file.rsplit("/", 1)[-1]
    stem = stem[: -len(".gguf")] if stem.lower().endswith(".gguf") else stem
    for token in reversed(re.split(r"[.\-]", stem)):
        if _QUANT.match(token):
            return token.upper()
    return None


def single_ggufs(files: list[RemoteFile]) -> list[RemoteFile]:
    """GGUF files that are a whole model: not split shards, not vision projectors."""
    return [
        f
        for f in files
        if f.path.lower().endswith(".gguf")
        and not _SHARD.search(f.path)
        and "mmproj" not in f.path.lower()
    ]


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
            f"Unknown model {model!r}: there is no catalog of model names in this version. Name "
            "a Hugging Face repository as owner/repo, or one file as owner/repo/FILE."
        )
    repo = check_repo("/".join(pieces[:2]))
    if len(pieces) > 2:
        file = "/".join(pieces[2:])
        if quant and quant_of(file) not in (None, quant.upper()):
            raise HubNotFound(f"{file} is not a {quant.upper()} file; drop --quant or the file.")
        return DownloadRequest(repo, file, revision)
    candidates = single_ggufs(hub.list_files(repo, revision))
    if not candidates:
        raise HubNotFound(
            f"{repo} has no single-file GGUF model. Cove downloads GGUF files; split (sharded) "
            "GGUF files are not supported yet."
        )
    wanted = (quant or DEFAULT_QUANT).upper()
    matching = [f for f in candidates if quant_of(f.path) == wanted]
    if matching:
        return _request(min(matching, key=lambda f: f.path))
    if quant:
        have = sorted({q for f in candidates if (q := quant_of(f.path))})
        raise HubNotFound(f"{repo} has no {wanted} file. It has: {', '.join(have) or 'none'}.")
    return _request(_largest_that_fits(hub, candidates, revision, resources))


def _largest_that_fits(
    hub: Hub, candidates: list[RemoteFile], revision: str, resources: Resources | None
) -> RemoteFile:
    from engine.library.remote_gguf import plan_remote
    from engine.loader import current_resources

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

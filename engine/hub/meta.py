"""What the hub says about the catalog's repositories (every file's size and LFS SHA-256), fetched
when the user browses and kept in the cache folder, so that sizes, fit and verification work the
next time without a network.

One JSON file, rewritten atomically; a damaged cache is ignored, never an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from engine.errors import EngineError, NetworkUnavailable
from engine.hub.api import Hub, RemoteFile
from engine.library.catalog import CatalogModel, Variant
from engine.paths import cache_dir

CACHE_FILENAME = "hub-listings.json"
MAX_PARALLEL = 8


@dataclass(frozen=True, slots=True)
class Listing:
    repo: str
    revision: str
    fetched_at: float
    files: tuple[RemoteFile, ...]


@dataclass(frozen=True, slots=True)
class RepoProblem:
    """Why a repository has no listing: it needs a token, it is gone, the network is down."""

    repo: str
    code: str
    message: str


class ListingCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / CACHE_FILENAME
        self._lock = threading.Lock()
        self._data: dict[str, Listing] | None = None

    def _load(self) -> dict[str, Listing]:
        if self._data is not None:
            return self._data
        data: dict[str, Listing] = {}
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            for key, item in raw.items():
                files = tuple(
                    RemoteFile(item["repo"], str(p), item["revision"], int(size), sha or None)
                    for p, size, sha in item["files"]
                )
                data[key] = Listing(item["repo"], item["revision"], float(item["at"]), files)
        self._data = data
        return data

    def get(self, repo: str, revision: str = "main") -> Listing | None:
        with self._lock:
            return self._load().get(f"{repo}@{revision}")

    def put(self, listings: Iterable[Listing]) -> None:
        """Keep ``listings`` (replacing older ones of the same repositories); one write."""
        with self._lock:
            data = self._load()
            for listing in listings:
                data[f"{listing.repo}@{listing.revision}"] = listing
            raw = {
                key: {
                    "repo": item.repo,
                    "revision": item.revision,
                    "at": item.fetched_at,
                    "files": [[f.path, f.size, f.sha256] for f in item.files],
                }
                for key, item in data.items()
            }
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            try:
                tmp.write_text(json.dumps(raw), encoding="utf-8")
                os.replace(tmp, self.path)
            except OSError:  # a cache that cannot be written is only a slower next time
                with contextlib.suppress(OSError):
                    tmp.unlink()


def fetch_listings(
    hub: Hub | None, repos: Iterable[str], cache: ListingCache, *, refresh: bool = False
) -> tuple[dict[str, Listing], list[RepoProblem]]:
    """The listing of each repository: the cached one unless ``refresh`` (or none is cached),
    else the hub's, fetched in parallel. Without a hub (offline) only the cache answers. A
    repository the hub refuses is reported, not raised; so is a network that is down (once)."""
    found: dict[str, Listing] = {}
    wanted: list[str] = []
    for repo in dict.fromkeys(repos):
        cached = cache.get(repo)
        if cached is not None and not refresh:
            found[repo] = cached
        else:
            wanted.append(repo)
            if cached is not None:
                found[repo] = cached  # kept if the hub cannot be asked
    problems: list[RepoProblem] = []
    if hub is None or not wanted:
        return found, problems

    def one(repo: str) -> Listing | RepoProblem:
        try:
            files = tuple(hub.list_files(repo))
        except EngineError as exc:  # gated, missing, no network: said, not raised
            return RepoProblem(repo, exc.code, str(exc))
        return Listing(repo, "main", time.time(), files)

    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(wanted))) as pool:
        results = list(pool.map(one, wanted))
    offline = False
    fetched = [r for r in results if isinstance(r, Listing)]
    if fetched:
        cache.put(fetched)
    for result in results:
        if isinstance(result, Listing):
            found[result.repo] = result
        elif result.code == NetworkUnavailable.code:
            if not offline:
                problems.append(result)
            offline = True
        else:
            problems.append(result)
    return found, problems


@dataclass(frozen=True, slots=True)
class BuildFiles:
    """The files one build downloads (a vision build's projector first, its model last), with
    their total size: the hub's when ``exact``, else the estimate from the parameter count.
    ``missing`` says why the hub's listing lacks the build."""

    variant: Variant
    files: tuple[RemoteFile, ...]
    size_bytes: int
    exact: bool
    missing: str | None = None


def build_files(model: CatalogModel, variant: Variant, listing: Listing | None) -> BuildFiles:
    estimate = variant.estimated_bytes(model.params_b)
    if listing is None:
        return BuildFiles(variant, (), estimate, exact=False)
    by_path = {f.path: f for f in listing.files}
    files: tuple[RemoteFile, ...]
    if variant.format == "gguf":
        item = by_path.get(str(variant.file))
        files = (item,) if item is not None else ()
        if item is not None and variant.projector is not None:
            projector = by_path.get(variant.projector)
            if projector is None:
                missing = (
                    f"{variant.repo} no longer has the vision projector of this build "
                    f"({variant.projector})."
                )
                return BuildFiles(variant, (), estimate, exact=False, missing=missing)
            files = (projector, item)
    elif variant.format == "onnx":
        prefix = f"{variant.folder}/" if variant.folder else ""
        files = tuple(
            f
            for f in listing.files
            if f.path.startswith(prefix) and "/" not in f.path[len(prefix) :]
        )
        if not any(f.path.endswith("genai_config.json") for f in files):
            files = ()
    else:
        chosen = [by_path.get(p) for p in variant.files]
        files = tuple(f for f in chosen if f is not None) if all(chosen) else ()
    if not files:
        missing = f"{variant.repo} no longer has this build ({variant.key})."
        return BuildFiles(variant, (), estimate, exact=False, missing=missing)
    return BuildFiles(variant, files, sum(f.size for f in files), exact=True)

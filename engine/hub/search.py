"""Search the hub for models Cove can run: GGUF repositories and onnxruntime-genai builds, through
huggingface_hub's ``HfApi`` (its HTTP client made by Cove: the same endpoint, token, proxies,
timeouts and CA bundle as every other hub request), then each hit's files with their sizes.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError, HubAuthRequired
from engine.hub.api import Hub, HubConfig, RemoteFile, network_error, ssl_context
from engine.hub.gguf_names import quant_of, single_ggufs

DEFAULT_LIMIT = 12
MAX_PARALLEL = 8
# What a hit's card shows; "siblings" lists the files without sizes (the tree API has those).
EXPAND = ["downloads", "likes", "gated", "lastModified", "tags", "siblings"]


@dataclass(frozen=True, slots=True)
class HubHit:
    repo: str
    downloads: int
    likes: int
    gated: bool
    format: str  # "gguf" / "onnx"
    files: tuple[RemoteFile, ...] = ()  # GGUF files with sizes, or the ONNX builds' configs
    problem: str | None = None  # why its files could not be listed


def search_hub(
    config: HubConfig, query: str, *, limit: int = DEFAULT_LIMIT, hub: Hub | None = None
) -> list[HubHit]:
    """The hub's best matches for ``query`` that are GGUF or onnxruntime-genai repositories, most
    downloaded first, each with its files listed (in parallel, through ``hub``)."""
    if hub is None:
        with Hub(config) as own:
            return search_hub(config, query, limit=limit, hub=own)
    _reachable(hub)
    ranked = _search(config, query, limit)
    with ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL, len(ranked)))) as pool:
        return list(pool.map(lambda h: _with_files(hub, h), ranked))


def _search(config: HubConfig, query: str, limit: int) -> list[HubHit]:
    from huggingface_hub import HfApi

    _use_cove_client(config)
    api = HfApi(endpoint=config.endpoint, token=config.token or False)
    hits: dict[str, HubHit] = {}
    for tag, fmt in (("gguf", "gguf"), ("onnx", "onnx")):
        found = _call(config, functools.partial(_list, api, query, tag, limit))
        for info in found:
            siblings = [s.rfilename for s in info.siblings or []]
            if fmt == "onnx" and not any(p.endswith("genai_config.json") for p in siblings):
                continue
            if info.id not in hits:
                hits[info.id] = HubHit(
                    repo=info.id,
                    downloads=int(info.downloads or 0),
                    likes=int(info.likes or 0),
                    gated=bool(info.gated),
                    format=fmt,
                )
    return sorted(hits.values(), key=lambda h: h.downloads, reverse=True)[:limit]


def _reachable(hub: Hub) -> None:
    """One quick request on Cove's own client first: huggingface_hub retries a failed connection
    for about 20 s, which is right for a flaky link and wrong for no network, a refused
    connection or an untrusted certificate, which are said at once."""
    import httpx

    url = f"{hub.config.endpoint}/api/models"
    try:
        hub.client.head(url, params={"limit": 1}, headers=hub.auth_headers(url))
    except httpx.TransportError as exc:
        raise network_error(exc, hub.config.endpoint) from None


def _list(api: Any, query: str, tag: str, limit: int) -> list[Any]:
    found = api.list_models(search=query, filter=tag, sort="downloads", limit=limit, expand=EXPAND)
    return list(found)


def _with_files(hub: Hub, hit: HubHit) -> HubHit:
    from dataclasses import replace

    try:
        files = hub.list_files(hit.repo)
    except EngineError as exc:
        return replace(hit, problem=str(exc))
    if hit.format == "gguf":
        chosen = sorted(single_ggufs(files), key=lambda f: f.size)
    else:
        folders = onnx_folders(files)
        chosen = [
            f for f in files if (f.path.rsplit("/", 1)[0] if "/" in f.path else "") in folders
        ]
    return replace(hit, files=tuple(chosen))


def onnx_folders(files: list[RemoteFile] | tuple[RemoteFile, ...]) -> dict[str, int]:
    """The repository's onnxruntime-genai builds: each folder holding a genai_config.json, with
    the total size of its files ("" is the repository's root)."""
    folders = {_folder(f.path) for f in files if f.path.endswith("genai_config.json")}
    sizes = dict.fromkeys(sorted(folders), 0)
    for f in files:
        if _folder(f.path) in sizes:
            sizes[_folder(f.path)] += f.size
    return sizes


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def gguf_quant(file: RemoteFile) -> str:
    return quant_of(file.path) or "?"


def _call(config: HubConfig, fn: Callable[[], list[Any]]) -> list[Any]:
    """``fn``'s result, huggingface_hub's errors turned into Cove's."""
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    try:
        return fn()
    except (GatedRepoError, RepositoryNotFoundError) as exc:
        raise HubAuthRequired(f"The hub refused the search: {exc}") from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        raise EngineError(
            f"{config.endpoint} answered the search with HTTP {status}. Try again later."
        ) from None
    except OSError as exc:  # includes the HTTP client's transport errors wrapped by the OS
        raise network_error(exc, config.endpoint) from None
    except Exception as exc:
        if _is_transport_error(exc):
            raise network_error(exc, config.endpoint) from None
        raise


def _http_module() -> Any:
    """The HTTP package huggingface_hub is built on (``httpx``, or its fork ``httpx2``)."""
    from huggingface_hub.utils import _http as hf_http

    for name in ("httpx2", "httpx"):
        module = getattr(hf_http, name, None)
        if module is not None:
            return module
    return importlib.import_module("httpx")


def _is_transport_error(exc: BaseException) -> bool:
    return isinstance(exc, _http_module().TransportError)


_configured: HubConfig | None = None


def _use_cove_client(config: HubConfig) -> None:
    """Make huggingface_hub's shared client Cove's: system proxies, certificate verification
    always on (with the CA bundle setting), bounded timeouts, no redirect off the hub."""
    global _configured
    if _configured == config:
        return
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import logging as hf_logging
    from huggingface_hub.utils._http import hf_request_event_hook

    http = _http_module()
    verify = ssl_context(config)  # the same trust as every other request to the hub

    def factory() -> Any:
        return http.Client(
            verify=verify,
            trust_env=True,
            follow_redirects=False,
            timeout=http.Timeout(
                connect=config.connect_timeout_s, read=config.read_timeout_s, write=10, pool=10
            ),
            event_hooks={"request": [hf_request_event_hook]},
        )

    set_client_factory(factory)
    hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]  # retry notices
    _configured = config

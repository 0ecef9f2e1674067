"""The Hugging Face Hub as Cove talks to it: where it is (``HF_ENDPOINT``, a mirror), who asks
(``HF_TOKEN`` or the token setting), how (system proxies, TLS always verified, a custom CA bundle
for corporate proxies), and what it says about a repository's files.

Speaks the hub's plain HTTP API, the same one ``huggingface_hub`` uses: ``/api/models/{repo}/tree/
{revision}`` for file sizes and LFS SHA-256s, ``/{repo}/resolve/{revision}/{file}`` for the bytes
(a HEAD answers with ``X-Linked-Etag`` / ``X-Linked-Size`` and a redirect to the CDN), and the
``X-Error-Code`` header to tell a gated repo from a missing one. This package is the only part of
Cove that opens network connections, and only when the user asks for something on the hub.
"""

from __future__ import annotations

import json
import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

import httpx

from engine.errors import (
    DownloadError,
    EngineError,
    HubAuthRequired,
    HubNotFound,
    NetworkUnavailable,
)
from engine.paths import data_dir

DEFAULT_ENDPOINT = "https://huggingface.co"
SETTINGS_FILENAME = "hub.json"
USER_AGENT = "cove/0.1"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass(frozen=True, slots=True)
class HubSettings:
    """What the user set in Cove (``hub.json`` in the data folder); empty means "not set"."""

    token: str | None = None
    endpoint: str | None = None
    ca_bundle: str | None = None

    @classmethod
    def load(cls, path: Path | None = None) -> HubSettings:
        path = path or data_dir() / SETTINGS_FILENAME
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(raw, dict):
            return cls()

        def text(key: str) -> str | None:
            value = raw.get(key)
            return value.strip() or None if isinstance(value, str) else None

        return cls(token=text("token"), endpoint=text("endpoint"), ca_bundle=text("ca_bundle"))

    def save(self, path: Path | None = None) -> Path:
        """Write the settings (readable by the user alone: the token is a secret), atomically."""
        path = path or data_dir() / SETTINGS_FILENAME
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"token": self.token, "endpoint": self.endpoint, "ca_bundle": self.ca_bundle}
        tmp = path.with_name(f".{path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({k: v for k, v in data.items() if v}, f, indent=2)
        os.replace(tmp, path)
        return path


@dataclass(frozen=True, slots=True)
class HubConfig:
    endpoint: str = DEFAULT_ENDPOINT
    token: str | None = None
    ca_bundle: Path | None = None
    connect_timeout_s: float = 10.0
    # No byte for this long on an open transfer counts as a stall: the part is restarted.
    read_timeout_s: float = 30.0

    @classmethod
    def resolve(
        cls, settings: HubSettings | None = None, environ: Mapping[str, str] | None = None
    ) -> HubConfig:
        """``HF_ENDPOINT`` and ``HF_TOKEN`` win over the settings, as in huggingface_hub; the CA
        bundle comes from the settings (``SSL_CERT_FILE`` is honoured by the TLS layer itself)."""
        env = os.environ if environ is None else environ
        settings = settings if settings is not None else HubSettings.load()
        endpoint = env.get("HF_ENDPOINT") or settings.endpoint or DEFAULT_ENDPOINT
        token = env.get("HF_TOKEN") or settings.token
        ca = Path(settings.ca_bundle).expanduser() if settings.ca_bundle else None
        return cls(endpoint=endpoint.rstrip("/"), token=token or None, ca_bundle=ca)


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """One file of a repository, as the tree API lists it."""

    repo: str
    path: str
    revision: str
    size: int
    sha256: str | None  # LFS files only
    blob_oid: str | None = None  # the git blob's SHA-1, for files kept in git itself


@dataclass(frozen=True, slots=True)
class ResolvedFile:
    """Where a file's bytes are, after the hub's redirect, and what they must hash to."""

    url: str  # the CDN location (or the resolve URL when the hub serves the bytes itself)
    size: int
    sha256: str | None
    etag: str | None
    commit: str | None
    accepts_ranges: bool


def check_repo(repo: str) -> str:
    if not _REPO.match(repo):
        raise HubNotFound(f"{repo!r} is not a repository name. Give it as owner/name.")
    return repo


def ssl_context(config: HubConfig) -> ssl.SSLContext:
    """Certificate verification always on: the custom CA bundle when set, else what httpx trusts
    (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, or certifi's bundle)."""
    if config.ca_bundle is not None:
        if not config.ca_bundle.is_file():
            raise NetworkUnavailable(
                f"The CA bundle {config.ca_bundle} does not exist. Fix the CA bundle setting."
            )
        return ssl.create_default_context(cafile=str(config.ca_bundle))
    return httpx.create_ssl_context(verify=True, trust_env=True)


def make_client(
    config: HubConfig, *, max_connections: int = 16, verify: ssl.SSLContext | None = None
) -> httpx.Client:
    """One HTTP client: system proxies (``trust_env``), certificate verification always on, a
    custom CA bundle when set, redirects followed by hand (so the token never leaves the hub)."""
    verify = verify or ssl_context(config)
    timeout = httpx.Timeout(
        connect=config.connect_timeout_s,
        read=config.read_timeout_s,
        write=config.read_timeout_s,
        pool=None,
    )
    limits = httpx.Limits(
        max_connections=max_connections, max_keepalive_connections=max_connections
    )
    return httpx.Client(
        verify=verify,
        trust_env=True,
        timeout=timeout,
        limits=limits,
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
    )


class Hub:
    """The hub's API for one configuration. Not thread-safe for configuration changes; the HTTP
    client itself is shared by the download threads."""

    def __init__(self, config: HubConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        # Also for the downloads' own connections (``engine.hub.socket_body``); None when the
        # caller brought its own client, whose settings those connections could not follow.
        self.ssl_context: ssl.SSLContext | None = None
        if client is None:
            self.ssl_context = ssl_context(config)
            client = make_client(config, verify=self.ssl_context)
        self.client = client

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Hub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def auth_headers(self, url: str) -> dict[str, str]:
        """The token goes only to the hub itself, never to a CDN or another host."""
        if self.config.token and _same_origin(url, self.config.endpoint):
            return {"Authorization": f"Bearer {self.config.token}"}
        return {}

    def resolve_url(self, repo: str, path: str, revision: str = "main") -> str:
        return (
            f"{self.config.endpoint}/{check_repo(repo)}/resolve/"
            f"{quote(revision, safe='')}/{quote(path)}"
        )

    def list_files(self, repo: str, revision: str = "main") -> list[RemoteFile]:
        """Every file of the repository with its size and LFS SHA-256 (the tree API, following its
        pagination)."""
        url: str | None = (
            f"{self.config.endpoint}/api/models/{check_repo(repo)}/tree/"
            f"{quote(revision, safe='')}?recursive=true"
        )
        files: list[RemoteFile] = []
        while url is not None:
            response = self._request("GET", url, what=f"the file list of {repo}", repo=repo)
            try:
                entries = response.json()
            except ValueError:
                raise DownloadError(
                    f"{self.config.endpoint} answered the file list of {repo} with something "
                    "that is not JSON. Check HF_ENDPOINT."
                ) from None
            for entry in entries if isinstance(entries, list) else []:
                item = _remote_file(repo, revision, entry)
                if item is not None:
                    files.append(item)
            url = _next_link(response, url)
        return files

    def resolve(self, repo: str, path: str, revision: str = "main") -> ResolvedFile:
        """HEAD the resolve URL, following same-host redirects (renamed repos) but not the one to
        the CDN, whose address is returned with the linked ETag (the SHA-256 for LFS files)."""
        url = self.resolve_url(repo, path, revision)
        what = f"{repo}/{path}"
        for _ in range(5):
            response = self._request("HEAD", url, what=what, repo=repo, path=path)
            location = response.headers.get("Location")
            if response.is_redirect and location:
                target = urljoin(url, location)
                if _same_origin(target, url) and not response.headers.get("X-Linked-Etag"):
                    url = target
                    continue
                return _resolved(response, target)
            return _resolved(response, url)
        raise DownloadError(f"{what}: too many redirects from {self.config.endpoint}.")

    def _request(
        self,
        method: str,
        url: str,
        *,
        what: str,
        repo: str,
        path: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        from engine.hub.retry import Backoff, retry_after_s

        backoff = Backoff()
        attempt = 0
        while True:
            try:
                response = self.client.request(
                    method, url, headers={**self.auth_headers(url), **(headers or {})}
                )
            except httpx.TransportError as exc:
                raise network_error(exc, self.config.endpoint) from None
            if response.status_code in (429, 500, 502, 503, 504) and attempt < backoff.attempts:
                delay = backoff.delay(attempt, retry_after_s(response.headers))
                attempt += 1
                response.close()
                backoff.sleep(delay)
                continue
            raise_for_status(response, what=what, repo=repo, path=path, token=self.config.token)
            return response


def raise_for_status(
    response: httpx.Response, *, what: str, repo: str, path: str | None, token: str | None
) -> None:
    """The hub's error answers as typed errors that say what to do."""
    status = response.status_code
    if status < 400:
        return
    code = response.headers.get("X-Error-Code", "")
    if code == "GatedRepo" or (status in (401, 403) and code not in ("RepoNotFound",)):
        if token:
            raise HubAuthRequired(
                f"{repo} is gated or private and your token has no access to it. Accept its "
                f"terms on the model page, or use a token with read access to it."
            )
        raise HubAuthRequired(
            f"{repo} is gated or private: it needs a Hugging Face token. Set HF_TOKEN (or the "
            "token setting) to a token with read access, after accepting the model's terms."
        )
    if code == "RepoNotFound" or (status == 401 and code != "EntryNotFound"):
        hint = "" if token else " If it is private or gated, set HF_TOKEN (or the token setting)."
        raise HubNotFound(f"No repository {repo} on the hub. Check the name.{hint}")
    if status == 404:
        if code == "RevisionNotFound":
            raise HubNotFound(f"{repo} has no such revision. Check the revision name.")
        if path is not None:
            raise HubNotFound(f"{repo} has no file {path}.")
        raise HubNotFound(f"No repository {repo} on the hub. Check the name.")
    if status == 416:
        raise DownloadError(f"{what}: the server refused the byte range (the file changed?).")
    raise DownloadError(
        f"{what}: the hub answered HTTP {status}. Try again later; a partial download resumes."
    )


def network_error(exc: BaseException, endpoint: str) -> EngineError:
    """A transport failure before any byte of the answer (no network, DNS, proxy, TLS), from
    httpx or from the HTTP client huggingface_hub uses, in words."""
    reason = str(exc) or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY" in reason:
        return NetworkUnavailable(
            f"The TLS certificate of {endpoint} could not be verified ({reason}). Behind a "
            "corporate proxy, set the CA bundle setting (or SSL_CERT_FILE) to its certificate."
        )
    if isinstance(exc, httpx.ProxyError):
        return NetworkUnavailable(f"The proxy refused the connection ({reason}). Check it.")
    return NetworkUnavailable(
        f"Cannot reach {endpoint} ({reason}). Check your network connection, proxy settings "
        "or HF_ENDPOINT; models already downloaded keep working offline."
    )


def normalize_etag(value: str | None) -> str | None:
    if not value:
        return None
    value = value.strip()
    if value.startswith("W/"):
        value = value[2:]
    return value.strip('"') or None


def sha256_from_etag(etag: str | None) -> str | None:
    """An LFS file's linked ETag is its SHA-256; a git blob's is a SHA-1, which is not."""
    return etag.lower() if etag and _SHA256.match(etag.lower()) else None


def _resolved(response: httpx.Response, url: str) -> ResolvedFile:
    headers = response.headers
    etag = normalize_etag(headers.get("X-Linked-Etag") or headers.get("ETag"))
    size_text = headers.get("X-Linked-Size") or (
        None if response.is_redirect else headers.get("Content-Length")
    )
    try:
        size = int(size_text) if size_text is not None else -1
    except ValueError:
        size = -1
    ranges = response.is_redirect or headers.get("Accept-Ranges", "").lower() == "bytes"
    return ResolvedFile(
        url=url,
        size=size,
        sha256=sha256_from_etag(etag),
        etag=etag,
        commit=headers.get("X-Repo-Commit"),
        accepts_ranges=ranges,
    )


def _remote_file(repo: str, revision: str, entry: Any) -> RemoteFile | None:
    if not isinstance(entry, dict) or entry.get("type", "file") != "file":
        return None
    path, size = entry.get("path") or entry.get("rfilename"), entry.get("size")
    if not isinstance(path, str) or not isinstance(size, int):
        return None
    lfs = entry.get("lfs")
    sha = None
    if isinstance(lfs, dict):
        oid = lfs.get("oid") or lfs.get("sha256")
        sha = sha256_from_etag(oid if isinstance(oid, str) else None)
        if isinstance(lfs.get("size"), int):
            size = lfs["size"]
    oid = entry.get("oid") if not isinstance(lfs, dict) else None
    blob = oid.lower() if isinstance(oid, str) and re.match(r"^[0-9a-fA-F]{40}$", oid) else None
    return RemoteFile(repo, path, revision, size, sha, blob)


def _next_link(response: httpx.Response, url: str) -> str | None:
    link = response.links.get("next")
    target = link.get("url") if link else None
    return urljoin(url, target) if target else None


def _same_origin(a: str, b: str) -> bool:
    ua, ub = httpx.URL(a), httpx.URL(b)
    return (ua.scheme, ua.host, ua.port) == (ub.scheme, ub.host, ub.port)

"""Small files kept in git itself rather than Git LFS (a model folder's ``genai_config.json``, its
chat template): the hub publishes no SHA-256 for them, but the tree API gives the git blob's
SHA-1, which is ``sha1(b"blob <size>\\0" + content)``. Such a file is fetched whole, checked against
that, and installed by an atomic rename; a mismatch installs nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import httpx

from engine.errors import DownloadError
from engine.hub.api import Hub, network_error, raise_for_status

MAX_GIT_FILE = 50 << 20  # the hub keeps larger files in LFS


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def fetch_git_file(
    hub: Hub, repo: str, path: str, revision: str, blob_oid: str, target: Path
) -> int:
    """Download ``repo/path`` to ``target``; returns its size. ``DownloadError`` if its bytes are
    not the blob ``blob_oid`` the hub listed."""
    url = hub.resolve_url(repo, path, revision)
    name = f"{repo}/{path}"
    data = bytearray()
    try:
        for _ in range(5):  # same-host redirects (a renamed repository)
            with hub.client.stream("GET", url, headers=hub.auth_headers(url)) as response:
                location = response.headers.get("Location")
                if response.is_redirect and location:
                    url = str(httpx.URL(url).join(location))
                    continue
                raise_for_status(response, what=name, repo=repo, path=path, token=hub.config.token)
                for chunk in response.iter_raw():
                    data += chunk
                    if len(data) > MAX_GIT_FILE:
                        raise DownloadError(f"{name} is larger than the hub said. Try again.")
                break
    except httpx.TransportError as exc:
        raise network_error(exc, hub.config.endpoint) from None
    if git_blob_sha1(bytes(data)) != blob_oid:
        raise DownloadError(
            f"{name} arrived damaged (its bytes do not match the hub's checksum); nothing was "
            "installed. Try again."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        with tmp.open("wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise DownloadError(f"Cannot write {target} ({exc.strerror or exc}).") from None
    return len(data)

"""Fit before download: a GGUF file's header and tensor table read from the hub over HTTP Range
requests (a few megabytes, never the weights), parsed by the same reader, with the same checks, as
a local file, and planned against this machine's free memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from engine.errors import DownloadError, ModelLoadError
from engine.formats.gguf import GGUFFile, read_gguf_from
from engine.formats.gguf.cursor import MAX_HEADER_BYTES
from engine.hub.api import Hub, network_error, raise_for_status

if TYPE_CHECKING:
    from engine.planner.plan import Plan, Resources

FIRST_BLOCK = 1 << 20
MAX_BLOCK = 16 << 20


class RangeReader:
    """Sequential reads of a remote file, fetched in growing blocks by Range requests."""

    def __init__(self, hub: Hub, url: str, size: int, repo: str, file: str) -> None:
        self._hub = hub
        self._url = url
        self._size = size
        self._repo = repo
        self._file = file
        self._name = f"{repo}/{file}"
        self._buf = b""
        self._pos = 0  # file offset of _buf[0]
        self._block = FIRST_BLOCK
        self.fetched_bytes = 0

    def read(self, n: int) -> bytes:
        end = min(self._pos + max(n, 0), self._size)
        while self._pos + len(self._buf) < end:
            self._fetch(self._pos + len(self._buf), end)
        out, self._buf = self._buf[:n], self._buf[n:]
        self._pos += len(out)
        return out

    def _fetch(self, start: int, want_end: int) -> None:
        stop = min(max(want_end, start + self._block), self._size, MAX_HEADER_BYTES)
        if stop <= start:
            raise ModelLoadError(
                f"{self._name}: the header runs past the {MAX_HEADER_BYTES >> 20} MiB limit. "
                "Download or convert the model again."
            )
        self._block = min(self._block * 2, MAX_BLOCK)
        headers = {**self._hub.auth_headers(self._url), "Range": f"bytes={start}-{stop - 1}"}
        try:
            with self._hub.client.stream("GET", self._url, headers=headers) as response:
                raise_for_status(
                    response,
                    what=self._name,
                    repo=self._repo,
                    path=self._file,
                    token=self._hub.config.token,
                )
                skip = start if response.status_code == 200 else 0  # Range ignored
                data = bytearray()
                for chunk in response.iter_raw():
                    if skip:
                        dropped = min(skip, len(chunk))
                        chunk, skip = chunk[dropped:], skip - dropped
                    data += chunk
                    self.fetched_bytes += len(chunk)
                    if len(data) >= stop - start:
                        break
        except httpx.TransportError as exc:
            raise network_error(exc, self._hub.config.endpoint) from None
        if len(data) < min(stop - start, self._size - start):
            raise DownloadError(f"{self._name}: the server sent less than asked. Try again.")
        self._buf += bytes(data[: stop - start])


@dataclass(frozen=True, slots=True)
class RemoteHeader:
    repo: str
    file: str
    size: int
    info: GGUFFile
    fetched_bytes: int


def read_remote_gguf(hub: Hub, repo: str, file: str, revision: str = "main") -> RemoteHeader:
    """The header of ``repo/file`` on the hub; ``ModelLoadError`` if it is not a sound GGUF."""
    resolved = hub.resolve(repo, file, revision)
    if resolved.size < 0:
        raise DownloadError(f"The hub did not say how big {repo}/{file} is. Try again later.")
    reader = RangeReader(hub, resolved.url, resolved.size, repo, file)
    info = read_gguf_from(reader, f"{repo}/{file}", resolved.size)  # type: ignore[arg-type]
    return RemoteHeader(repo, file, resolved.size, info, reader.fetched_bytes)


def plan_remote(
    hub: Hub,
    repo: str,
    file: str,
    *,
    revision: str = "main",
    resources: Resources | None = None,
    ctx: int | None = None,
) -> tuple[RemoteHeader, Plan]:
    """Will ``repo/file`` fit on this machine? The real planner, on the remote header."""
    from engine.backends.loader import current_resources
    from engine.planner.gguf import make_plan

    header = read_remote_gguf(hub, repo, file, revision)
    plan = make_plan(header.info, resources or current_resources(), requested_ctx=ctx)
    return header, plan

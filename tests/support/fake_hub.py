"""A Hugging Face Hub on loopback for the library's tests and benchmark: the same API and file URLs
as huggingface.co, with faults to order.

Two listeners share one state: the hub (``/api/models/...``, ``/{repo}/resolve/{rev}/{file}``,
which redirects to) and its CDN (``/cdn/{sha256}``, with Range). The CDN is another origin, as
on the real hub, so a test can check that the token never reaches it. Every byte of file data the
CDN sends is counted, per request.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

CHUNK = 64 << 10
STALL_LIMIT_S = 30.0  # a stalled answer ends by itself even if no test releases it

FaultKind = Literal["cut", "corrupt", "stall", "status", "crawl"]


@dataclass
class Fault:
    """Applied once, to the first CDN answer it concerns: ``cut``/``corrupt``/``stall``/
    ``crawl`` to the one whose bytes cover ``offset``, ``status`` to the next request."""

    kind: FaultKind
    offset: int = 0
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class HubFile:
    repo: str
    path: str
    source: bytes | Path
    sha256: str
    size: int
    lfs: bool = True
    blob_oid: str = ""  # the git blob's SHA-1, as the tree API lists it

    def read(self, offset: int, n: int) -> bytes:
        if isinstance(self.source, bytes):
            return self.source[offset : offset + n]
        with self.source.open("rb") as f:
            f.seek(offset)
            return f.read(n)


@dataclass
class Served:
    path: str
    start: int
    end: int  # exclusive, as asked
    status: int
    sent: int = 0
    authorization: str | None = None
    peer: int = 0  # the client's port: one per connection


class HubState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: dict[tuple[str, str], HubFile] = {}
        self.by_sha: dict[str, HubFile] = {}
        self.faults: deque[Fault] = deque()
        self.gated: set[str] = set()
        self.private: set[str] = set()
        self.token = "hf_test_token"
        self.no_range = False
        self.chunked = False  # CDN bodies in chunked transfer encoding, without a length
        self.blob_redirects = True
        self.hold_from: int | None = None  # CDN bytes at or past this wait for ``release``
        self.release = threading.Event()
        self.closing = threading.Event()
        self.served: list[Served] = []
        self.api_requests: list[tuple[str, str, str | None]] = []  # method, path, authorization
        self.cdn_url = ""
        self.downloads: dict[str, int] = {}  # per repository, for search's ranking

    def bytes_served(self) -> int:
        with self.lock:
            return sum(s.sent for s in self.served)

    def take_fault(self, kinds: tuple[FaultKind, ...], start: int, end: int) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.kind in kinds and (fault.kind == "status" or start <= fault.offset < end):
                    self.faults.remove(fault)
                    return fault
        return None


class FakeHub:
    """``tls``: serve HTTPS with this server context (the hub and its CDN)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.state = HubState()
        self._hub = _Server(("127.0.0.1", 0), _HubHandler, self.state)
        self._cdn = _Server(("127.0.0.1", 0), _CdnHandler, self.state)
        scheme = "http"
        if tls is not None:
            scheme = "https"
            for server in (self._hub, self._cdn):
                server.socket = tls.wrap_socket(server.socket, server_side=True)
        self.endpoint = f"{scheme}://127.0.0.1:{self._hub.server_address[1]}"
        self.state.cdn_url = f"{scheme}://127.0.0.1:{self._cdn.server_address[1]}"
        self._threads = [
            threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            for s in (self._hub, self._cdn)
        ]
        for thread in self._threads:
            thread.start()

    def add(self, repo: str, path: str, source: bytes | Path, *, lfs: bool = True) -> HubFile:
        if isinstance(source, bytes):
            sha, size = hashlib.sha256(source).hexdigest(), len(source)
        else:
            digest = hashlib.sha256()
            with source.open("rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
            sha, size = digest.hexdigest(), source.stat().st_size
        blob = hashlib.sha1(b"blob %d\0" % size + (source if isinstance(source, bytes) else b""))
        item = HubFile(repo, path, source, sha, size, lfs, blob.hexdigest())
        with self.state.lock:
            self.state.files[(repo, path)] = item
            self.state.by_sha[sha] = item
        return item

    def fault(self, fault: Fault) -> None:
        with self.state.lock:
            self.state.faults.append(fault)

    def close(self) -> None:
        self.state.closing.set()
        self.state.release.set()
        for server in (self._hub, self._cdn):
            server.shutdown()
            server.server_close()

    def __enter__(self) -> FakeHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type, state: HubState) -> None:
        super().__init__(address, handler)
        self.state = state


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    @property
    def state(self) -> HubState:
        return self.server.state

    def reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status: int, code: str) -> None:
        body = json.dumps({"error": code}).encode()
        self.reply(status, body, {"X-Error-Code": code, "Content-Type": "application/json"})


class _HubHandler(_Handler):
    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        state = self.state
        path = unquote(urlsplit(self.path).path)
        auth = self.headers.get("Authorization")
        with state.lock:
            state.api_requests.append((self.command, path, auth))
        authorized = auth == f"Bearer {state.token}"
        if path == "/api/models":
            self._search(parse_qs(urlsplit(self.path).query), authorized)
            return
        if path.startswith("/api/models/"):
            self._api(path[len("/api/models/") :], authorized)
            return
        pieces = path.lstrip("/").split("/", 4)
        if len(pieces) < 5 or pieces[2] != "resolve":
            self.error(404, "RepoNotFound")
            return
        repo = f"{pieces[0]}/{pieces[1]}"
        if not self._repo_visible(repo, authorized):
            return
        if repo in state.gated and not authorized:
            self.error(401, "GatedRepo")
            return
        item = state.files.get((repo, pieces[4]))
        if item is None:
            self.error(404, "EntryNotFound")
            return
        headers = {"X-Repo-Commit": "0" * 40, "ETag": f'"{item.sha256[:40]}"'}
        if item.lfs:
            headers |= {
                "Location": f"{state.cdn_url}/cdn/{item.sha256}",
                "X-Linked-Etag": f'"{item.sha256}"',
                "X-Linked-Size": str(item.size),
            }
            self.reply(302, b"", headers)
            return
        body = item.read(0, item.size)
        self.reply(200, body, headers | {"Accept-Ranges": "bytes"})

    def _repo_visible(self, repo: str, authorized: bool) -> bool:
        state = self.state
        known = any(r == repo for r, _ in state.files)
        if not known or (repo in state.private and not authorized):
            self.error(401, "RepoNotFound")  # as the hub does: a private repo looks missing
            return False
        return True

    def _search(self, query: dict[str, list[str]], authorized: bool) -> None:
        """``/api/models?search=&filter=&sort=downloads&limit=&expand=``: repositories whose name
        contains the words, with the tag asked for (``gguf``: it has a .gguf file; ``onnx``: a
        .onnx file), most downloaded first."""
        state = self.state
        words = " ".join(query.get("search", [])).lower().split()
        tags = set(query.get("filter", []))
        limit = int(query.get("limit", ["1000"])[0])
        repos: dict[str, list[HubFile]] = {}
        for (repo, _), item in state.files.items():
            if repo in state.private and not authorized:
                continue
            repos.setdefault(repo, []).append(item)
        found = []
        for repo, items in repos.items():
            repo_tags = {"gguf" for f in items if f.path.endswith(".gguf")}
            repo_tags |= {"onnx" for f in items if f.path.endswith(".onnx")}
            if all(w in repo.lower() for w in words) and tags <= repo_tags:
                found.append(
                    {
                        "id": repo,
                        "downloads": state.downloads.get(repo, 0),
                        "likes": 0,
                        "gated": "auto" if repo in state.gated else False,
                        "tags": sorted(repo_tags),
                        "siblings": [{"rfilename": f.path} for f in items],
                    }
                )
        found.sort(key=lambda m: -int(m["downloads"]))  # type: ignore[call-overload]
        body = json.dumps(found[:limit]).encode()
        self.reply(200, body, {"Content-Type": "application/json"})

    def _api(self, rest: str, authorized: bool) -> None:
        pieces = rest.split("/")
        repo = "/".join(pieces[:2])
        if not self._repo_visible(repo, authorized):
            return
        files = [f for (r, _), f in self.state.files.items() if r == repo]
        if len(pieces) >= 4 and pieces[2] == "tree":
            entries = [
                {
                    "type": "file",
                    "oid": f.blob_oid,
                    "size": f.size,
                    "path": f.path,
                    **(
                        {"lfs": {"oid": f.sha256, "size": f.size, "pointerSize": 134}}
                        if f.lfs
                        else {}
                    ),
                }
                for f in files
            ]
            self.reply(200, json.dumps(entries).encode(), {"Content-Type": "application/json"})
            return
        siblings = [
            {"rfilename": f.path, "size": f.size, "lfs": {"sha256": f.sha256, "size": f.size}}
            for f in files
        ]
        body = json.dumps({"id": repo, "gated": repo in self.state.gated, "siblings": siblings})
        self.reply(200, body.encode(), {"Content-Type": "application/json"})


class _CdnHandler(_Handler):
    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        state = self.state
        sha = urlsplit(self.path).path.rsplit("/", 1)[-1]
        item = state.by_sha.get(sha)
        if item is None:
            self.error(404, "EntryNotFound")
            return
        start, end = 0, item.size
        ranged = False
        spec = self.headers.get("Range")
        if spec and not state.no_range and spec.startswith("bytes="):
            first, _, last = spec[6:].partition("-")
            start = int(first)
            end = min(int(last) + 1, item.size) if last else item.size
            ranged = True
        fault = state.take_fault(("status",), start, end) if self.command == "GET" else None
        if fault is not None:
            with state.lock:
                state.served.append(Served(sha, start, end, fault.status))
            self.reply(fault.status, b"busy", fault.headers)
            return
        record = Served(
            sha,
            start,
            end,
            206 if ranged else 200,
            0,
            self.headers.get("Authorization"),
            self.client_address[1],
        )
        with state.lock:
            state.served.append(record)
        self.send_response(206 if ranged else 200)
        if state.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", f'"{item.sha256}"')
        if not state.no_range:
            self.send_header("Accept-Ranges", "bytes")
        if ranged:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{item.size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        if state.chunked:
            self._send_chunked(item, start, end, record)
            return
        self._send(item, start, end, record)

    def _send_chunked(self, item: HubFile, start: int, end: int, record: Served) -> None:
        """The body in chunks of its own framing (which ``sent`` does not count)."""
        try:
            for pos in range(start, end, CHUNK):
                chunk = item.read(pos, min(CHUNK, end - pos))
                self.wfile.write(b"%x\r\n" % len(chunk))
                if not self._write(chunk, record):
                    return
                self.wfile.write(b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _send(self, item: HubFile, start: int, end: int, record: Served) -> None:
        state = self.state
        if isinstance(item.source, Path) and not state.faults and state.hold_from is None:
            self.wfile.flush()
            with item.source.open("rb") as f:
                sent = self.connection.sendfile(f, offset=start, count=end - start)
            with state.lock:
                record.sent += sent
            return
        fault = state.take_fault(("cut", "corrupt", "stall", "crawl"), start, end)
        pos = start
        while pos < end:
            if state.hold_from is not None and pos + CHUNK > state.hold_from:
                state.release.wait(STALL_LIMIT_S)
            n = min(CHUNK, end - pos)
            chunk = item.read(pos, n)
            if fault is not None and pos <= fault.offset < pos + n:
                cut = fault.offset - pos
                if fault.kind == "corrupt":
                    chunk = chunk[:cut] + bytes([chunk[cut] ^ 0xFF]) + chunk[cut + 1 :]
                elif fault.kind in ("cut", "stall"):
                    self._write(chunk[:cut], record)
                    if fault.kind == "stall":
                        state.closing.wait(STALL_LIMIT_S)
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                elif fault.kind == "crawl":
                    self._crawl(item, pos, end, record)
                    return
            if not self._write(chunk, record):
                return
            pos += n

    def _crawl(self, item: HubFile, pos: int, end: int, record: Served) -> None:
        """A slow link: a few bytes at a time until the client gives up on this connection."""
        while pos < end and not self.state.closing.is_set():
            if not self._write(item.read(pos, 256), record):
                return
            pos += 256
            time.sleep(0.05)

    def _write(self, data: bytes, record: Served) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True
            return False
        with self.state.lock:
            record.sent += len(data)
        return True


def random_bytes(n: int, seed: int = 0) -> bytes:
    """Deterministic, incompressible test data."""
    return random.Random(seed).randbytes(n)


def write_random_file(path: Path, n: int) -> None:
    """A large file of random bytes, written in blocks (flat memory)."""
    with path.open("wb") as f:
        left = n
        while left:
            block = os.urandom(min(left, 8 << 20))
            f.write(block)
            left -= len(block)

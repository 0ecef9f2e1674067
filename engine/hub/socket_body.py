"""A GET whose body is read straight off the socket, for the bytes of a model file.

httpx hands a body over in 64 KiB pieces, each through h11's parser: about 16,000 Python steps per
GiB, which caps a download at a few hundred MiB/s on a small machine. Here the request line and the
headers are written and parsed by hand, and the body is read with ``recv_into`` into the caller's
large buffer, so a step moves as much as the socket holds (often a MiB or more).

Only the plain case takes this path: ``http``/``https`` with no proxy configured for the scheme
(``urllib.request.getproxies``, as httpx reads it: the environment, and the system settings on
macOS and Windows), and a body with a ``Content-Length`` and no content or transfer encoding.
Anything else is left to httpx (``SocketResponse.length`` is None, or ``usable`` is False). TLS uses
the hub's own SSL context: certificates always verified, the same CA bundle.

Failures are raised as httpx's transport errors (connect error, read timeout, dropped connection),
so the transfer retries them exactly as it retries httpx's own.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from engine.hub.api import USER_AGENT

MAX_HEAD = 64 << 10  # status line and headers
_Origin = tuple[str, str, int]  # scheme, host, port


def proxied(scheme: str) -> bool:
    """Whether a proxy is configured for this scheme (or for all); NO_PROXY is not consulted,
    so a proxied setup always goes through httpx, which knows its rules."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all"))


@dataclass(slots=True)
class _Conn:
    origin: _Origin
    sock: socket.socket
    reused: bool = False


@dataclass(slots=True)
class SocketResponse:
    """Status and headers (as an ``httpx.Response`` without a body, for the checks the httpx path
    shares), and the body still on the socket."""

    head: httpx.Response
    length: int | None  # None: not a plain body (chunked, encoded, or no length): use httpx
    _client: SocketClient
    _conn: _Conn | None
    _pending: bytearray = field(default_factory=bytearray)  # body bytes read with the headers
    _left: int = 0
    reusable: bool = True

    def readinto(self, view: memoryview) -> int:
        """Up to ``len(view)`` body bytes, as many as have arrived (at least one); 0 once the body
        is complete. Raises ``httpx.ReadTimeout`` when nothing came for the read timeout and
        ``httpx.RemoteProtocolError`` when the connection closed before the end."""
        conn = self._conn
        if conn is None or self._left <= 0:
            return 0
        want = min(len(view), self._left)
        if self._pending:
            n = min(want, len(self._pending))
            view[:n] = self._pending[:n]
            del self._pending[:n]
        else:
            try:
                n = conn.sock.recv_into(view, want)
            except TimeoutError:
                self.close()
                raise httpx.ReadTimeout("the server went silent") from None
            except OSError as exc:
                self.close()
                raise httpx.RemoteProtocolError(f"the connection dropped ({exc})") from None
            if n == 0:
                self.close()
                raise httpx.RemoteProtocolError("the connection closed before the body ended")
        self._left -= n
        return n

    def close(self) -> None:
        """Give the connection back for the next request when the body was read to its end and
        the server keeps it open; close it otherwise."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        keep = (
            self.reusable
            and self.length is not None
            and self._left == 0
            and not self._pending
            and self.head.headers.get("Connection", "").lower() != "close"
        )
        if keep:
            self._client._give_back(conn)
        else:
            _close(conn.sock)

    def __enter__(self) -> SocketResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SocketClient:
    """GETs on connections of its own, kept alive between requests to the same origin. Thread-safe:
    each request holds its connection alone."""

    def __init__(
        self,
        ssl_context: ssl.SSLContext,
        *,
        connect_timeout_s: float,
        read_timeout_s: float,
        max_idle: int = 8,
    ) -> None:
        self._ssl = ssl_context
        self._connect_timeout = connect_timeout_s
        self._read_timeout = read_timeout_s
        self._max_idle = max_idle
        self._lock = threading.Lock()
        self._idle: list[_Conn] = []
        self._closed = False

    def usable(self, url: str) -> bool:
        scheme = urlsplit(url).scheme
        return scheme in ("http", "https") and not proxied(scheme)

    def get(self, url: str, headers: dict[str, str]) -> SocketResponse:
        """Send the GET and read the status and headers. A kept-alive connection the server has
        closed meanwhile is replaced by a fresh one without counting as a failure."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        origin = (parts.scheme, host, port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        netloc = host if ":" not in host else f"[{host}]"
        if parts.port is not None:
            netloc += f":{parts.port}"
        lines = [f"GET {target} HTTP/1.1", f"Host: {netloc}", f"User-Agent: {USER_AGENT}"]
        lines += ["Accept-Encoding: identity", "Accept: */*"]
        lines += [f"{key}: {value}" for key, value in headers.items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        while True:
            conn = self._take(origin) or self._connect(origin)
            try:
                return self._exchange(conn, url, request)
            except (httpx.RemoteProtocolError, httpx.WriteError):
                if not conn.reused:
                    raise
                # a kept-alive connection the server closed: one more try on a fresh one

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            _close(conn.sock)

    def _take(self, origin: _Origin) -> _Conn | None:
        with self._lock:
            for i, conn in enumerate(self._idle):
                if conn.origin == origin:
                    del self._idle[i]
                    conn.reused = True
                    return conn
        return None

    def _give_back(self, conn: _Conn) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append(conn)
                return
        _close(conn.sock)

    def _connect(self, origin: _Origin) -> _Conn:
        scheme, host, port = origin
        try:
            sock = socket.create_connection((host, port), timeout=self._connect_timeout)
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if scheme == "https":
                sock = self._ssl.wrap_socket(sock, server_hostname=host)
        except OSError as exc:  # ssl.SSLError included: a certificate that does not verify
            _close(sock)
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        sock.settimeout(self._read_timeout)
        return _Conn(origin, sock)

    def _exchange(self, conn: _Conn, url: str, request: bytes) -> SocketResponse:
        try:
            conn.sock.sendall(request)
        except OSError as exc:
            _close(conn.sock)
            raise httpx.WriteError(str(exc) or type(exc).__name__) from None
        head = bytearray()
        while (end := head.find(b"\r\n\r\n")) < 0:
            if len(head) > MAX_HEAD:
                _close(conn.sock)
                raise httpx.RemoteProtocolError("the server sent headers too long to be real")
            try:
                chunk = conn.sock.recv(MAX_HEAD)
            except TimeoutError:
                _close(conn.sock)
                raise httpx.ReadTimeout("the server went silent") from None
            except OSError as exc:
                _close(conn.sock)
                raise httpx.RemoteProtocolError(f"the connection dropped ({exc})") from None
            if not chunk:
                _close(conn.sock)
                raise httpx.RemoteProtocolError("the server closed the connection")
            head += chunk
        status, headers = _parse_head(bytes(head[:end]))
        if status is None:
            _close(conn.sock)
            raise httpx.RemoteProtocolError("the server sent something that is not HTTP")
        response = httpx.Response(status, headers=headers, request=httpx.Request("GET", url))
        body = bytearray(head[end + 4 :])
        length = _plain_length(response)
        got = SocketResponse(response, length, self, conn, body, length or 0)
        if length is not None and len(body) > length:  # more than the body: do not reuse it
            del body[length:]
            got.reusable = False
        return got


def _parse_head(head: bytes) -> tuple[int | None, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    fields = lines[0].split(" ", 2)
    if len(fields) < 2 or not fields[0].startswith("HTTP/1.") or not fields[1].isdigit():
        return None, []
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers.append((name.strip(), value.strip()))
    return int(fields[1]), headers


def _plain_length(response: httpx.Response) -> int | None:
    """The body's length when it is sent as is; None for anything httpx must decode."""
    headers = response.headers
    if "Transfer-Encoding" in headers:
        return None
    if headers.get("Content-Encoding", "identity").lower() != "identity":
        return None
    value = headers.get("Content-Length", "")
    if not value.isdigit() or len(headers.get_list("Content-Length")) != 1:
        return None
    return int(value)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()

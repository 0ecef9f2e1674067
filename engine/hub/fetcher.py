"""Fetch one file's parts from the hub into a sink, for ``engine.hub.transfer``: a request per
part (its byte range, redirects followed, a signed link refreshed once when it expires), the
response checked, retries with backoff, and a watch over the parts on the wire that restarts a
crawling one on a fresh connection.

The body of a part is read off the socket into a few large reusable buffers
(``engine.hub.socket_body``) when the connection is a plain one, and through httpx otherwise
(a proxy, a chunked body).
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import urljoin

import httpx

from engine.errors import DownloadError, Halted, NoRanges, RetryLater
from engine.hub.api import Hub, raise_for_status
from engine.hub.hashing import Release
from engine.hub.retry import RETRY_STATUSES, Backoff, retry_after_s
from engine.hub.socket_body import SocketClient, SocketResponse
from engine.library.partial import FileSpec, Part, PartialState

log = logging.getLogger(__name__)

Sink = Callable[[Part, int, "bytes | memoryview", Release | None], None]
# Before a part is fetched again from its first byte (a server without Range, a retry): forget
# what the sink was given of it.
Rewind = Callable[[Part, Sink], None]


class FetchOptions(Protocol):
    """The settings a fetcher reads (``engine.hub.transfer.TransferOptions`` has them)."""

    @property
    def part_size(self) -> int: ...

    @property
    def crawl_ratio(self) -> float: ...

    @property
    def crawl_grace_s(self) -> float: ...

    @property
    def max_restarts(self) -> int: ...

    @property
    def backoff(self) -> Backoff: ...

    @property
    def socket_reader(self) -> bool: ...

    @property
    def buffer_size(self) -> int: ...

    @property
    def buffers(self) -> int: ...

    @property
    def handoff_s(self) -> float: ...


@dataclass(slots=True)
class _Activity:
    """One part on the wire: its speed, smoothed over the monitor's ticks."""

    since: float
    first_done: int
    last_done: int
    last_time: float = 0.0
    rate: float = 0.0

    def sample(self, now: float, done: int) -> None:
        last = self.last_time or self.since
        if now > last:
            instant = (done - self.last_done) / (now - last)
            self.rate = instant if not self.last_time else 0.6 * self.rate + 0.4 * instant
            self.last_done, self.last_time = done, now


class _Buffers:
    """The receive buffers of one part's stream; one handed to the hash comes back once hashed."""

    def __init__(self, count: int, size: int) -> None:
        self._cond = threading.Condition()
        self._free = [bytearray(size) for _ in range(count)]

    def take(self) -> bytearray:
        with self._cond:
            while not self._free:
                self._cond.wait()  # the hash gives every buffer back, even when it stops
            return self._free.pop()

    def releaser(self, buf: bytearray) -> Release:
        def release() -> None:
            with self._cond:
                self._free.append(buf)
                self._cond.notify()

        return release


class PartFetcher:
    """The wire side of one transfer. ``fetch`` runs on the transfer's connection threads,
    ``find_crawlers`` on its watching thread; they share the transfer's ``lock`` (which also
    guards the parts' ``done``) and stop between two reads once ``halt`` is set."""

    def __init__(
        self,
        hub: Hub,
        spec: FileSpec,
        url: str,
        state: PartialState,
        options: FetchOptions,
        *,
        lock: threading.Lock,
        halt: threading.Event,
        rewind: Rewind,
    ) -> None:
        self._hub = hub
        self.spec = spec
        self._url = url
        self._state = state
        self._options = options
        self._lock = lock
        self._halt = halt
        self._rewind = rewind
        self._restart: set[int] = set()
        self._active: dict[int, _Activity] = {}  # by part start: the parts on the wire now
        self._finished_rates: list[float] = []  # bytes/s of the parts that completed
        self._url_refreshed = False
        self._sock: SocketClient | None = None
        self._plain_bodies = True  # False once the server sent a body the socket reader leaves
        self._local = threading.local()  # each thread's receive buffers
        if options.socket_reader and hub.ssl_context is not None:
            self._sock = SocketClient(
                hub.ssl_context,
                connect_timeout_s=hub.config.connect_timeout_s,
                read_timeout_s=hub.config.read_timeout_s,
            )
        self.retries = 0
        self.restarts = 0

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()

    def find_crawlers(self) -> None:
        """Mark for a restart the parts far slower than the others (a slow path, an overloaded
        CDN node); the connection fetching one sees it between two reads."""
        opts = self._options
        now = time.monotonic()
        with self._lock:
            parts = {p.start: p for p in self._state.parts}
            for start, activity in self._active.items():
                activity.sample(now, parts[start].done)
            for start, activity in self._active.items():
                others = [a.rate for s, a in self._active.items() if s != start]
                others += self._finished_rates[-8:]
                if not others:
                    continue
                median = statistics.median(others)
                if (
                    now - activity.since >= opts.crawl_grace_s
                    and median > 0
                    and activity.rate < median * opts.crawl_ratio
                    and parts[start].remaining > opts.part_size // 8
                ):
                    self._restart.add(start)

    def fetch(self, part: Part, sink: Sink) -> None:
        """Fetch what ``part`` still lacks into ``sink``, retrying and restarting; raises
        ``Halted``, ``NoRanges``, or an ``EngineError`` once the retries are spent."""
        backoff = self._options.backoff
        attempts = restarts = 0
        while not part.complete:
            if self._halt.is_set():
                raise Halted
            before = part.done
            try:
                if self._fetch(part, sink) == "restart":
                    restarts += 1
                    self.restarts += 1
                    if restarts > self._options.max_restarts:
                        raise DownloadError(
                            f"{self.spec.name}: the server keeps sending bytes far more slowly "
                            "on some connections. Try again later; the download resumes."
                        )
                continue
            except (httpx.TransportError, RetryLater) as exc:
                if part.done > before:
                    attempts = 0
                if attempts >= backoff.attempts:
                    raise DownloadError(
                        f"{self.spec.name}: {_describe(exc)}, {attempts + 1} times in a row. "
                        "Check your connection and run the same command again: the download "
                        "resumes where it stopped."
                    ) from None
                retry_after = exc.retry_after if isinstance(exc, RetryLater) else None
                delay = backoff.delay(attempts, retry_after)
                attempts += 1
                self.retries += 1
                log.info("%s: %s; retrying in %.1f s", self.spec.name, _describe(exc), delay)
                if not self._state.ranged and part.done:
                    self._rewind(part, sink)  # no Range: the stream restarts at byte 0
                if self._halt.wait(delay):
                    raise Halted from None

    def _fetch(self, part: Part, sink: Sink) -> Literal["done", "restart"]:
        ranged = self._state.ranged
        url = self._url
        for _ in range(5):
            headers = dict(self._hub.auth_headers(url))
            if ranged:
                headers["Range"] = f"bytes={part.offset}-{part.end - 1}"
            client = self._sock
            if client is not None and self._plain_bodies and client.usable(url):
                with client.get(url, headers) as got:
                    location = got.head.headers.get("Location")
                    if got.head.is_redirect and location:
                        url = urljoin(url, location)
                        continue
                    self._check_response(got.head, part)
                    if got.length is not None:
                        return self._stream_socket(got, part, sink)
                # Not a plain body (chunked, encoded, no length): this server's bodies go
                # through httpx from now on, starting with this one.
                self._plain_bodies = False
            with self._hub.client.stream("GET", url, headers=headers) as response:
                location = response.headers.get("Location")
                if response.is_redirect and location:
                    url = urljoin(url, location)
                    continue
                self._check_response(response, part)
                return self._stream(response, part, sink)
        raise DownloadError(f"{self.spec.name}: too many redirects. Try again later.")

    def _check_response(self, response: httpx.Response, part: Part) -> None:
        status = response.status_code
        if status in RETRY_STATUSES:
            raise RetryLater(f"HTTP {status}", retry_after_s(response.headers))
        if status in (401, 403) and not self._url_refreshed and self._url != self._resolve_url():
            self._refresh_url()  # a signed CDN link expired during a long download
            raise RetryLater("the download link expired", 0.0)
        if status >= 400:
            raise_for_status(
                response,
                what=self.spec.name,
                repo=self.spec.repo,
                path=self.spec.file,
                token=self._hub.config.token,
            )
        if status == 200 and self._state.ranged:
            raise NoRanges
        if status == 206:
            expected = f"bytes {part.offset}-"
            if not response.headers.get("Content-Range", "").startswith(expected):
                raise RetryLater("the server sent another byte range than asked")

    def _resolve_url(self) -> str:
        return self._hub.resolve_url(self.spec.repo, self.spec.file, self.spec.revision)

    def _refresh_url(self) -> None:
        with self._lock:
            if self._url_refreshed:
                return
            self._url_refreshed = True
        resolved = self._hub.resolve(self.spec.repo, self.spec.file, self.spec.revision)
        self._url = resolved.url

    def _interrupted(self, part: Part) -> bool:
        """Whether the monitor asked for ``part`` to restart (on a fresh connection); raises
        ``Halted`` on a pause or cancel. Checked between two reads."""
        if self._halt.is_set():
            raise Halted
        if part.start in self._restart:
            with self._lock:
                self._restart.discard(part.start)
            return True
        return False

    def _stream(
        self, response: httpx.Response, part: Part, sink: Sink
    ) -> Literal["done", "restart"]:
        with self._lock:
            self._active[part.start] = _Activity(time.monotonic(), part.done, part.done)
        try:
            offset = part.offset
            for chunk in response.iter_raw():
                if self._interrupted(part):
                    return "restart"
                take = min(len(chunk), part.end - offset)
                sink(part, offset, chunk if take == len(chunk) else chunk[:take], None)
                offset += take
                if offset >= part.end:
                    self._finished(part)
                    return "done"
            raise RetryLater("the connection closed before the part was complete")
        finally:
            with self._lock:
                self._active.pop(part.start, None)

    def _stream_socket(
        self, body: SocketResponse, part: Part, sink: Sink
    ) -> Literal["done", "restart"]:
        """Fill a large buffer from the socket, then hand it over whole (written at its offset,
        counted, hashed); a partly filled one is handed over after ``handoff_s`` (a slow link
        still shows progress) and when the stream ends early, so no byte that arrived is lost."""
        opts = self._options
        with self._lock:
            self._active[part.start] = _Activity(time.monotonic(), part.done, part.done)
        buffers: _Buffers | None = getattr(self._local, "buffers", None)
        if buffers is None:  # one set per thread, for all the parts it fetches
            buffers = self._local.buffers = _Buffers(max(2, opts.buffers), opts.buffer_size)
        offset = part.offset  # where the buffer's first byte goes
        buf = buffers.take()
        held = True  # False from the hand-over of buf until the next one is taken
        view = memoryview(buf)
        fill = 0
        since = time.monotonic()
        try:
            while True:
                if self._interrupted(part):
                    return "restart"
                want = min(len(view), part.end - offset)
                n = body.readinto(view[fill:want])
                if n == 0:
                    raise RetryLater("the connection closed before the part was complete")
                fill += n
                if fill < want and time.monotonic() - since < opts.handoff_s:
                    continue
                handed, fill, held = fill, 0, False
                sink(part, offset, view[:handed], buffers.releaser(buf))
                offset += handed
                if offset >= part.end:
                    self._finished(part)
                    return "done"
                buf = buffers.take()
                held = True
                view = memoryview(buf)
                since = time.monotonic()
        finally:
            if held:
                release, handed, fill = buffers.releaser(buf), fill, 0
                if handed:  # what arrived before a halt, a restart or a dropped connection
                    sink(part, offset, view[:handed], release)
                else:
                    release()
            with self._lock:
                self._active.pop(part.start, None)

    def _finished(self, part: Part) -> None:
        with self._lock:
            activity = self._active.get(part.start)
            if activity is not None:
                elapsed = time.monotonic() - activity.since
                if elapsed > 0:
                    self._finished_rates.append((part.done - activity.first_done) / elapsed)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "the server went silent"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the connection dropped"
    if isinstance(exc, httpx.ConnectError):
        return "the server cannot be reached"
    return str(exc) or type(exc).__name__

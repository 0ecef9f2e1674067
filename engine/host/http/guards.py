"""What stands in front of every endpoint: the host-header check (DNS rebinding), the API key,
the body-size and content-type limits of a request, and errors as OpenAI-style JSON.

Nothing here ever sends a traceback.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.client.protocol import error_body
from engine.errors import (
    BackendUnavailable,
    ContextOverflow,
    EngineAuthError,
    EngineBusy,
    EngineError,
    InsufficientMemory,
    InvalidRequest,
    LoadCancelled,
    ModelLoadError,
    ModelNotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from engine.host.http.loopback import is_loopback
from engine.remote.keys import digest, matches
from engine.remote.ratelimit import RateLimit

log = logging.getLogger("cove.host")

# Room for a few photos as base64 data: URLs (a 12-megapixel JPEG is about 5 MB, 7 MB encoded).
DEFAULT_MAX_BODY = 64 * 1024 * 1024

_STATUS: tuple[tuple[type[EngineError], int, str], ...] = (
    (InvalidRequest, 400, "invalid_request_error"),
    (ContextOverflow, 400, "invalid_request_error"),
    (ModelLoadError, 400, "invalid_request_error"),
    (BackendUnavailable, 400, "invalid_request_error"),
    (EngineAuthError, 401, "authentication_error"),
    (ModelNotFound, 404, "not_found_error"),
    (LoadCancelled, 409, "cancelled"),
    (EngineBusy, 429, "rate_limit_error"),
    (InsufficientMemory, 507, "insufficient_memory"),
)


@dataclass(frozen=True, slots=True)
class HostConfig:
    api_key: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    loopback_only: bool = True
    retry_after_s: int = 2
    # The SHA-256 of the key, when only that is kept (``cove serve --lan``); ``api_key`` wins.
    key_digest: bytes | None = None
    # Limits per client address for what is served beyond loopback (None: none).
    rate_limit: RateLimit | None = None
    # Web origins allowed beyond this computer's pages and desktop apps (engine/host/http/cors.py).
    allow_origins: tuple[str, ...] = ()


def error_status(exc: EngineError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and OpenAI-style body for an engine error."""
    status, kind = 500, "server_error"
    for cls, code, name in _STATUS:
        if isinstance(exc, cls):
            status, kind = code, name
            break
    if isinstance(exc, PayloadTooLarge):
        status = 413
    elif isinstance(exc, UnsupportedMediaType):
        status = 415
    body = error_body(str(exc), kind, exc.code)
    if isinstance(exc, InsufficientMemory) and exc.plan is not None:
        body["error"]["plan"] = exc.plan.to_dict()
    return status, body


def busy_headers(status: int, retry_after_s: int) -> dict[str, str] | None:
    """A busy engine (429) says when to ask again, in every protocol's shape."""
    return {"Retry-After": str(retry_after_s)} if status == 429 else None


def error_response(exc: EngineError, retry_after_s: int = 2) -> JSONResponse:
    status, body = error_status(exc)
    headers = busy_headers(status, retry_after_s)
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=status, headers=headers)


async def read_json(request: Request, limit: int) -> object:
    """The request body as JSON, refusing bodies over ``limit`` bytes before reading them all."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise PayloadTooLarge(f"The request body is larger than the {limit}-byte limit.")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = bytearray()
    async for part in request.stream():
        body.extend(part)
        if len(body) > limit:
            raise PayloadTooLarge(f"The request body is larger than the {limit}-byte limit.")
    if not body:
        return {}
    if ctype != "application/json":
        # Also what stops a web page from posting here as a "simple" cross-site request.
        raise UnsupportedMediaType(
            "Send the request body as JSON (Content-Type: application/json)."
        )
    try:
        return json.loads(bytes(body), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(f"The request body is not valid JSON: {exc}.") from None


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not allowed")


class Guard:
    """Middleware just inside the CORS one (engine/host/http/cors.py): host-header check (DNS
    rebinding), API key, and a log line per request (method, path, status, time; never the
    body)."""

    def __init__(self, app: ASGIApp, config: HostConfig) -> None:
        self.app = app
        self.config = config
        self._key = digest(config.api_key) if config.api_key else config.key_digest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [0]

        async def send_logged(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        failure = self._limited(scope) or self._reject(headers, str(scope.get("path", "")), scope)
        try:
            if failure is not None:
                await failure(scope, receive, send_logged)
            else:
                await self.app(scope, receive, send_logged)
        finally:
            log.info(
                "%s %s %d %.1f ms",
                scope.get("method", "?"),
                scope.get("path", "?"),
                status[0],
                (time.perf_counter() - started) * 1000,
            )

    def _limited(self, scope: Scope) -> Response | None:
        limit, address = self.config.rate_limit, _client_address(scope)
        if limit is None or address is None:
            return None
        wait = limit.check(address)
        if wait is None:
            return None
        seconds = max(1, int(wait + 0.999))
        return JSONResponse(
            error_body(
                f"Too many requests from {address}; try again in {seconds} s.",
                "rate_limit_error",
                "rate_limited",
            ),
            status_code=429,
            headers={"Retry-After": str(seconds)},
        )

    def _reject(self, headers: dict[str, bytes], path: str, scope: Scope) -> Response | None:
        host = headers.get("host", b"").decode("latin-1")
        if self.config.loopback_only and addressed_elsewhere(host):
            return JSONResponse(
                error_body(
                    "This engine only answers requests addressed to localhost.",
                    "invalid_request_error",
                    "bad_host",
                ),
                status_code=400,
            )
        if self._key is not None:
            # Bearer for OpenAI's and Ollama's clients, x-api-key for Anthropic's.
            auth = headers.get("authorization", b"")
            bearer = auth[:7].lower() == b"bearer " and matches(auth[7:], self._key)
            keyed = matches(headers.get("x-api-key", b""), self._key)
            if not (bearer or keyed):
                address = _client_address(scope)
                if self.config.rate_limit is not None and address is not None:
                    self.config.rate_limit.failed(address)
                wrong = EngineAuthError(
                    "Missing or wrong API key (send 'Authorization: Bearer KEY' or 'x-api-key')."
                )
                if path.startswith("/v1/messages"):  # Anthropic's clients read their own shape
                    body = {"type": "error", "error": {"type": "authentication_error",
                                                       "message": str(wrong)}}  # fmt: skip
                    return JSONResponse(body, status_code=401)
                if path.startswith("/api/"):  # and Ollama's theirs
                    return JSONResponse({"error": str(wrong)}, status_code=401)
                return error_response(wrong)
        return None


def addressed_elsewhere(host: str) -> bool:
    """Whether a request's ``Host`` names something other than this computer's loopback (what a
    page that rebound a name of its own to 127.0.0.1 sends). No ``Host`` at all is not."""
    name = _without_port(host)
    return bool(name) and not is_loopback(name)


def _without_port(host: str) -> str:
    """A ``Host`` header's name: ``[::1]:8080`` is ``[::1]``, ``localhost:8080`` is
    ``localhost``; a bare IPv6 address stays whole."""
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end >= 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _client_address(scope: Scope) -> str | None:
    """The client's address, or None for this computer (loopback, a local socket)."""
    client = scope.get("client")
    host = client[0] if client else None
    if not host:
        return None
    return None if is_loopback(str(host)) else str(host)


def local_caller(request: Request) -> bool:
    """Whether the request comes from this computer (loopback, or a local socket)."""
    client = request.client
    if client is None or not client.host:
        return True
    return is_loopback(client.host)

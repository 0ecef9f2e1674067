"""Web pages and apps the person allows may use the engine from a browser (CORS).

A browser names the page a request comes from in the ``Origin`` header, and it only lets the page
read the answer when the server says so (``Access-Control-Allow-Origin``); before a request that
sends JSON or a key it first asks with an ``OPTIONS`` preflight. Allowed without asking are pages
served from this computer's loopback addresses (a web UI on another port) and desktop apps built
on web technology (Obsidian's ``app://``, Tauri's, VS Code's webviews); any other origin only
when ``cove serve --allow-origin PATTERN`` or ``COVE_ORIGINS`` names it.

An origin that is not allowed gets a 403 and nothing behind runs. A request without an
``Origin`` (curl, the SDKs, the window) passes unchanged. The host-header check and the key stay
with ``Guard`` (engine/host/http/guards.py), behind this: a preflight carries no key and needs none,
the real request does.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.client.protocol import error_body
from engine.host.http.guards import HostConfig, addressed_elsewhere
from engine.host.http.loopback import is_loopback

log = logging.getLogger("cove.host")

ORIGINS_ENV = "COVE_ORIGINS"
# The schemes of desktop apps whose pages are their own (never a website's).
APP_SCHEMES = frozenset({"app", "tauri", "vscode-webview", "vscode-file"})
ALLOW_METHODS = "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS"
# Asked for when a preflight names none; the headers the SDKs send.
DEFAULT_ALLOW_HEADERS = (
    "authorization, content-type, x-api-key, anthropic-version, anthropic-beta, "
    "anthropic-dangerous-direct-browser-access, openai-organization, openai-project, "
    "x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, "
    "x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, "
    "x-stainless-timeout"
)
# Response headers a page may read besides the safelisted ones.
EXPOSE_HEADERS = "cove-ignored, retry-after, www-authenticate"
MAX_AGE_S = 600


def allowed(origin: str, patterns: Iterable[str]) -> bool:
    """Whether a page of ``origin`` may use the engine: a default one, or one that matches a
    shell-style pattern against the whole origin (``chrome-extension://*``,
    ``https://*.example.org``; ``*`` allows every origin)."""
    text = origin.strip().lower()
    return default_allowed(text) or any(_compile(p).fullmatch(text) for p in patterns)


def parse_origins(text: str) -> tuple[str, ...]:
    """``COVE_ORIGINS``' comma-separated patterns (spaces around them ignored)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def with_environment(
    patterns: Iterable[str], environ: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """The given patterns plus those of ``COVE_ORIGINS``."""
    env = os.environ if environ is None else environ
    return (*patterns, *parse_origins(env.get(ORIGINS_ENV, "")))


def default_allowed(origin: str) -> bool:
    """A page of this computer (http or https on a loopback address, any port), or a desktop
    app's own page. Never ``null`` (a file, a sandboxed frame) or ``file://``."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname
        parts.port  # noqa: B018  # a malformed port raises here
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    if scheme in APP_SCHEMES:
        return bool(parts.netloc)
    if scheme not in ("http", "https") or not host:
        return False
    return is_loopback(host)


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    """``*`` is any text, ``?`` one character, the rest literal (so ``[::1]`` is itself)."""
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern.lower())
    return re.compile("".join(parts))


class Cors:
    """Outermost middleware: answers allowed origins' preflights, adds the CORS headers to the
    answers to allowed origins, and refuses every other origin before anything runs."""

    def __init__(self, app: ASGIApp, config: HostConfig) -> None:
        self.app = app
        self.patterns = config.allow_origins
        self.loopback_only = config.loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope.get("headers", []))
        origin = headers.get("origin")
        if origin is None:
            await self.app(scope, receive, send)
            return
        if not allowed(origin, self.patterns):
            log.warning(
                "refused %s %s from the web origin %s (not allowed; --allow-origin or %s)",
                scope.get("method", "?"),
                scope.get("path", "?"),
                _printable(origin),
                ORIGINS_ENV,
            )
            await refusal(origin)(scope, receive, send)
            return
        preflight = scope.get("method") == "OPTIONS" and "access-control-request-method" in headers
        if preflight and not (self.loopback_only and addressed_elsewhere(headers.get("host", ""))):
            await Response(status_code=204, headers=preflight_headers(origin, headers))(
                scope, receive, send
            )
            return
        added = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in allow_headers(origin)]

        async def send_allowed(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if not k.lower().startswith(b"access-control-") and k.lower() != b"vary"
                ]
                vary = [v for k, v in message.get("headers", []) if k.lower() == b"vary"]
                merged = b", ".join([*vary, b"Origin"])
                message = {**message, "headers": [*kept, *added, (b"vary", merged)]}
            await send(message)

        await self.app(scope, receive, send_allowed)


def allow_headers(origin: str) -> list[tuple[str, str]]:
    """What an answer to an allowed origin carries (``Vary`` is added where the answer is sent)."""
    return [
        ("access-control-allow-origin", origin),
        ("access-control-expose-headers", EXPOSE_HEADERS),
    ]


def preflight_headers(origin: str, asked: dict[str, str]) -> dict[str, str]:
    out = {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": ALLOW_METHODS,
        "access-control-allow-headers": asked.get("access-control-request-headers", "").strip()
        or DEFAULT_ALLOW_HEADERS,
        "access-control-max-age": str(MAX_AGE_S),
        "vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    }
    if asked.get("access-control-request-private-network", "").lower() == "true":
        out["access-control-allow-private-network"] = "true"
    return out


def refusal(origin: str) -> JSONResponse:
    shown = _printable(origin)
    return JSONResponse(
        error_body(
            f"Requests from {shown} are not allowed. Allow this origin with "
            f"`cove serve --allow-origin {shown}` (or {ORIGINS_ENV}).",
            "permission_error",
            "origin_not_allowed",
        ),
        status_code=403,
    )


def _headers(raw: Sequence[tuple[bytes, bytes]]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw}


def _printable(origin: str) -> str:
    """The origin as a message may show it: printable ASCII, at most 200 characters."""
    return "".join(c for c in origin if " " < c < "\x7f")[:200]

"""A client for another computer's engine: any OpenAI-compatible server over http, or another
Cove's ``cove serve --lan`` over https with its certificate pinned on first use."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.client.http_client import EngineClient
from engine.remote.pins import Trusted, trust

DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Connection:
    client: EngineClient
    url: str
    trusted: Trusted | None  # the pinned certificate, for https

    @property
    def encrypted(self) -> bool:
        return self.trusted is not None


def connect(url: str, api_key: str | None = None, *, timeout: float = 30.0) -> Connection:
    """An engine client for ``url``. For https the certificate is pinned on first use and must
    match later (``CertificateChanged`` otherwise); nothing is sent before that check."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"not an engine address: {url!r} (expected http://HOST:PORT/v1)")
    if parts.scheme == "https":
        port = parts.port or DEFAULT_PORTS["https"]
        trusted = trust(parts.hostname, port)
        client = EngineClient(url, api_key, timeout=timeout, verify=trusted.context())
        return Connection(client, url, trusted)
    return Connection(EngineClient(url, api_key, timeout=timeout), url, None)

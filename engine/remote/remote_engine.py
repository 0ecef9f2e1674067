"""Another computer's engine, used as the window uses its own: a client, and nothing to manage.

``RemoteEngine`` offers what the window's engine service uses of ``LocalEngine`` (``client``,
``alive()``, ``stop()``, ``restart()``, ``log_tail()``, ``base_url``). There is no process here:
whether the other computer answers shows in each request (a broken connection is
``EngineUnreachable``), and restarting means connecting again, which checks the pinned certificate
again. Loading models, memory plans and saved conversation state are that computer's business.

The server may be another Cove (``cove serve --lan``: https, its certificate pinned on first use)
or any OpenAI-compatible server (LM Studio, llama-server, vLLM, Ollama's ``/v1``).
"""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit

from engine.client.http_client import EngineClient
from engine.client.protocol import EngineStatus
from engine.errors import CertificateChanged, EngineAuthError, EngineError
from engine.remote.certificate import fingerprint
from engine.remote.connect import DEFAULT_PORTS, Connection, connect
from engine.remote.pins import Trusted, address, forget, peer_certificate

ENCRYPTED = "encrypted, certificate pinned"
NOT_ENCRYPTED = "not encrypted"


class RemoteEngine:
    def __init__(self, connection: Connection, api_key: str | None, timeout: float = 30.0) -> None:
        self._connection = connection
        self._api_key = api_key
        self._timeout = timeout
        self.url = connection.url

    @classmethod
    def connect(
        cls,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        expect_fingerprint: str | None = None,
    ) -> RemoteEngine:
        """Connect and check that the server answers with this key. ``expect_fingerprint``: the
        changed certificate the person chose to trust; the old pin is replaced only while the
        server shows that one (checked before and after), and nothing is sent before."""
        if expect_fingerprint is not None:
            pinned_at = pin_address(url)
            if pinned_at is not None and presented_fingerprint(url) == expect_fingerprint:
                forget(pinned_at)
        engine = cls(connect(url, api_key, timeout=timeout), api_key, timeout)
        trusted = engine.trusted
        if expect_fingerprint is not None and (
            trusted is None or trusted.fingerprint != expect_fingerprint
        ):
            if trusted is not None:
                forget(trusted.address)
            engine.stop()
            raise CertificateChanged(
                f"The certificate of {engine.where} changed again while it was being trusted, "
                "so Cove did not connect. Compare the fingerprints once more."
            )
        try:
            engine.chat_models()
        except BaseException:
            engine.stop()
            # Pinned just now for a connection that did not work (a wrong key): unpinned, so
            # that the fingerprint is shown to compare when a connection first works.
            if trusted is not None and trusted.first_use:
                forget(trusted.address)
            raise
        return engine

    # -- what the engine service uses of an engine -----------------------------------------------

    @property
    def client(self) -> EngineClient:
        return self._connection.client

    @property
    def base_url(self) -> str:
        return self.client.base_url

    def alive(self) -> bool:
        """Always: the other computer's health shows in the answers to requests."""
        return True

    def stop(self) -> None:
        """Close this side's connections; the other computer's engine keeps running."""
        self.client.close()

    def restart(self) -> None:
        """Connect again (the certificate is checked against its pin again)."""
        old = self._connection
        self._connection = connect(self.url, self._api_key, timeout=self._timeout)
        old.client.close()

    def log_tail(self, n: int = 20) -> list[str]:
        """The other computer's log stays there."""
        return []

    # -- what the window says about it ------------------------------------------------------------

    @property
    def trusted(self) -> Trusted | None:
        """The pinned certificate (https only); ``first_use`` when it was pinned just now."""
        return self._connection.trusted

    @property
    def encrypted(self) -> bool:
        return self._connection.encrypted

    @property
    def where(self) -> str:
        """The other computer as the person typed it: ``desk.local:8080``."""
        return where(self.url)

    @property
    def security(self) -> str:
        return ENCRYPTED if self.encrypted else NOT_ENCRYPTED

    @property
    def note(self) -> str:
        """Why this window neither loads nor plans models while it uses this engine."""
        return f"Models run on {self.where}; loading and memory plans are that computer's."

    def chat_models(self) -> list[str]:
        """The chat models the server offers (a Cove also lists its embedding model: left out)."""
        try:
            models = self.client.list_models()
        except EngineAuthError:
            raise EngineAuthError(
                f"The engine at {self.where} refused the key. Enter the key that computer gave "
                "(cove serve --lan shows it when it makes one), or the server's --api-key."
            ) from None
        return [m.id for m in models if m.kind != "embedding"]

    def status(self, model: str) -> EngineStatus:
        """``model`` as served there. Another Cove says its backend, device, context and whether
        the model sees images; another server says nothing, so images are left to it to judge."""
        theirs: EngineStatus | None = None
        with contextlib.suppress(EngineError):
            theirs = self.client.status()
        if theirs is None or theirs.model != model:
            return EngineStatus(model=model, vision=True)
        return EngineStatus(
            model=model,
            backend=theirs.backend,
            device=theirs.device,
            n_ctx=theirs.n_ctx,
            vision=theirs.vision,
            draft=theirs.draft,
        )


def where(url: str) -> str:
    """``host:port`` of an engine's address (the port left out where it is the scheme's)."""
    parts = urlsplit(url.strip() if "://" in url else "http://" + url.strip())
    host = parts.hostname or url
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    return f"{host}:{port}" if port and port != DEFAULT_PORTS.get(parts.scheme) else host


def pin_address(url: str) -> str | None:
    """Where the certificate of an https address is pinned (``host:port``); None for http."""
    parts = urlsplit(url.strip())
    if parts.scheme != "https" or not parts.hostname:
        return None
    return address(parts.hostname, parts.port or DEFAULT_PORTS["https"])


def presented_fingerprint(url: str) -> str:
    """The fingerprint of the certificate an https address shows now, unchecked: for the person
    to compare with the other computer's before trusting a changed one."""
    parts = urlsplit(url.strip())
    if parts.scheme != "https" or not parts.hostname:
        raise ValueError(f"{url} is not an https address: it has no certificate.")
    return fingerprint(peer_certificate(parts.hostname, parts.port or DEFAULT_PORTS["https"]))

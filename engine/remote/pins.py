"""Trust on first use: the first time Cove connects to an engine or a worker over TLS it pins the
certificate's fingerprint; later connections must show the same one, or they are refused with a
warning that says what changed and how to accept a deliberate change (``cove trust --forget``).

The pinned fingerprints live in ``tls/pinned.json`` in Cove's data folder, one per ``host:port``.
A connection is then made with an SSL context that trusts exactly the pinned certificate, so a
certificate swapped between the check and the request fails the handshake itself.
"""

from __future__ import annotations

import datetime
import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

from engine.errors import CertificateChanged, EngineUnreachable
from engine.json_file import read_json_object, write_json_atomic
from engine.remote.certificate import fingerprint, short, tls_dir

CONNECT_TIMEOUT_S = 10.0
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Trusted:
    address: str  # host:port
    fingerprint: str
    first_use: bool  # pinned just now: show the fingerprint so both people can compare it
    der: bytes

    def context(self) -> ssl.SSLContext:
        return pinned_context(self.der)


def pins_path() -> Path:
    return tls_dir() / "pinned.json"


def address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def pinned() -> dict[str, str]:
    """Every pinned address and its fingerprint."""
    return {
        str(k): str(v["fingerprint"])
        for k, v in _read().items()
        if isinstance(v, dict) and isinstance(v.get("fingerprint"), str)
    }


def forget(where: str) -> bool:
    """Unpin ``host:port``; True when it was pinned."""
    with _lock:
        data = _read()
        if data.pop(where, None) is None:
            return False
        write_json_atomic(pins_path(), data)
        return True


def trust(host: str, port: int, *, timeout: float = CONNECT_TIMEOUT_S) -> Trusted:
    """Connect once, read the certificate, and pin it or check it against the pin."""
    der = peer_certificate(host, port, timeout=timeout)
    fp = fingerprint(der)
    where = address(host, port)
    with _lock:
        data = _read()
        entry = data.get(where)
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
            if entry["fingerprint"] != fp:
                was = short(entry["fingerprint"])
                raise CertificateChanged(
                    f"The certificate of {where} has changed: it was {was}… "
                    f"when first used, it is now {short(fp)}…. Someone on the network may be "
                    "impersonating that computer, so Cove will not connect. If that computer's "
                    "Cove made a new certificate (compare the fingerprint it shows), accept it "
                    f"with: cove trust --forget {where}"
                )
            return Trusted(where, fp, False, der)
        data[where] = {
            "fingerprint": fp,
            "pinned": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        write_json_atomic(pins_path(), data)
    return Trusted(where, fp, True, der)


def peer_certificate(host: str, port: int, *, timeout: float = CONNECT_TIMEOUT_S) -> bytes:
    """The DER certificate the server at host:port presents (no verification: it is checked
    against the pin by the caller)."""
    probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    probe.check_hostname = False
    probe.verify_mode = ssl.CERT_NONE
    probe.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        with (
            socket.create_connection((host, port), timeout=timeout) as raw,
            probe.wrap_socket(raw, server_hostname=host) as tls,
        ):
            der = tls.getpeercert(binary_form=True)
    except ssl.SSLError as exc:
        raise EngineUnreachable(
            f"{address(host, port)} does not speak TLS ({exc.reason or exc}); is it a Cove "
            "serving with --lan, or a worker? Use http:// for a plain server."
        ) from None
    except OSError as exc:
        raise EngineUnreachable(
            f"Cannot reach {address(host, port)}: {exc.strerror or exc}."
        ) from None
    if not der:
        raise EngineUnreachable(f"{address(host, port)} sent no certificate.")
    return der


def pinned_context(der: bytes) -> ssl.SSLContext:
    """A client context that trusts exactly this certificate (and checks nothing else: the
    certificate names no host a client could check it against)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_verify_locations(cadata=der)
    return ctx


def _read() -> dict[str, object]:
    return read_json_object(pins_path())

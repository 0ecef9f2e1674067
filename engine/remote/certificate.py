"""This machine's TLS identity: one self-signed certificate, made once and kept with Cove's data,
served by ``cove serve --lan`` and ``cove worker``. Clients pin its fingerprint on first use
(engine/remote/pins.py), as SSH pins a host key: no certificate authority is involved, so none
can be fooled into vouching for another machine.

The fingerprint is the SHA-256 of the certificate's DER bytes, written as colon-separated hex
pairs (what browsers and ``openssl x509 -fingerprint -sha256`` show).
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from engine.json_file import write_bytes_atomic
from engine.paths import data_dir

VALID_DAYS = 3650


@dataclass(frozen=True, slots=True)
class Identity:
    cert_path: Path
    key_path: Path
    fingerprint: str
    made: bool  # made by this call (the fingerprint is new: show it)


def tls_dir() -> Path:
    return data_dir() / "tls"


def fingerprint(der: bytes) -> str:
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def short(fp: str) -> str:
    """The first eight bytes, enough to compare by eye (the whole one is checked)."""
    return fp[:23]


def identity(folder: Path | None = None) -> Identity:
    """This machine's certificate and key, made on first use (the key file is 0600)."""
    folder = folder or tls_dir()
    cert_path, key_path = folder / "cove.crt", folder / "cove.key"
    made = False
    if not (cert_path.is_file() and key_path.is_file()):
        _make(cert_path, key_path)
        made = True
    return Identity(cert_path, key_path, fingerprint(_der(cert_path.read_bytes())), made)


def _der(pem: bytes) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    return x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)


def _make(cert_path: Path, key_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    host = socket.gethostname() or "localhost"
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Cove on {host}"[:64])])
    now = datetime.datetime.now(datetime.UTC)
    alt: list[x509.GeneralName] = [x509.DNSName("localhost")]
    if host != "localhost":
        alt.append(x509.DNSName(host))
    alt += [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "::1")]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        # Its own authority: a client that pins it trusts exactly this certificate.
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(cert_path.parent, 0o700)
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    write_bytes_atomic(key_path, key_bytes)  # 0600
    write_bytes_atomic(cert_path, cert.public_bytes(serialization.Encoding.PEM))

"""Bodies read straight off the socket (``engine.hub.socket_body``) against the loopback hub:
ranged bodies, kept-alive connections, a cut, a stall, a chunked body left to httpx, a proxy that
keeps everything on httpx, TLS verified against the CA bundle; and the durability rule of the
transfer that uses it: progress is saved only right after a flush."""

from __future__ import annotations

import datetime
import hashlib
import http.server
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.hub import transfer as transfer_module
from engine.hub.api import HubConfig, ssl_context
from engine.hub.download import DownloadRequest
from engine.hub.socket_body import SocketClient, SocketResponse
from engine.library.partial import save_state as partial_save_state
from tests.support.downloads import (
    FILE,
    PART,
    REPO,
    SIZE,
    WAIT_S,
    assert_installed,
    manager,
    pull,
)
from tests.support.fake_hub import FakeHub, Fault, random_bytes


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as fake:
        yield fake


@pytest.fixture
def data(hub: FakeHub) -> bytes:
    blob = random_bytes(SIZE)
    hub.add(REPO, FILE, blob)
    return blob


def client(read_timeout_s: float = 5.0, context: ssl.SSLContext | None = None) -> SocketClient:
    context = context or ssl.create_default_context()
    return SocketClient(context, connect_timeout_s=2.0, read_timeout_s=read_timeout_s)


def cdn_url(hub: FakeHub, data: bytes) -> str:
    return f"{hub.state.cdn_url}/cdn/{hashlib.sha256(data).hexdigest()}"


def read_all(got: SocketResponse, size: int = 256 << 10) -> bytes:
    buf = bytearray(size)
    view = memoryview(buf)
    out = bytearray()
    while n := got.readinto(view):
        out += view[:n]
    return bytes(out)


def test_a_ranged_body_comes_off_the_socket_and_the_connection_is_kept(
    hub: FakeHub, data: bytes
) -> None:
    wire = client()
    try:
        url = cdn_url(hub, data)
        with wire.get(url, {"Range": "bytes=1000-299999"}) as got:
            assert got.head.status_code == 206 and got.length == 299000
            assert read_all(got) == data[1000:300000]
        with wire.get(url, {"Range": f"bytes=300000-{SIZE - 1}"}) as got:
            assert read_all(got, 1 << 20) == data[300000:]
    finally:
        wire.close()
    first, second = hub.state.served
    assert first.peer == second.peer  # one connection, kept alive


def test_a_kept_alive_connection_the_server_dropped_is_replaced_quietly(
    hub: FakeHub, data: bytes
) -> None:
    wire = client()
    try:
        url = cdn_url(hub, data)
        with wire.get(url, {"Range": "bytes=0-999"}) as got:
            assert read_all(got) == data[:1000]
        (idle,) = wire._idle
        idle.sock.close()  # as if the server had closed it while idle
        with wire.get(url, {"Range": "bytes=1000-1999"}) as got:
            assert read_all(got) == data[1000:2000]
    finally:
        wire.close()


def test_a_cut_is_a_dropped_connection_after_the_bytes_before_it(hub: FakeHub, data: bytes) -> None:
    hub.fault(Fault("cut", offset=5000))
    wire = client()
    received = bytearray()
    view = memoryview(bytearray(64 << 10))
    try:
        with (
            wire.get(cdn_url(hub, data), {"Range": f"bytes=0-{SIZE - 1}"}) as got,
            pytest.raises(httpx.RemoteProtocolError),
        ):
            while n := got.readinto(view):
                received += view[:n]
    finally:
        wire.close()
    assert bytes(received) == data[:5000]


def test_a_silent_server_is_a_read_timeout(hub: FakeHub, data: bytes) -> None:
    hub.fault(Fault("stall", offset=5000))
    wire = client(read_timeout_s=0.5)
    try:
        with (
            wire.get(cdn_url(hub, data), {"Range": f"bytes=0-{SIZE - 1}"}) as got,
            pytest.raises(httpx.ReadTimeout),
        ):
            read_all(got)
    finally:
        wire.close()
        hub.state.closing.set()  # end the stalled answer


def test_a_chunked_body_is_left_to_httpx(hub: FakeHub, data: bytes, tmp_path: Path) -> None:
    hub.state.chunked = True
    wire = client()
    try:
        with wire.get(cdn_url(hub, data), {}) as got:
            assert got.head.status_code == 200 and got.length is None
    finally:
        wire.close()
    result = pull(hub, tmp_path)
    assert_installed(tmp_path, data, result)


def test_with_the_socket_reader_no_body_goes_through_httpx(
    hub: FakeHub, data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mgr = manager(hub, tmp_path)

    def no_stream(*args: object, **kwargs: object) -> Any:
        raise AssertionError("a body went through httpx")

    monkeypatch.setattr(mgr.hub.client, "stream", no_stream)
    try:
        result = mgr.enqueue(DownloadRequest(REPO, FILE)).wait(WAIT_S)
    finally:
        mgr.close()
    assert_installed(tmp_path, data, result)
    assert hub.state.bytes_served() == SIZE


@pytest.mark.parametrize(
    ("variable", "usable"),
    [
        ("HTTPS_PROXY", {"http": True, "https": False}),
        ("ALL_PROXY", {"http": False, "https": False}),
    ],
)
def test_a_proxy_in_the_environment_keeps_the_bodies_on_httpx(
    monkeypatch: pytest.MonkeyPatch, variable: str, usable: dict[str, bool]
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)
    wire = client()
    assert wire.usable("https://cdn.example/x") and wire.usable("http://cdn.example/x")
    monkeypatch.setenv(variable, "http://proxy.example:3128")
    for scheme, expected in usable.items():
        assert wire.usable(f"{scheme}://cdn.example/x") is expected


def test_saved_progress_never_runs_ahead_of_a_flush(
    hub: FakeHub, data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every progress file is written right after a flush of the data, by the same thread, and the
    flusher saves as the bytes arrive (every ``flush_bytes``), not only at the end."""
    events: list[tuple[int, str, int]] = []
    saved_midway = threading.Event()
    flush, save = transfer_module._flush, partial_save_state

    def logged_flush(fd: int) -> None:
        flush(fd)
        events.append((threading.get_ident(), "flush", 0))

    def logged_save(target: Path, state: Any) -> None:
        events.append((threading.get_ident(), "save", state.done_bytes))
        save(target, state)
        if 0 < state.done_bytes < SIZE:
            saved_midway.set()

    monkeypatch.setattr(transfer_module, "_flush", logged_flush)
    monkeypatch.setattr(transfer_module, "save_state", logged_save)
    hub.state.hold_from = PART * 3  # bytes past here wait until released
    mgr = manager(hub, tmp_path, save_interval_s=600.0, flush_bytes=PART)
    try:
        download = mgr.enqueue(DownloadRequest(REPO, FILE))
        assert saved_midway.wait(WAIT_S)
        hub.state.release.set()
        result = download.wait(WAIT_S)
    finally:
        hub.state.release.set()
        mgr.close()
    assert_installed(tmp_path, data, result)
    saves = [i for i, (_, kind, _) in enumerate(events) if kind == "save"]
    assert saves
    for i in saves:
        thread = events[i][0]
        before = [kind for t, kind, _ in events[:i] if t == thread]
        assert before and before[-1] == "flush"


# -- TLS -----------------------------------------------------------------------------------------


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signed for 127.0.0.1: (ca.pem, cert.pem, key.pem)."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Cove test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


BODY = random_bytes(300_000, seed=3)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    ca, cert, key = _certificates(tmp_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/file", ca
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_tls_is_verified_against_the_ca_bundle(tls_server: tuple[str, Path]) -> None:
    url, ca = tls_server
    trusting = client(context=ssl_context(HubConfig(ca_bundle=ca)))
    try:
        with trusting.get(url, {}) as got:
            assert read_all(got) == BODY
    finally:
        trusting.close()
    stranger = client(context=ssl_context(HubConfig()))  # the default trust store
    with pytest.raises(httpx.ConnectError) as failed:
        stranger.get(url, {})
    assert isinstance(failed.value.__cause__, ssl.SSLCertVerificationError)


def test_buffers_come_back_after_every_dropped_connection(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    """One connection, two buffers, more cuts than buffers: each stream that ends early gives its
    buffer back, so the next one still has buffers to read into."""
    for k in range(5):
        hub.fault(Fault("cut", offset=PART * (k + 1) + 1000 * (k + 1)))
    result = pull(hub, tmp_path, connections=1, buffers=2)
    assert_installed(tmp_path, data, result)
    assert result.retries == 5
    assert hub.state.bytes_served() == SIZE

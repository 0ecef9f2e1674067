"""TLS to the hub is always verified: a hub whose certificate the system does not trust is refused
with a message that says what to do, and the CA bundle setting (or SSL_CERT_FILE) makes it work,
for the file listings, the downloads from the CDN and the search through huggingface_hub. A
loopback hub and CDN serving HTTPS with a test CA (trustme)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

trustme = pytest.importorskip("trustme")

from engine.errors import NetworkUnavailable  # noqa: E402
from engine.hub.api import Hub, HubConfig, HubSettings  # noqa: E402
from engine.hub.download import DownloadManager, DownloadRequest  # noqa: E402
from engine.hub.search import search_hub  # noqa: E402
from tests.support.downloads import WAIT_S, options  # noqa: E402
from tests.support.fake_hub import FakeHub, random_bytes  # noqa: E402

REPO = "acme/Secure-GGUF"
FILE = "secure-Q4_K_M.gguf"


@pytest.fixture
def ca(tmp_path: Path) -> tuple[object, Path]:
    authority = trustme.CA()
    pem = tmp_path / "corporate-ca.pem"
    authority.cert_pem.write_to_path(str(pem))
    return authority, pem


@pytest.fixture
def hub(ca: tuple[object, Path]) -> Iterator[FakeHub]:
    import ssl

    authority, _pem = ca
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)  # type: ignore[attr-defined]
    with FakeHub(tls=context) as fake:
        fake.add(REPO, FILE, random_bytes(3 << 20, 9))
        yield fake


def test_an_untrusted_certificate_is_refused_with_what_to_do(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with (
        Hub(HubConfig(endpoint=hub.endpoint, connect_timeout_s=5)) as client,
        pytest.raises(NetworkUnavailable, match="could not be verified") as refused,
    ):
        client.list_files(REPO)
    assert "CA bundle" in str(refused.value)
    with pytest.raises(NetworkUnavailable, match="could not be verified"):
        search_hub(HubConfig(endpoint=hub.endpoint, connect_timeout_s=5), "secure")


def test_the_ca_bundle_setting_makes_listing_download_and_search_work(
    hub: FakeHub, ca: tuple[object, Path], tmp_path: Path
) -> None:
    _authority, pem = ca
    settings_file = tmp_path / "hub.json"
    HubSettings(ca_bundle=str(pem)).save(settings_file)
    assert stat.S_IMODE(settings_file.stat().st_mode) == 0o600
    config = HubConfig.resolve(
        HubSettings.load(settings_file), environ={"HF_ENDPOINT": hub.endpoint}
    )
    assert config.ca_bundle == pem
    with Hub(config) as client:
        assert [f.path for f in client.list_files(REPO)] == [FILE]
    manager = DownloadManager(config, models=tmp_path / "models", options=options())
    try:
        result = manager.enqueue(DownloadRequest(REPO, FILE)).wait(WAIT_S)
    finally:
        manager.close()
    assert result.status == "done", result.error
    assert [h.repo for h in search_hub(config, "secure")] == [REPO]


def test_ssl_cert_file_is_honoured_too(
    hub: FakeHub, ca: tuple[object, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _authority, pem = ca
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    config = HubConfig.resolve(HubSettings(), environ={**os.environ, "HF_ENDPOINT": hub.endpoint})
    with Hub(config) as client:
        assert [f.path for f in client.list_files(REPO)] == [FILE]


def test_a_missing_ca_bundle_is_named() -> None:
    config = HubConfig(endpoint="https://127.0.0.1:9", ca_bundle=Path("/nonexistent/ca.pem"))
    with pytest.raises(NetworkUnavailable, match=r"CA bundle /nonexistent/ca\.pem does not exist"):
        Hub(config)

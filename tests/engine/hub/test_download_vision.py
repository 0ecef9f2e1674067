"""A vision model's download against the loopback hub: the model GGUF and its projector fetched,
verified and installed side by side as one download, resumable, cancelled as one, and a projector
the hub lacks said before any byte is fetched."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.formats.gguf.projector import find_projector
from engine.hub.api import Hub, HubConfig
from engine.hub.download import DownloadRequest
from engine.hub.meta import Listing, build_files
from engine.hub.requests import requests_for
from engine.library.builds import is_installed, projector_path
from engine.library.catalog import Arch, CatalogModel, Variant
from engine.library.layout import partial_path, target_path
from engine.library.partial import list_partials
from tests.engine.vision_files import served
from tests.support.downloads import PART, WAIT_S, manager
from tests.support.fake_hub import FakeHub

REPO = "acme/tiny-vision-GGUF"
MODEL = "tiny-vision-Q4_K_M.gguf"
PROJECTOR = "mmproj-tiny-vision-f16.gguf"
VARIANT = Variant("gguf", REPO, file=MODEL, quant="Q4_K_M", projector=PROJECTOR)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, bytes]:
    return served(tmp_path / "src", MODEL, PROJECTOR)


@pytest.fixture
def hub(files: dict[str, bytes]) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        for name, blob in files.items():
            fake.add(REPO, name, blob)
        yield fake


def vision_request(hub: FakeHub) -> DownloadRequest:
    """The catalog build's request, from the hub's listing, as the window and cove pull make it."""
    with Hub(HubConfig(endpoint=hub.endpoint)) as client:
        listing = Listing(REPO, "main", 0.0, tuple(client.list_files(REPO)))
    model = _catalog_model()
    build = build_files(model, VARIANT, listing)
    (request,) = requests_for(VARIANT, build.files)
    return request


def _catalog_model() -> CatalogModel:
    arch = Arch(layers=8, heads=4, kv_heads=1, head_dim=64, embedding=128, ffn=256, vocab=4096)
    return CatalogModel(
        "tiny-vision", "Tiny Vision", "chat", "Acme", 0.01, 2048, "mit", "Tests.", (VARIANT,), arch
    )


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_model_and_its_projector_are_one_verified_install_side_by_side(
    hub: FakeHub, files: dict[str, bytes], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    request = vision_request(hub)
    assert request.file == MODEL and request.projector == PROJECTOR
    assert request.projector_sha256 == digest(files[PROJECTOR])  # from the listing
    mgr = manager(hub, models)
    try:
        result = mgr.enqueue(request).wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "done", result.error
    model, projector = target_path(models, REPO, MODEL), target_path(models, REPO, PROJECTOR)
    assert result.path == model and result.projector == projector
    assert projector.parent == model.parent
    assert digest(model.read_bytes()) == digest(files[MODEL])
    assert digest(projector.read_bytes()) == digest(files[PROJECTOR])
    # One download counts both files, each fetched once.
    total = len(files[MODEL]) + len(files[PROJECTOR])
    assert result.total_bytes == result.done_bytes == total
    assert hub.state.bytes_served() == total
    assert result.to_dict()["projector"] == str(projector)
    # What the engine will load with the model, and what the catalog sees as installed.
    assert find_projector(model) == projector
    assert is_installed(models, VARIANT) and projector_path(models, VARIANT) == projector
    assert list_partials(models) == []


def test_a_projector_missing_on_the_hub_fails_the_install_before_any_byte(
    hub: FakeHub, files: dict[str, bytes], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    request = DownloadRequest(REPO, MODEL, projector="mmproj-gone-f16.gguf")
    mgr = manager(hub, models)
    try:
        result = mgr.enqueue(request).wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "failed" and result.error_code == "hub_not_found"
    assert result.error is not None
    assert "vision projector" in result.error and "mmproj-gone-f16.gguf" in result.error
    assert f"download {REPO}/{MODEL} by itself" in result.error  # the model for text alone
    assert hub.state.bytes_served() == 0
    assert not target_path(models, REPO, MODEL).exists()
    assert list_partials(models) == []
    # The catalog's listing says the same before a download is even queued.
    with Hub(HubConfig(endpoint=hub.endpoint)) as client:
        listing = Listing(REPO, "main", 0.0, tuple(client.list_files(REPO)))
    gone = Variant("gguf", REPO, file=MODEL, quant="Q4_K_M", projector="mmproj-gone-f16.gguf")
    build = build_files(_catalog_model(), gone, listing)
    assert build.files == () and build.missing is not None and "projector" in build.missing


def test_a_paused_install_resumes_without_fetching_a_finished_file_again(
    hub: FakeHub, files: dict[str, bytes], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    first = len(files[PROJECTOR])
    hub.state.hold_from = PART * 2  # the model's bytes past here wait (the projector is smaller)
    mgr = manager(hub, models)
    try:
        download = mgr.enqueue(vision_request(hub))
        with download._cond:
            download._cond.wait_for(
                lambda: download._progress.done_bytes >= first + PART * 2, WAIT_S
            )
        download.pause()
        hub.state.release.set()
        paused = download.wait(WAIT_S)
        assert paused.status == "paused"
        projector = target_path(models, REPO, PROJECTOR)
        assert projector.is_file() and not target_path(models, REPO, MODEL).exists()
        assert not is_installed(models, VARIANT)  # not until both files are there
        (partial,) = list_partials(models)
        assert partial.file == MODEL
        before = hub.state.bytes_served()
        hub.state.hold_from = None
        download.resume()
        result = download.wait(WAIT_S)
        while result.status == "queued":  # wait() may see the resume's own queued state
            result = download.wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "done", result.error
    assert result.resumed_bytes >= first + partial.downloaded_bytes
    assert hub.state.bytes_served() - before <= len(files[MODEL]) - partial.downloaded_bytes
    assert digest(target_path(models, REPO, MODEL).read_bytes()) == digest(files[MODEL])
    assert is_installed(models, VARIANT)


def test_cancel_removes_the_projector_it_installed_and_the_partial_model(
    hub: FakeHub, files: dict[str, bytes], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    hub.state.hold_from = PART * 2
    mgr = manager(hub, models)
    try:
        download = mgr.enqueue(vision_request(hub))
        first = len(files[PROJECTOR])
        with download._cond:
            download._cond.wait_for(
                lambda: download._progress.done_bytes >= first + PART * 2, WAIT_S
            )
        download.cancel()
        hub.state.release.set()
        result = download.wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "cancelled"
    model = target_path(models, REPO, MODEL)
    assert not model.exists() and not partial_path(model).exists()
    assert not target_path(models, REPO, PROJECTOR).exists()
    assert list_partials(models) == []


def test_a_model_installed_alone_gets_only_its_projector(
    hub: FakeHub, files: dict[str, bytes], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    mgr = manager(hub, models)
    try:
        alone = mgr.enqueue(DownloadRequest(REPO, MODEL)).wait(WAIT_S)
        assert alone.status == "done" and alone.projector is None
        assert not is_installed(models, VARIANT)
        before = hub.state.bytes_served()
        result = mgr.enqueue(vision_request(hub)).wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "done", result.error
    assert hub.state.bytes_served() - before == len(files[PROJECTOR])
    assert is_installed(models, VARIANT)

"""Download managers pointed at the fake hub, with short waits (a guard against a hang, not a
measurement): the one file the download tests fetch, the transfer options they change, and the
check that it arrived whole and was installed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from engine.hub.api import HubConfig
from engine.hub.download import DownloadManager, DownloadProgress, DownloadRequest
from engine.hub.retry import Backoff
from engine.hub.transfer import TransferOptions
from engine.library.layout import partial_path, state_path, target_path
from tests.support.fake_hub import FakeHub

REPO = "acme/tiny-GGUF"
FILE = "tiny.Q4_K_M.gguf"
PART = 256 << 10
SIZE = 2 * 1024 * 1024 + 12345  # nine parts, the last one short
WAIT_S = 60.0  # a guard against a hang, not a measurement


def make_manager(hub: FakeHub) -> Callable[[], DownloadManager]:
    options = TransferOptions(
        connections=4,
        part_size=PART,
        save_interval_s=0.05,
        tick_s=0.05,
        disk_margin=0,
        backoff=Backoff(attempts=3, base_s=0.05, cap_s=0.2),
    )
    config = HubConfig(endpoint=hub.endpoint, read_timeout_s=5.0, connect_timeout_s=2)
    return lambda: DownloadManager(config, options=options)


def options(**changes: object) -> TransferOptions:
    base: dict[str, object] = {
        "connections": 4,
        "part_size": PART,
        "save_interval_s": 0.05,
        "tick_s": 0.05,
        "crawl_grace_s": 0.3,
        "disk_margin": 0,
        "backoff": Backoff(attempts=4, base_s=0.05, cap_s=0.2),
    }
    base.update(changes)
    return TransferOptions(**base)  # type: ignore[arg-type]


def manager(
    hub: FakeHub, models: Path, token: str | None = None, **changes: object
) -> DownloadManager:
    free = changes.pop("free_space", None)
    config = HubConfig(endpoint=hub.endpoint, token=token, read_timeout_s=1.0, connect_timeout_s=2)
    kwargs: dict[str, object] = {"models": models, "options": options(**changes)}
    if free is not None:
        kwargs["free_space"] = free
    return DownloadManager(config, **kwargs)  # type: ignore[arg-type]


def pull(
    hub: FakeHub, models: Path, request: DownloadRequest | None = None, **kw: object
) -> DownloadProgress:
    mgr = manager(hub, models, **kw)  # type: ignore[arg-type]
    try:
        return mgr.enqueue(request or DownloadRequest(REPO, FILE)).wait(WAIT_S)
    finally:
        mgr.close()


def installed(models: Path) -> Path:
    return target_path(models, REPO, FILE)


def assert_installed(models: Path, data: bytes, result: DownloadProgress) -> None:
    assert result.status == "done", result.error
    path = installed(models)
    assert result.path == path
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(data).digest()
    assert not partial_path(path).exists() and not state_path(path).exists()

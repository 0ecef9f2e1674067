"""A download manager pointed at the fake hub, with short waits (a guard against a hang, not a
measurement)."""

from __future__ import annotations

from collections.abc import Callable

from engine.hub.api import HubConfig
from engine.hub.download import DownloadManager
from engine.hub.retry import Backoff
from engine.hub.transfer import TransferOptions
from tests.support.fake_hub import FakeHub

PART = 256 << 10


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

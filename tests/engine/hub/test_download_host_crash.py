"""A download keeps going when the engine host dies under it, and while a new host starts: the
download manager runs in the process that asked for it (the window, ``cove pull``), never in the
host. A real host process, a real SIGKILL, the loopback hub holding the transfer half way."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from engine.client.local import LocalEngine
from engine.hub.download import DownloadRequest
from tests.support.downloads import FILE, PART, REPO, SIZE, WAIT_S, assert_installed, manager
from tests.support.fake_hub import FakeHub, random_bytes


@pytest.mark.slow
def test_a_download_survives_the_engine_host_being_killed_and_restarted(tmp_path: Path) -> None:
    data = random_bytes(SIZE, seed=7)
    engine = LocalEngine.start(log_path=tmp_path / "engine.log")
    try:
        with FakeHub() as hub:
            hub.add(REPO, FILE, data)
            hub.state.hold_from = PART * 3  # the transfer waits here until released
            mgr = manager(hub, tmp_path / "models")
            try:
                download = mgr.enqueue(DownloadRequest(REPO, FILE))
                with download._cond:
                    download._cond.wait_for(
                        lambda: download._progress.done_bytes >= PART * 3, WAIT_S
                    )
                pid = engine.pid
                assert pid is not None
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)  # reaped here: the host is gone
                assert not engine.alive()
                assert download.progress().status == "downloading"
                engine.restart()  # what the window's Restart does
                assert engine.alive() and engine.pid != pid
                hub.state.release.set()
                result = download.wait(WAIT_S)
                assert engine.client.status() is not None
            finally:
                mgr.close()
    finally:
        engine.stop()
    assert_installed(tmp_path / "models", data, result)

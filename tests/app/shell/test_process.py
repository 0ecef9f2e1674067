"""The window as a process: the self-test packaging runs, first paint, and the app dying
mid-reply."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.app.conftest import QUICK_MS, REPLY_TIMEOUT_MS, WindowFactory
from tests.orphans import kill_and_expect_ended, listening_ports

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

ROOT = Path(__file__).resolve().parents[3]


def cove(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", *args]


def env_for(data: Path) -> dict[str, str]:
    return dict(os.environ, COVE_DATA_DIR=str(data), QT_QPA_PLATFORM="offscreen")


def last_json(text: str) -> dict[str, object]:
    lines = [line for line in text.splitlines() if line.startswith("{")]
    assert lines, f"no JSON report in: {text!r}"
    report = json.loads(lines[-1])
    assert isinstance(report, dict)
    return report


def test_first_paint_is_reported(tmp_path: Path) -> None:
    out = subprocess.run(
        cove("--exit-after-paint"),
        cwd=ROOT,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = last_json(out.stdout)
    assert report["ok"] is True and 0 < float(str(report["window_shown_s"])) < 60


@pytest.mark.slow
def test_self_test_sends_through_the_ui(tmp_path: Path, starter: Path) -> None:
    shot = tmp_path / "shot.png"
    out = subprocess.run(
        cove("--self-test", "--screenshot", str(shot), "--prompt", "Say hello."),
        cwd=ROOT,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = last_json(out.stdout)
    assert out.returncode == 0 and report["ok"] is True, (report, out.stderr[-2000:])
    for key in ("window_shown_s", "ttft_s", "reply_chars", "max_ui_stall_ms"):
        assert key in report
    assert int(str(report["reply_chars"])) > 0
    assert shot.stat().st_size > 10_000


@pytest.mark.slow
def test_the_app_dies_mid_reply_and_the_reply_is_kept(
    qtbot: QtBot, make_window: WindowFactory, data_dir: Path, starter: Path
) -> None:
    from engine.store import Store

    data_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        cove(
            "--self-test",
            "--prompt",
            "Write a long story about a lighthouse keeper and her cat.",
        ),
        cwd=ROOT,
        env=env_for(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    saved = ""
    try:
        # Wait until the reply is being written and some of it is saved, then kill the app.
        def streaming() -> None:
            nonlocal saved
            assert proc.poll() is None, "the app exited before it could be killed"
            assert (data_dir / "cove.sqlite3").exists()
            with Store() as store:
                replies = [
                    m
                    for c in store.list_conversations()
                    for m in store.messages(c.id)
                    if m.role == "assistant"
                ]
            assert replies and replies[-1].status == "streaming" and replies[-1].content
            saved = replies[-1].content

        qtbot.waitUntil(streaming, timeout=REPLY_TIMEOUT_MS)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the app and the engine host it started
        proc.wait(30)

    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: len(window.view.messages) == 2, timeout=QUICK_MS)
    user, reply = window.view.messages
    assert user.text.startswith("Write a long story")
    assert reply.status == "interrupted" and reply.text.startswith(saved)
    assert reply.badge.text() == "Interrupted" and not reply.badge.isHidden()


def test_a_killed_window_takes_its_engine_host_with_it(qtbot: QtBot, tmp_path: Path) -> None:
    """The window ended with SIGKILL of its own process (not its group, as the system or a task
    manager ends it): the engine host it started ends too, and nothing is left listening."""
    import psutil

    proc = subprocess.Popen(
        cove("--self-test", "--prompt", "Write a long story about a lighthouse keeper."),
        cwd=ROOT,
        env=env_for(tmp_path / "data"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    hosts: list[psutil.Process] = []
    ports: list[int] = []
    try:

        def serving() -> None:
            assert proc.poll() is None, "the app exited before it could be killed"
            children = psutil.Process(proc.pid).children()
            found = [p for p in children if "engine.host" in " ".join(p.cmdline())]
            listening = [port for p in found for port in listening_ports(p)]
            assert found and listening
            hosts[:], ports[:] = found, listening

        qtbot.waitUntil(serving, timeout=REPLY_TIMEOUT_MS)
        kill_and_expect_ended(proc, hosts, ports)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)

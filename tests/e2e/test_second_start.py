"""One Cove per data folder, seen from outside: with the real window open under a virtual X
server, a second ``cove FILE`` on the same data folder ends at once, saying the window was brought
to the front; the accessibility bus still shows one application named Cove, one engine host
serves the folder, and the file is in the first window's message box.

Driven by tests/e2e/atspi_second_start.py in the system's Python; skipped where the machine has
no X server, D-Bus session or AT-SPI, as tests/e2e/test_accessibility.py is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.run_driver import DRIVE_TIMEOUT_S, SYSTEM_PYTHON, launcher

DRIVER = Path(__file__).with_name("atspi_second_start.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="AT-SPI is Linux's"),
]


def test_a_second_start_leaves_one_window_and_one_engine(tmp_path: Path, starter: Path) -> None:
    from PIL import Image

    bus_launcher = launcher()
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    image = tmp_path / "harbour.png"
    Image.new("RGB", (64, 48), (0, 128, 128)).save(image)
    sockets = tmp_path / "tmp"  # the window's local socket, and what a killed one leaves
    sockets.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "COVE_DATA_DIR": str(home / "data"),
        "TMPDIR": str(sockets),
    }
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("DISPLAY", None)
    report_path = tmp_path / "report.json"
    ran = subprocess.run(
        [
            "dbus-run-session",
            "--",
            SYSTEM_PYTHON,
            str(DRIVER),
            str(report_path),
            sys.executable,
            bus_launcher,
            str(image),
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        timeout=DRIVE_TIMEOUT_S,
        check=False,
        capture_output=True,
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    if "skip" in report:
        pytest.skip(report["skip"])
    said = ran.stderr.decode(errors="replace")[-3000:]
    assert report.get("ok"), f"{report.get('error')}\n{json.dumps(report, indent=1)}\n{said}"
    second = report["second start"]
    assert second["code"] == 0, second
    assert (
        "Cove is already open on this data folder; it was brought to the front." in second["said"]
    )
    assert report["attached"] == "harbour.png"
    assert report["applications named Cove"] == 1
    assert report["engine hosts"] == 1

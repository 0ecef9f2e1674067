"""Cove's window driven through AT-SPI by a driver script of this folder (atspi_*.py): the driver
runs in the system's Python (which has pyatspi), in a D-Bus session of its own with the
accessibility bus's launcher found here, and reports what it heard as JSON. A machine without
the X server, D-Bus or AT-SPI skips the test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.prerequisites import missing as prerequisite

SYSTEM_PYTHON = "/usr/bin/python3"
LAUNCHERS = (
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    "/usr/lib/at-spi2/at-spi-bus-launcher",
)
DRIVE_TIMEOUT_S = 900


def launcher() -> str:
    """The accessibility bus's launcher; skips the test where the window cannot be driven (no
    X server, D-Bus session, AT-SPI or pyatspi in the system's Python)."""
    missing = [tool for tool in ("Xvfb", "dbus-run-session") if shutil.which(tool) is None]
    if missing:
        prerequisite(f"{', '.join(missing)} not installed")
    found = next((p for p in LAUNCHERS if os.access(p, os.X_OK)), None)
    if found is None:
        prerequisite("at-spi2-core (the accessibility bus) not installed")
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        prerequisite("the system Python has no pyatspi (python3-pyatspi)")
    return found


def drive(driver: Path, tmp_path: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    """Run ``driver`` (a script of this folder) in the system's Python in a D-Bus session with
    ``args`` after its report, app Python and bus launcher; its report, once it said ``ok`` (a
    machine that cannot show the window skips)."""
    bus_launcher = launcher()
    env = dict(env)
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("DISPLAY", None)
    report_path = tmp_path / "report.json"
    ran = subprocess.run(
        [
            "dbus-run-session",
            "--",
            SYSTEM_PYTHON,
            str(driver),
            str(report_path),
            sys.executable,
            bus_launcher,
            *args,
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        timeout=DRIVE_TIMEOUT_S,
        check=False,
        capture_output=True,
    )
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    if "skip" in report:
        pytest.skip(report["skip"])
    said = ran.stderr.decode(errors="replace")[-3000:]
    assert report.get("ok"), f"{report.get('error')}\n{json.dumps(report, indent=1)}\n{said}"
    return report

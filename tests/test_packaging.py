"""The Linux desktop entry installs a launcher that points at this checkout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_desktop_entry_points_at_the_environment(tmp_path: Path) -> None:
    if not (ROOT / ".venv" / "bin" / "cove").exists():
        pytest.skip("no .venv/bin/cove: run `make setup`")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    script = ROOT / "packaging" / "linux" / "install-desktop-entry.sh"
    subprocess.run(["bash", str(script)], check=True, env=env, capture_output=True)
    entry = (tmp_path / "applications" / "cove.desktop").read_text()
    assert f"Exec={ROOT}/.venv/bin/cove" in entry
    assert f"Icon={ROOT}/assets/icons/cove.svg" in entry
    assert "@" not in entry

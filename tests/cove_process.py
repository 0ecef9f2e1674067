"""``cove`` as a user runs it: a process of its own, in the project's folder, with the environment
a test gives it (its data folder, its hub)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cove(
    env: Mapping[str, str], *args: str, timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        env=dict(env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )

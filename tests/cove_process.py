"""``cove`` as a user runs it: a process of its own, in the project's folder, with the environment
a test gives it (its data folder, its hub) or the test's own."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from engine.launch import child_env

ROOT = Path(__file__).resolve().parents[1]


def run_cove(
    env: Mapping[str, str], *args: str, timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        env=child_env(env),  # it ends with the test run, however that ends
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def cove(
    *args: str, stdin: str | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``cove ARGS`` with the test's own environment, ``stdin`` its input."""
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=timeout,
    )

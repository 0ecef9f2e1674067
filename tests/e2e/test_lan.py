"""``cove serve --lan`` reached at a network address, not loopback, in a network namespace made
for the test: the key works, the fingerprint the client pins is the one the server printed, and
ten wrong keys from that address lock it out (even with the right key) for a minute."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.netns import can_unshare

ROOT = Path(__file__).resolve().parents[2]


def test_lan_address_key_fingerprint_and_lockout() -> None:
    reason = can_unshare()
    if reason is not None:
        pytest.skip(reason)
    out = subprocess.run(
        ["unshare", "-n", sys.executable, "-m", "tests.e2e.lan_check"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert "https://0.0.0.0:" in seen["listening"]
    assert seen["fingerprint_pinned"] == seen["fingerprint_printed"]
    assert seen["models"] >= 1  # nothing loaded; the installed starter is listed
    assert seen["refusals"] == ["EngineAuthError"] * 10
    assert seen["after"].startswith("locked out: Too many requests from 10.99.0.1")

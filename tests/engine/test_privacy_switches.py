"""Every telemetry opt-out is set by importing ``engine``, forced over what the shell says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.privacy import TELEMETRY_OFF, apply

ROOT = Path(__file__).resolve().parents[2]


def test_apply_forces_every_switch() -> None:
    env = {"ORT_DISABLE_TELEMETRY": "0", "PATH": "/bin"}
    apply(env)
    assert env["ORT_DISABLE_TELEMETRY"] == "1"
    assert env["HF_HUB_DISABLE_TELEMETRY"] == "1"
    assert env["PATH"] == "/bin"


def test_any_engine_import_sets_them_before_a_runtime_loads() -> None:
    # A user's shell asking for telemetry, and a module deep in the engine imported first.
    code = (
        "import json, os, sys\n"
        "import engine.native.ort as o\n"
        "assert 'onnxruntime' not in sys.modules\n"
        "o.import_onnxruntime()\n"
        f"print(json.dumps({{k: os.environ.get(k) for k in {sorted(TELEMETRY_OFF)!r}}}))\n"
    )
    env = dict(os.environ, ORT_DISABLE_TELEMETRY="0", HF_HUB_DISABLE_TELEMETRY="0")
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == TELEMETRY_OFF


def test_the_app_package_sets_them_too() -> None:
    code = "import os, app; print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    env = {k: v for k, v in os.environ.items() if k not in TELEMETRY_OFF}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "1", out.stderr

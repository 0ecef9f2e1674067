"""Background measuring turned off and on through the engine's API, kept in the data folder for
later starts, and off for one run with ``--no-background-measuring`` (a real engine host)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from engine.client.local import LocalEngine


def post(engine: LocalEngine, body: object) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{engine.port}/cove/v1/background",
        headers={"Authorization": f"Bearer {engine._token}"},
        json=body,
        timeout=60,
    )


def test_turned_off_it_stays_off_for_later_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
    engine = LocalEngine.start(log_path=tmp_path / "one.log", ready_timeout=120)
    try:
        assert engine.client.status().background_measuring is True
        status = engine.client.set_background_measuring(False)
        assert status.background_measuring is False
        assert post(engine, {"measuring": "no"}).status_code == 400  # a clear error
        assert post(engine, []).status_code == 400
    finally:
        engine.stop()
        engine.client.close()
    kept = json.loads((tmp_path / "data" / "tuning.json").read_text())
    assert kept["background"] == {"measuring": False}
    again = LocalEngine.start(log_path=tmp_path / "two.log", ready_timeout=120)
    try:
        assert again.client.status().background_measuring is False  # read back at start
        assert again.client.set_background_measuring(True).background_measuring is True
    finally:
        again.stop()
        again.client.close()


def test_off_for_one_run_cannot_be_turned_on_from_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
    engine = LocalEngine.start(
        log_path=tmp_path / "e.log", ready_timeout=120, extra_args=("--no-background-measuring",)
    )
    try:
        assert engine.client.status().background_measuring is False
        refused = post(engine, {"measuring": True})
        assert refused.status_code == 400
        assert "--no-background-measuring" in refused.text
    finally:
        engine.stop()
        engine.client.close()

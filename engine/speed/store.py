"""``speed.json`` in the data folder: the probe's figures per machine, the models measured here
(observations, by model file), and the comfortable reply speed the recommendation aims for.

Reading it imports no runtime (the window reads it); probing lives in engine/speed/machine.py.
Each change is read, made and written under the file's lock (engine/instance.py): the window's
engine and a ``cove serve`` on the same data folder never lose each other's.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.hardware.speed_profile import DeviceSpeed, SpeedProfile
from engine.instance import update_lock
from engine.json_file import write_json_atomic
from engine.speed.calibrate import Observation

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

log = logging.getLogger(__name__)

FILENAME = "speed.json"
VERSION = 1
DEFAULT_COMFORTABLE_TPS = 10.0
_lock = threading.Lock()


class SpeedStore:
    def __init__(self, path: Path | None = None) -> None:
        from engine.paths import data_dir

        self.path = path or data_dir() / FILENAME

    def _read(self) -> dict[str, Any]:
        empty: dict[str, Any] = {"version": VERSION, "machines": {}, "observations": {}}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return empty
        except (OSError, ValueError) as exc:
            log.warning("%s is unreadable (%s); probing again", self.path, exc)
            return empty
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return empty
        for key in ("machines", "observations"):
            if not isinstance(data.get(key), dict):
                data[key] = {}
        return data

    def _write(self, data: dict[str, Any]) -> None:
        write_json_atomic(self.path, data)

    # -- the probe's figures --------------------------------------------------------------

    def devices(self, machine: str) -> tuple[tuple[DeviceSpeed, ...], dict[str, Any]] | None:
        with _lock:
            entry = self._read()["machines"].get(machine)
        if not isinstance(entry, dict):
            return None
        try:
            profile = SpeedProfile.from_dict({"devices": entry["devices"]})
        except (KeyError, TypeError, ValueError):
            return None
        return profile.devices, entry

    def save_devices(
        self, machine: str, devices: tuple[DeviceSpeed, ...], provisional: bool, others: float
    ) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            now = time.time()
            data["machines"][machine] = {
                **SpeedProfile(devices).to_dict(),
                "provisional": provisional,
                "others_cpu": round(others, 3),
                "measured_at": now,
                "checked_at": now,
            }
            self._write(data)

    def mark_checked(self, machine: str) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            entry = data["machines"].get(machine)
            if isinstance(entry, dict):
                entry["checked_at"] = time.time()
                self._write(data)

    # -- measured models ------------------------------------------------------------------

    def _observations(self, machine: str, section: str) -> dict[str, Observation]:
        with _lock:
            entries = self._read()["observations"].get(machine, {}).get(section, {})
        found: dict[str, Observation] = {}
        for path, entry in entries.items() if isinstance(entries, dict) else ():
            try:
                found[path] = Observation.from_dict(entry)
            except (KeyError, TypeError, ValueError):
                continue
        return found

    def _save(self, machine: str, section: str, path: Path, obs: Observation) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            mine = data["observations"].setdefault(machine, {})
            mine.setdefault(section, {})[str(path.resolve())] = obs.to_dict()
            self._write(data)

    def calibrating(self, machine: str) -> dict[str, Observation]:
        """The observations the calibration is fitted to, by model file."""
        return self._observations(machine, "calibration")

    def measured(self, machine: str) -> dict[str, Observation]:
        """Each model's latest measured speed here, by model file."""
        return self._observations(machine, "latest")

    def record_observation(self, report: HardwareReport, path: Path, obs: Observation) -> None:
        from engine.tuning.store import machine_key

        self._save(machine_key(report), "calibration", path, obs)

    def record_measured(self, report: HardwareReport, path: Path, obs: Observation) -> None:
        from engine.tuning.store import machine_key

        self._save(machine_key(report), "latest", path, obs)

    # -- the setting ----------------------------------------------------------------------

    def comfortable_tps(self) -> float:
        with _lock:
            value = self._read().get("comfortable_decode_tps")
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
        return DEFAULT_COMFORTABLE_TPS

    def set_comfortable_tps(self, value: float) -> None:
        if not value > 0:
            raise ValueError("a comfortable speed must be above 0 tokens/s")
        with _lock, update_lock(self.path):
            data = self._read()
            data["comfortable_decode_tps"] = float(value)
            self._write(data)

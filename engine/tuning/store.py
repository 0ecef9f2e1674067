"""Measurements and the user's overrides, kept in ``tuning.json`` in the data folder.

A measurement belongs to this machine (its processor, GPUs and their drivers), this build of the
model (its path, size and modification time) and these runtimes' versions: a change to any of
them measures again. An override names the way to run one model, whatever was measured.

Several processes write it (the window's engine, ``cove serve``, ``cove tune``): each change is
read, made and written under the file's lock (engine/instance.py), so none is lost.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.instance import update_lock
from engine.json_file import write_json_atomic
from engine.tuning.configs import Config
from engine.tuning.figures import Measurement
from engine.tuning.retry import Retries

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

log = logging.getLogger(__name__)

FILENAME = "tuning.json"
# 2: each way's runs, interleaved with the other ways', and the machine's load meanwhile. The
# single runs of version 1 were taken one way after the other, whatever else the machine did:
# they are measured again (the user's overrides are kept).
# 3: each run also reads a prompt deep in the context (a turn reads 1,024 tokens at depth,
# engine/tuning/figures.py). Version 2's runs did not: the ways are measured again; the user's
# overrides and everything else in the file are kept.
VERSION = 3
_lock = threading.Lock()


def machine_key(report: HardwareReport) -> str:
    """This machine as it matters for speed: processor, GPUs and drivers, runtimes."""
    parts = [
        report.os,
        report.cpu.model,
        str(report.cpu.physical_cores),
        *(f"{g.name}/{g.driver}/{g.total_bytes}" for g in report.gpus),
        f"llama.cpp {report.llama_cpp.version}",
        f"onnxruntime {report.ort.version}",
        _genai_version(),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def build_key(path: Path) -> str:
    """A model build as it is on disk: a GGUF file, or an ONNX folder's files."""
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    parts = [str(path.resolve())]
    for f in files:
        if f.is_file():
            stat = f.stat()
            parts.append(f"{f.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _genai_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"onnxruntime-genai {version('onnxruntime-genai')}"
    except PackageNotFoundError:
        return "onnxruntime-genai none"


class TuningStore:
    def __init__(self, path: Path | None = None) -> None:
        from engine.paths import data_dir

        self.path = path or data_dir() / FILENAME

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return _empty()
        except (OSError, ValueError) as exc:
            log.warning("%s is unreadable (%s); measuring again", self.path, exc)
            return _empty()
        if not isinstance(data, dict) or data.get("version") not in (1, 2, VERSION):
            return _empty()
        if data["version"] == 1:
            overrides = data.get("overrides")
            kept = overrides if isinstance(overrides, dict) else {}
            data = {"version": VERSION, "measurements": {}, "overrides": kept}
        elif data["version"] == 2:
            data = {**data, "version": VERSION, "measurements": {}}
        data.setdefault("measurements", {})
        data.setdefault("overrides", {})
        for part in ("batching", "retries", "background"):
            if not isinstance(data.get(part), dict):
                data[part] = {}
        return data

    def _write(self, data: dict[str, Any]) -> None:
        write_json_atomic(self.path, data)

    def measurement(self, machine: str, build: str, config: Config) -> Measurement | None:
        with _lock:
            entry = self._read()["measurements"].get(_entry_key(machine, build, config))
        if not isinstance(entry, dict):
            return None
        try:
            return Measurement.from_dict(entry, config)
        except (KeyError, TypeError, ValueError):
            return None

    def save(self, machine: str, build: str, measurement: Measurement) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            key = _entry_key(machine, build, measurement.config)
            data["measurements"][key] = measurement.to_dict()
            self._write(data)

    def batching(self, machine: str, key: str) -> dict[str, Any] | None:
        """How many replies at once paid for one model's way here, as engine/tuning/batching.py
        kept it."""
        with _lock:
            entry = self._read()["batching"].get(f"{machine}:{key}")
        return entry if isinstance(entry, dict) else None

    def save_batching(self, machine: str, key: str, entry: dict[str, Any]) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            data["batching"][f"{machine}:{key}"] = entry
            self._write(data)

    def retries(self, key: str) -> Retries:
        """The failed tries of one piece of idle work (engine/tuning/retry.py)."""
        with _lock:
            entry = self._read()["retries"].get(key)
        try:
            return Retries.from_dict(entry) if isinstance(entry, dict) else Retries()
        except (KeyError, TypeError, ValueError):
            return Retries()

    def save_retries(self, key: str, retries: Retries) -> None:
        """Keep ``retries`` for ``key``; a clean record (it succeeded) is dropped."""
        with _lock, update_lock(self.path):
            data = self._read()
            if retries.failures:
                data["retries"][key] = retries.to_dict()
            elif data["retries"].pop(key, None) is None:
                return
            self._write(data)

    def background_measuring(self) -> bool:
        """Whether the engine measures in the background when the computer is idle (on unless
        turned off)."""
        with _lock:
            value = self._read()["background"].get("measuring", True)
        return value is not False

    def set_background_measuring(self, on: bool) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            data["background"]["measuring"] = bool(on)
            self._write(data)

    def measured(self, machine: str) -> dict[str, list[Measurement]]:
        """This machine's measurements, by model (builds of one model together)."""
        from engine.tuning.configs import model_family

        with _lock:
            entries = self._read()["measurements"]
        found: dict[str, list[Measurement]] = {}
        for key, entry in entries.items():
            if not key.startswith(machine + ":") or not isinstance(entry, dict):
                continue
            try:
                raw = entry["config"]
                config = Config(
                    str(raw["path"]),
                    str(raw["backend"]),
                    str(raw["device"]),
                    int(raw["gpu_layers"]),
                    bool(raw["flash_attn"]),
                )
                m = Measurement.from_dict(entry, config)
            except (KeyError, TypeError, ValueError):
                continue
            found.setdefault(model_family(Path(config.path)), []).append(m)
        return found

    def overrides(self) -> dict[str, str]:
        with _lock:
            data = self._read()["overrides"]
        return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}

    def override(self, model: Path) -> str | None:
        with _lock:
            value = self._read()["overrides"].get(str(model.resolve()))
        return value if isinstance(value, str) else None

    def set_override(self, model: Path, label: str | None) -> None:
        with _lock, update_lock(self.path):
            data = self._read()
            if label is None:
                data["overrides"].pop(str(model.resolve()), None)
            else:
                data["overrides"][str(model.resolve())] = label
            self._write(data)


def _empty() -> dict[str, Any]:
    return {
        "version": VERSION,
        "measurements": {},
        "overrides": {},
        "batching": {},
        "retries": {},
        "background": {},
    }


def _entry_key(machine: str, build: str, config: Config) -> str:
    return f"{machine}:{build}:{config.key}"

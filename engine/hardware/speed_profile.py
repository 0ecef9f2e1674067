"""This machine's speed, as plain data: each device's memory bandwidth and arithmetic rate (the
probe's figures, ``engine/hardware/benchmarks.py``), and each runtime's calibration on each kind of
device (what models that ran here actually reached, ``engine/speed/calibrate.py``).

It travels inside the hardware report (``HardwareReport.speed``), so that the app reads the
same figures the engine measured without measuring anything itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

# How a device's figures were found.
MEASURED, DRIVER, TABLE, ESTIMATED = "measured", "driver", "table", "estimated"


@dataclass(frozen=True, slots=True)
class DeviceSpeed:
    """One device's raw speed."""

    key: str  # "cpu", "gpu0", "npu"
    name: str
    kind: str  # "cpu" / "gpu" / "npu"
    bandwidth: float  # bytes per second its memory delivers
    flops: float  # arithmetic operations per second
    basis: str  # MEASURED / DRIVER / TABLE / ESTIMATED

    def bandwidth_words(self) -> str:
        how = {MEASURED: "measured", DRIVER: "the driver's figure", TABLE: "the chip's figure"}
        return f"{self.bandwidth / 1e9:.0f} GB/s memory ({how.get(self.basis, 'estimated')})"


@dataclass(frozen=True, slots=True)
class Calibration:
    """One runtime on one kind of device: seconds per unit of each cost in the speed model
    (``engine/speed/predict.py``). ``source`` says where the numbers come from, for people."""

    byte_s: float  # decode: seconds per weight byte read
    layer_s: float  # decode: fixed seconds per layer per token
    attention_s: float  # decode: seconds per layer-width-depth unit
    kv_factor: float  # decode: the cache's bytes read at ``byte_s`` (GPUs) or not (0: CPUs)
    flop_s: float  # prompt: seconds per operation
    width_s: float  # prompt: seconds per layer-width unit per token
    prompt_attention_s: float  # prompt: seconds per layer-width-depth unit
    source: str
    measured: tuple[str, ...] = ()  # the models it was fitted on

    @property
    def is_measured(self) -> bool:
        return bool(self.measured)


@dataclass(frozen=True, slots=True)
class SpeedProfile:
    devices: tuple[DeviceSpeed, ...]
    calibrations: dict[str, Calibration] = field(default_factory=dict)
    provisional: bool = False  # measured while other programs kept the processor busy
    measured_at: float = 0.0

    def device(self, key: str) -> DeviceSpeed | None:
        return next((d for d in self.devices if d.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": [asdict(d) for d in self.devices],
            "calibrations": {
                k: {**asdict(c), "measured": list(c.measured)} for k, c in self.calibrations.items()
            },
            "provisional": self.provisional,
            "measured_at": self.measured_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpeedProfile:
        """Raises KeyError, TypeError or ValueError on a malformed one."""
        devices = tuple(
            DeviceSpeed(
                key=str(d["key"]),
                name=str(d["name"]),
                kind=str(d["kind"]),
                bandwidth=_positive(d["bandwidth"]),
                flops=_positive(d["flops"]),
                basis=str(d["basis"]),
            )
            for d in data["devices"]
        )
        calibrations = {
            str(k): Calibration(
                byte_s=_positive(c["byte_s"]),
                layer_s=_number(c["layer_s"]),
                attention_s=_number(c["attention_s"]),
                kv_factor=_number(c["kv_factor"]),
                flop_s=_positive(c["flop_s"]),
                width_s=_number(c["width_s"]),
                prompt_attention_s=_number(c["prompt_attention_s"]),
                source=str(c["source"]),
                measured=tuple(str(m) for m in c.get("measured") or ()),
            )
            for k, c in (data.get("calibrations") or {}).items()
        }
        return cls(
            devices=devices,
            calibrations=calibrations,
            provisional=bool(data.get("provisional", False)),
            measured_at=_number(data.get("measured_at", 0.0)),
        )


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"not a non-negative number: {value!r}")
    return float(value)


def _positive(value: object) -> float:
    number = _number(value)
    if number <= 0:
        raise ValueError(f"not a positive number: {value!r}")
    return number

"""This machine's speed profile for the engine's commands and host: the probe's figures (probed
when there are none) with every runtime's calibration fitted to the models measured here.

A probe taken while other programs kept the processor busy is kept as provisional: used, and
taken again at a later use once the machine is quiet (at most once an hour), as ``cove tune``
does with its measurements. ``cove probe --again`` takes it again now. The window never probes:
it reads the profile the engine host attaches to its hardware report.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.hardware.speed_profile import DeviceSpeed, SpeedProfile
from engine.speed.calibrate import Observation, calibration_key, fit, prior
from engine.speed.store import SpeedStore

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

log = logging.getLogger(__name__)

RECHECK_S = 3600.0
# Set (to anything) to probe bandwidth and arithmetic only, without running the starter: the
# test suite's fresh data folders would otherwise each run it.
NO_CALIBRATION_ENV = "COVE_NO_SPEED_CALIBRATION"


def profile_for(
    report: HardwareReport,
    *,
    store: SpeedStore | None = None,
    measure: bool = True,
    again: bool = False,
    calibrate: bool = True,
) -> SpeedProfile | None:
    """This machine's speed profile: the probe's figures (probed now when there are none, when
    ``again``, or when they are provisional and the machine is quiet now) with every runtime's
    calibration fitted to the models measured here. None when nothing was probed and
    ``measure`` is off."""
    store = store or SpeedStore()
    from engine.tuning.store import machine_key

    machine = machine_key(report)
    cached = store.devices(machine)
    stale = cached is not None and _provisional_and_due(cached[1])
    if measure and (cached is None or again or (stale and _quiet(store, machine))):
        cached = _probe(report, store, machine, calibrate=calibrate and not _no_calibration())
    if cached is None:
        return None
    devices, entry = cached
    observations = store.calibrating(machine)
    groups: dict[str, list[Observation]] = {}
    for obs in observations.values():
        groups.setdefault(calibration_key(obs.runtime, obs.kind), []).append(obs)
    calibrations = {}
    for key, group in groups.items():
        kind = group[0].kind
        device = next((d for d in devices if d.kind == kind), None)
        if device is not None:
            calibrations[key] = fit(prior(device), group)
    return SpeedProfile(
        devices=devices,
        calibrations=calibrations,
        provisional=bool(entry.get("provisional", False)),
        measured_at=float(entry.get("measured_at", 0.0)),
    )


def _no_calibration() -> bool:
    return bool(os.environ.get(NO_CALIBRATION_ENV))


def calibration_wanted(report: HardwareReport) -> bool:
    """Whether the starter is run to calibrate llama.cpp here (it can run, and it is not off)."""
    return report.llama_cpp.available and not _no_calibration()


def _provisional_and_due(entry: dict[str, Any]) -> bool:
    checked = entry.get("checked_at", 0.0)
    due = not isinstance(checked, int | float) or time.time() - checked > RECHECK_S
    return bool(entry.get("provisional")) and due


def _quiet(store: SpeedStore, machine: str) -> bool:
    from engine.tuning.load import machine_is_quiet

    store.mark_checked(machine)
    return machine_is_quiet()


def _probe(
    report: HardwareReport, store: SpeedStore, machine: str, *, calibrate: bool
) -> tuple[tuple[DeviceSpeed, ...], dict[str, Any]] | None:
    from engine.hardware.benchmarks import measure_devices
    from engine.speed.starter import measure_starter
    from engine.tuning.load import LoadMeter, is_busy

    meter = LoadMeter().start()
    devices = measure_devices(report)
    obs = measure_starter() if calibrate and report.llama_cpp.available else None
    others = meter.others_share()
    busy = is_busy(others)
    store.save_devices(machine, devices, busy, others)
    if obs is not None and not busy:
        from engine.library.names import resolve_model

        starter = resolve_model("starter")
        store.record_observation(report, starter, obs)
        store.record_measured(report, starter, obs)
    return store.devices(machine)


def with_speed(
    report: HardwareReport, *, measure: bool = True, again: bool = False
) -> HardwareReport:
    """``report`` with its speed profile attached (probing first if need be)."""
    try:
        profile = profile_for(report, measure=measure, again=again)
    except OSError as exc:  # an unwritable data folder: predictions are not worth a failure
        log.warning("speed profile unavailable: %s", exc)
        return report
    return replace(report, speed=profile)

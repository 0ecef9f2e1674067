"""This computer's speed profile, for the host: what the hardware report's predictions read, the
devices' figures probed at once on a fresh data folder, and the rest (the starter's runs that
calibrate llama.cpp, probing again a profile taken on a busy machine) left to an idle moment
(engine/host/idle/idle_tuning.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.client.protocol import SPEED_WORK
from engine.host.idle.background import Background
from engine.host.idle.idle_tuning import SpeedProber

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

log = logging.getLogger("cove.host")


class SpeedProfile:
    """The hardware report with this computer's speed, and its probing when idle."""

    def __init__(self, background: Background, probe: Callable[[], HardwareReport]) -> None:
        self.background = background
        self.probe = probe
        self.prober: SpeedProber | None = None

    def hardware_report(self) -> HardwareReport:
        """What the probe found, with this computer's speed profile. A fresh data folder has
        none: the devices' figures are probed now (about a second: the window's first start
        shows predicted speeds at once), and the rest, the starter run to calibrate llama.cpp
        (seconds of both cores), is left to when the computer is idle, as is probing again a
        profile taken on a busy machine."""
        from dataclasses import replace

        from engine.speed.machine import calibration_wanted, profile_for
        from engine.speed.store import SpeedStore
        from engine.tuning.store import machine_key

        report = self.probe()
        store, machine = SpeedStore(), machine_key(report)
        try:
            fresh = store.devices(machine) is None
            profile = profile_for(report, store=store, measure=fresh, calibrate=False)
            uncalibrated = calibration_wanted(report) and not store.calibrating(machine)
        except OSError as exc:  # an unwritable data folder: predictions are not worth a failure
            log.warning("speed profile unavailable: %s", exc)
            return report
        if profile is None or profile.provisional or uncalibrated:
            self._probe_later(report)
        return replace(report, speed=profile)

    def _probe_later(self, report: HardwareReport) -> None:
        from engine.tuning.store import machine_key

        running = self.prober
        if running is not None and not running.work.finished:
            return
        key = f"speed:{machine_key(report)}"
        work = self.background.work(SPEED_WORK, key)
        self.prober = SpeedProber(work)
        self.prober.start()

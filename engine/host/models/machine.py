"""This computer as the host reads it: the hardware probe (devices, memory, runtimes) and the
memory free now, handed to the host when it is made, so that a test can hand in a machine of its
own (tests/support/machines.py) instead of the one it runs on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Resources


def probe_this_computer() -> HardwareReport:
    from engine.hardware import probe_hardware

    return probe_hardware()


def free_on_this_computer() -> Resources:
    from engine.backends.loader import current_resources

    return current_resources()


@dataclass(frozen=True, slots=True)
class Machine:
    """Where the host's models load: ``probe`` reports the hardware, ``free`` the memory free
    for a plan now (this computer's unless handed others)."""

    probe: Callable[[], HardwareReport] = field(default=probe_this_computer)
    free: Callable[[], Resources] = field(default=free_on_this_computer)

    @classmethod
    def of(cls, report: HardwareReport) -> Machine:
        """A machine that always reports ``report`` (and its memory as free)."""
        from engine.planner.plan import resources_from

        return cls(probe=lambda: report, free=lambda: resources_from(report))

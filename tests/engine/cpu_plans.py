"""Plans for a GGUF file on one fixed CPU-only machine (16 GiB of memory free of 24, two threads),
so that the backend's tests load a model the same way whatever machine runs them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from engine.formats.gguf import read_gguf
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Plan, Resources

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)


def plan_for(path: Path, ctx: int) -> Plan:
    return make_plan(read_gguf(path), RESOURCES, requested_ctx=ctx)


def plan(path: Path, ctx: int = 2048, **changes: Any) -> Plan:
    """The plan for ``path``, with ``changes`` made to it."""
    return dataclasses.replace(plan_for(path, ctx), **changes)

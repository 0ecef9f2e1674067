"""What the planner's matrix test and its bench share: the vocabulary the tiny models are written
with, a machine with plenty of memory, and llama.cpp's buffer sizes read from its log (it has no
API for them)."""

from __future__ import annotations

import re

from engine.planner.plan import Device, MiB, Resources

# A realistic vocabulary-to-width ratio: the logits are what the compute buffer mostly holds.
VOCAB = 8192
_PLENTY = Resources(cpu=Device("CPU RAM", "cpu", 64 << 30, 64 << 30), threads=2)
_KV_LINE = re.compile(r"llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers")
_COMPUTE = re.compile(r"(\S+) compute buffer size = +([\d.]+) MiB")


def reported_kv(log: str) -> list[tuple[float, int, int]]:
    """(MiB, cells, layers) per KV buffer, full-attention cache first, as llama.cpp logs them."""
    return [(float(m), int(c), int(n)) for m, c, n in _KV_LINE.findall(log)]


def reported_compute(log: str) -> float:
    return sum(float(size) for _buf, size in _COMPUTE.findall(log)) * MiB

"""Quantities in words: one way to write a size everywhere (CLI, app, reports)."""

from __future__ import annotations


def format_bytes(n: int | float) -> str:
    """Binary units, about three significant digits: "512 MiB", "7.8 GiB", "24 B"."""
    if n < 0:
        return "-" + format_bytes(-n)
    value, units = float(n), ("B", "KiB", "MiB", "GiB", "TiB")
    i = 0
    while value >= 1024 and i < len(units) - 1:
        value /= 1024
        i += 1
    if i == 0 or value >= 100:
        return f"{value:.0f} {units[i]}"
    return f"{value:.1f} {units[i]}"


def format_tps(tps: float) -> str:
    """Tokens per second as people read them: whole numbers from 10 up, one decimal below."""
    return f"{tps:,.0f}" if tps >= 10 else f"{tps:.1f}"

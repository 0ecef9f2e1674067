"""The planner's verdict on a model for this machine, in the words the model list, the welcome
screen and the hardware page show. Qt-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.planner.plan import DeviceBudget, Plan
from engine.units import format_bytes

Level = Literal["ok", "warn", "bad", "unknown"]


@dataclass(frozen=True, slots=True)
class Verdict:
    text: str  # "Fits", "Fits at 4k context", "Won't fit: needs 9.1 GiB, 6.2 GiB free"
    level: Level
    details: tuple[str, ...] = ()  # the breakdown and the planner's reasons


def short_tokens(n: int) -> str:
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _budget_line(b: DeviceBudget) -> str:
    return (
        f"{b.device}: weights {format_bytes(b.weights)} + KV cache "
        f"{format_bytes(b.kv_cache)} + compute {format_bytes(b.compute)} + runtime "
        f"{format_bytes(b.overhead)} = {format_bytes(b.total)} of "
        f"{format_bytes(b.free)} free"
    )


def verdict_from_plan(plan: Plan) -> Verdict:
    """The planner's verdict for this machine, in the words the model list shows."""
    n_ctx, requested = plan.n_ctx, plan.requested_ctx or plan.n_ctx
    device = plan.device or "CPU"
    details = [f"Runs with {plan.backend} on {device}, {n_ctx:,}-token context"]
    details += [_budget_line(b) for b in plan.budgets]
    details += list(plan.reasons)
    if plan.verdict == "fits":
        return Verdict(f"Fits ({device}, {short_tokens(n_ctx)} context)", "ok", tuple(details))
    if plan.verdict == "fits_reduced_context":
        text = f"Fits at {short_tokens(n_ctx)} context"
        if requested > n_ctx:
            text += f" (not {short_tokens(requested)})"
        return Verdict(text, "warn", tuple(details))
    if plan.verdict == "partial_offload":
        total = plan.n_layers + 1
        return Verdict(
            f"Fits with {plan.gpu_layers} of {total} layers on the GPU (slower)",
            "warn",
            tuple(details),
        )
    if plan.verdict == "unsupported":
        return Verdict("Can't run on this computer", "bad", tuple(details))
    free = max((b.free for b in plan.budgets), default=0)
    return Verdict(
        f"Won't fit: needs {format_bytes(plan.total_bytes)}, {format_bytes(free)} free",
        "bad",
        tuple(details),
    )


def verdict_from_error(message: str) -> Verdict:
    first = message.strip().split(". ")[0].strip().rstrip(".")
    return Verdict(f"Can't check: {first}", "unknown", (message,))

"""The planner's verdict on a model for this machine, in the words the model list, the welcome
screen and the hardware page show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.common.i18n import tr
from engine.planner import DeviceBudget, Plan
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
    return tr(
        "Model fit",
        "{device}: weights {weights} + KV cache {kv_cache} + compute {compute} + runtime "
        "{runtime} = {total} of {free} free",
    ).format(
        device=b.device,
        weights=format_bytes(b.weights),
        kv_cache=format_bytes(b.kv_cache),
        compute=format_bytes(b.compute),
        runtime=format_bytes(b.overhead),
        total=format_bytes(b.total),
        free=format_bytes(b.free),
    )


def verdict_from_plan(plan: Plan) -> Verdict:
    """The planner's verdict for this machine, in the words the model list shows."""
    n_ctx, requested = plan.n_ctx, plan.requested_ctx or plan.n_ctx
    device = plan.device or "CPU"
    details = [
        tr("Model fit", "Runs with {backend} on {device}, {tokens}-token context").format(
            backend=plan.backend, device=device, tokens=f"{n_ctx:,}"
        )
    ]
    details += [_budget_line(b) for b in plan.budgets]
    details += list(plan.reasons)
    if plan.verdict == "fits":
        text = tr("Model fit", "Fits ({device}, {context} context)").format(
            device=device, context=short_tokens(n_ctx)
        )
        return Verdict(text, "ok", tuple(details))
    if plan.verdict == "fits_reduced_context":
        if requested > n_ctx:
            text = tr("Model fit", "Fits at {context} context (not {requested})").format(
                context=short_tokens(n_ctx), requested=short_tokens(requested)
            )
        else:
            text = tr("Model fit", "Fits at {context} context").format(context=short_tokens(n_ctx))
        return Verdict(text, "warn", tuple(details))
    if plan.verdict == "partial_offload":
        total = plan.n_layers + 1
        return Verdict(
            tr("Model fit", "Fits with {layers} of {total} layers on the GPU (slower)").format(
                layers=plan.gpu_layers, total=total
            ),
            "warn",
            tuple(details),
        )
    if plan.verdict == "unsupported":
        return Verdict(tr("Model fit", "Can't run on this computer"), "bad", tuple(details))
    free = max((b.free for b in plan.budgets), default=0)
    return Verdict(
        tr("Model fit", "Won't fit: needs {needed}, {free} free").format(
            needed=format_bytes(plan.total_bytes), free=format_bytes(free)
        ),
        "bad",
        tuple(details),
    )


def verdict_from_error(message: str) -> Verdict:
    first = message.strip().split(". ")[0].strip().rstrip(".")
    text = tr("Model fit", "Can't check: {reason}").format(reason=first)
    return Verdict(text, "unknown", (message,))

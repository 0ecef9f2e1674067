"""From a model name to a resident model: resolve, inspect, plan against free memory, load."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine.backends import LoadedModel, LoadProgress, backend_for
from engine.errors import BackendUnavailable, InsufficientMemory
from engine.formats.coreml import CoreMLModelInfo, is_coreml_model, read_coreml_model
from engine.formats.gguf import GGUFFile, read_gguf
from engine.formats.gguf.projector import TEXT_ONLY, looks_like_vision, projector_for
from engine.formats.onnx import OnnxModelInfo, is_onnx_chat_folder, read_onnx_model
from engine.library.names import resolve_model
from engine.planner.coreml import plan_coreml
from engine.planner.gguf import make_plan
from engine.planner.onnx import plan_onnx
from engine.planner.plan import Device, Plan, Resources, resources_from

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, slots=True)
class Loaded:
    model: LoadedModel
    plan: Plan
    path: Path


def current_resources() -> Resources:
    from engine.hardware import probe_hardware

    return resources_from(probe_hardware())


def plan_model(
    name: str, *, ctx: int | None = None, resources: Resources | None = None
) -> tuple[Path, GGUFFile | OnnxModelInfo | CoreMLModelInfo, Plan]:
    """Resolve and read a model (a GGUF file, or an ONNX model folder) and plan it against the
    memory free now."""
    path = resolve_model(name)
    if is_coreml_model(path):
        coreml = read_coreml_model(path)
        return (
            path,
            coreml,
            plan_coreml(coreml, resources or current_resources(), requested_ctx=ctx),
        )
    if is_onnx_chat_folder(path):
        onnx = read_onnx_model(path)
        return path, onnx, plan_onnx(onnx, resources or current_resources(), requested_ctx=ctx)
    info = read_gguf(path)
    projector = projector_for(path, info)
    plan = make_plan(info, resources or current_resources(), requested_ctx=ctx, projector=projector)
    if projector is None and looks_like_vision(path, info):
        plan = replace(plan, reasons=(*plan.reasons, TEXT_ONLY))
    return path, info, plan


def load_model(
    name: str,
    *,
    ctx: int | None = None,
    resources: Resources | None = None,
    progress: LoadProgress | None = None,
) -> Loaded:
    """Load only what fits: a plan that does not fit raises InsufficientMemory before any
    native allocation happens."""
    path, _info, plan = plan_model(name, ctx=ctx, resources=resources)
    del _info  # the parsed header holds the whole vocabulary; the runtime keeps its own copy
    require_fit(plan)
    model = backend_for(path).load(path, plan, progress)
    return Loaded(model=model, plan=plan, path=path)


def require_fit(plan: Plan) -> None:
    """Refuse a plan that does not fit, before any native allocation happens."""
    if plan.verdict == "unsupported":
        raise BackendUnavailable(" ".join(plan.reasons) or "The model cannot run here.")
    if not plan.loadable:
        raise InsufficientMemory(
            " ".join(plan.reasons) or "The model does not fit in free memory.", plan
        )


def resources_after_unload(resources: Resources, plan: Plan) -> Resources:
    """The resources a new model may plan with once the resident model (loaded with ``plan``) is
    unloaded: its memory counts as free again, so that swapping models is judged fairly."""
    freed = {b.device: b.total for b in plan.budgets}

    def credit(device: Device) -> Device:
        extra = freed.get(device.name, 0)
        return replace(device, free_bytes=min(device.total_bytes, device.free_bytes + extra))

    return replace(
        resources, cpu=credit(resources.cpu), gpus=tuple(credit(g) for g in resources.gpus)
    )

"""The ways one model can run on this machine, each with the plan that would load it.

For a GGUF: the planner's device (the GPU, all or part of the model) and, where there is a GPU,
the CPU alone (a small model can be faster there than on a weak GPU); each with flash attention
on and off (llama.cpp's CPU flash-attention kernel is faster at the start of a chat and slower
deep into it, docs/PERFORMANCE.md), except where a quantised V cache needs it on. For an ONNX
folder or a Core ML package, its own device. And the other format's build of the same model
where one is installed. A way that does not fit in the memory free now is left out.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.planner.plan import Plan, Resources
from engine.tuning.configs import Config, Way, model_family


def ways_to_run(
    path: Path, resources: Resources, *, ctx: int | None, siblings: tuple[Path, ...] = ()
) -> list[Way]:
    """Every way ``path`` (and builds of the same model in ``siblings``) fits here now, the
    planner's own first."""
    ways: list[Way] = []
    for build in (path, *siblings):
        for plan in _plans(build, resources, ctx):
            if plan.loadable:
                config = Config.of(build, plan)
                if all(w.config != config for w in ways):
                    ways.append(Way(config, plan))
    return ways


def _plans(path: Path, resources: Resources, ctx: int | None) -> list[Plan]:
    from engine.formats.gguf import read_gguf
    from engine.formats.onnx import is_onnx_chat_folder, read_onnx_model
    from engine.planner.gguf import make_plan
    from engine.planner.onnx import plan_onnx

    if is_onnx_chat_folder(path):
        return [plan_onnx(read_onnx_model(path), resources, requested_ctx=ctx)]
    from engine.formats.coreml import is_coreml_model, read_coreml_model
    from engine.planner.coreml import plan_coreml

    if is_coreml_model(path):
        return [plan_coreml(read_coreml_model(path), resources, requested_ctx=ctx)]
    if path.suffix.lower() != ".gguf":
        return []
    info = read_gguf(path)
    from engine.formats.gguf.projector import projector_for

    projector = projector_for(path, info)
    placements = [resources]
    if resources.gpus and resources.gpu_offload:
        placements.append(replace(resources, gpus=(), gpu_offload=False))  # the CPU alone
    plans: list[Plan] = []
    for placed in placements:
        first = make_plan(info, placed, requested_ctx=ctx, projector=projector)
        plans.append(first)
        if first.kv_type == "f16":  # a quantised V cache needs flash attention
            plans.append(
                make_plan(info, placed, requested_ctx=ctx, flash_attn=False, projector=projector)
            )
    return plans


def installed_siblings(path: Path) -> tuple[Path, ...]:
    """Other builds of the model at ``path`` that are installed (in the models folder, or the
    starter model), in the other format: GGUF for an ONNX folder and the other way round."""
    from engine.formats.onnx import is_onnx_chat_folder
    from engine.paths import models_dir

    family = model_family(path)
    onnx = is_onnx_chat_folder(path)
    found: list[Path] = []
    candidates = list(_installed(models_dir()))
    try:
        from engine.library.names import starter_path

        candidates.append(starter_path())
    except Exception:  # the starter model's package is optional
        pass
    for other in candidates:
        if other.resolve() == path.resolve() or model_family(other) != family:
            continue
        if onnx != is_onnx_chat_folder(other) and other not in found:
            found.append(other)
    return tuple(found)


def _installed(root: Path) -> list[Path]:
    """GGUF files and ONNX chat folders under the models folder (two levels: a model's own
    folder, and a folder per build inside it)."""
    from engine.formats.onnx import is_onnx_chat_folder

    if not root.is_dir():
        return []
    found: list[Path] = []
    for item in sorted(root.rglob("*")):
        depth = len(item.relative_to(root).parts)
        if depth > 4:
            continue
        gguf = item.is_file() and item.suffix.lower() == ".gguf" and ".part" not in item.name
        if gguf or (item.is_dir() and is_onnx_chat_folder(item)):
            found.append(item)
    return found

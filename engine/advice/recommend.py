"""Which build of a catalog model to download on this machine, and why, in one sentence.

Every build is planned by the real planners (``make_plan`` for GGUF, ``plan_onnx`` for ONNX
folders, fed by ``engine/library/facts.py``) against the hardware report, at the default context.
The choice, best first:

1. a GGUF build that fits wholly on a GPU llama.cpp drives here (Metal, CUDA): the fastest path;
2. an ONNX build for an NPU whose execution provider is here (QNN, OpenVINO, Vitis AI);
3. an ONNX build for a GPU through CUDA or DirectML, when llama.cpp cannot drive that GPU;
4. a GGUF build partly offloaded to a GPU;
5. a GGUF build on the CPU, then an ONNX CPU build;

and within a tier the highest-quality build that fits fully. A build that fits only with a shorter
context is offered when nothing fits fully, and says so.

With the machine's speed profile (``report.speed``, engine/speed) every build also gets its
predicted speed, and only builds predicted to reply at a comfortable speed (10 tokens/s unless
the user set another) count: of those that fit wholly, the best tier's highest-quality build;
when none is that fast, the fastest build that fits. The reason names the speeds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.hub.meta import BuildFiles, build_files
from engine.library.catalog import BITS_PER_WEIGHT, ONNX_BITS_PER_WEIGHT, CatalogModel, Variant
from engine.library.facts import gguf_facts, onnx_facts
from engine.units import format_bytes, format_tps

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.hub.meta import Listing
    from engine.planner.plan import Plan
    from engine.speed.predict import Prediction

NPU_PROVIDERS = {"qnn": "QNNExecutionProvider", "vitisai": "VitisAIExecutionProvider"}
GPU_PROVIDERS = {"cuda": "CUDAExecutionProvider", "dml": "DmlExecutionProvider"}
OPENVINO = "OpenVINOExecutionProvider"
NPU_NAMES = {"qnn": "Qualcomm Hexagon NPU", "vitisai": "AMD Ryzen AI NPU", "openvino": "Intel NPU"}
# Tiers, best first (see the module's docstring).
GPU_FULL, NPU, ONNX_GPU, GPU_PARTIAL, CPU_GGUF, CPU_ONNX, UNUSABLE = range(7)


@dataclass(frozen=True, slots=True)
class Option:
    """One build, as it would run here."""

    build: BuildFiles
    runtime: str  # "llama.cpp" / "onnxruntime-genai"
    device: str  # where it would run, in words
    tier: int
    plan: Plan | None
    need_bytes: int  # at the default context, on the device that bounds it
    free_bytes: int  # of that device
    fits: bool  # wholly, at the default context
    why_not: str | None = None  # why it cannot run here at all
    prediction: Prediction | None = None  # how fast it would run here

    @property
    def variant(self) -> Variant:
        return self.build.variant

    @property
    def loadable(self) -> bool:
        return self.plan is not None and self.plan.loadable and self.why_not is None

    def to_dict(self) -> dict[str, object]:
        v = self.variant
        return {
            "variant": v.key,
            "label": v.label,
            "format": v.format,
            "repo": v.repo,
            "quant": v.quant,
            "target": v.target,
            "vision": v.vision,
            "projector": v.projector,
            "size_bytes": self.build.size_bytes,
            "size_exact": self.build.exact,
            "runtime": self.runtime,
            "device": self.device,
            "fits": self.fits,
            "verdict": self.plan.verdict if self.plan else None,
            "n_ctx": self.plan.n_ctx if self.plan else None,
            "need_bytes": self.need_bytes,
            "free_bytes": self.free_bytes,
            "why_not": self.why_not or self.build.missing,
            **_speed_fields(self.prediction),
        }

    @property
    def decode_tps(self) -> float:
        return self.prediction.decode_tps if self.prediction is not None else 0.0


@dataclass(frozen=True, slots=True)
class Recommendation:
    model: CatalogModel
    choice: Option | None
    options: tuple[Option, ...]
    reason: str
    comfortable_tps: float = 0.0  # the speed aimed for (0: speeds not known)

    @property
    def runs_well(self) -> bool:
        """The recommended build fits wholly and replies at a comfortable speed here."""
        c = self.choice
        return c is not None and c.fits and c.decode_tps >= self.comfortable_tps > 0

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.model.id,
            "recommended": self.choice.variant.key if self.choice else None,
            "reason": self.reason,
            "comfortable_decode_tps": self.comfortable_tps or None,
            "runs_well": self.runs_well,
            "options": [o.to_dict() for o in self.options],
        }


def _speed_fields(p: Prediction | None) -> dict[str, object]:
    if p is None:
        return {
            "predicted_decode_tps": None,
            "predicted_prompt_tps": None,
            "predicted_decode_tps_deep": None,
            "speed_basis": None,
        }
    return {
        "predicted_decode_tps": round(p.decode_tps, 1),
        "predicted_prompt_tps": round(p.prompt_tps, 1),
        "predicted_decode_tps_deep": round(p.decode_tps_deep, 1),
        "speed_basis": p.basis,
    }


def recommend(
    model: CatalogModel,
    report: HardwareReport,
    listings: dict[str, Listing] | None = None,
    *,
    comfortable_tps: float | None = None,
) -> Recommendation:
    """The build to download for ``model`` on the machine ``report`` describes; with its speed
    profile, aiming for ``comfortable_tps`` (the user's setting when None)."""
    listings = listings or {}
    builds = [build_files(model, v, listings.get(v.repo)) for v in model.variants]
    if model.kind != "chat":
        return _encoder(model, report, builds)
    options = [_option(model, b, report) for b in builds]
    ranked = sorted(options, key=lambda o: (o.tier, -_quality(o.variant)))
    full = [o for o in ranked if o.fits and o.why_not is None and o.build.missing is None]
    reduced = [o for o in ranked if o.loadable and o.build.missing is None and not o.fits]
    # Nothing fits wholly: the smallest build of the best tier, which keeps the most context (or
    # the most layers on the GPU).
    reduced.sort(key=_fallback_rank)
    goal = 0.0
    if report.speed is not None:
        goal = comfortable_tps if comfortable_tps is not None else _comfortable()
    if goal and full and all(o.prediction is not None for o in full):
        best, reason = _by_speed(full, ranked, goal)
        return Recommendation(model, best, tuple(ranked), reason, goal)
    choice = full[0] if full else (reduced[0] if reduced else None)
    reason = _reason(choice, ranked)
    if choice is not None and choice.prediction is not None:
        reason = f"{reason[:-1]}; about {format_tps(choice.decode_tps)} tokens/s here."
    return Recommendation(model, choice, tuple(ranked), reason, goal)


def _comfortable() -> float:
    from engine.speed.store import SpeedStore

    try:
        return SpeedStore().comfortable_tps()
    except OSError:
        from engine.speed.store import DEFAULT_COMFORTABLE_TPS

        return DEFAULT_COMFORTABLE_TPS


def _by_speed(full: list[Option], ranked: list[Option], goal: float) -> tuple[Option, str]:
    """The highest-quality build at a comfortable speed (the faster of equals), else the
    fastest; the reason in one sentence, with the next better build's speed or size."""
    quick = [o for o in full if o.decode_tps >= goal]
    if quick:
        # The fastest path first (a GPU, an NPU: the tiers), then the best quality on it.
        tier = min(o.tier for o in quick)
        choice = max(
            (o for o in quick if o.tier == tier), key=lambda o: (_quality(o.variant), o.decode_tps)
        )
    else:
        choice = max(full, key=lambda o: (o.decode_tps, _quality(o.variant)))
    where = "the CPU" if choice.device == "CPU" else f"the {choice.device}"
    estimated = "" if choice.build.exact else " (estimated size)"
    head = f"{choice.variant.label} on {where}: about {format_tps(choice.decode_tps)} tokens/s here"
    if not quick:
        head += f", the fastest build that fits (below the {goal:g} tokens/s aimed for)"
    head += f", in {_size(choice.need_bytes)} of {_size(choice.free_bytes)} free{estimated}"
    better = [
        o
        for o in ranked
        if _quality(o.variant) > _quality(choice.variant)
        and o.why_not is None
        and o.build.missing is None
    ]
    if better:
        nxt = min(better, key=lambda o: (_quality(o.variant), -o.decode_tps))
        if nxt.fits and nxt.prediction is not None:
            return (
                choice,
                f"{head}; {nxt.variant.label} would be about {format_tps(nxt.decode_tps)}.",
            )
        return choice, f"{head}; {nxt.variant.label} would need {_size(nxt.need_bytes)}."
    return choice, head + "."


def _encoder(
    model: CatalogModel, report: HardwareReport, builds: list[BuildFiles]
) -> Recommendation:
    """Embedding and reranking models are small and run on the CPU through ONNX Runtime."""
    free = report.memory.available_bytes
    options = tuple(
        Option(
            build=b,
            runtime="onnxruntime",
            device="CPU",
            tier=CPU_ONNX,
            plan=None,
            need_bytes=b.size_bytes,
            free_bytes=free,
            fits=b.size_bytes * 2 < free,
            why_not=None if report.ort.available else "ONNX Runtime is not available here",
        )
        for b in builds
    )
    choice = next((o for o in options if o.fits and o.why_not is None), None)
    if choice is None:
        return Recommendation(model, None, options, "Nothing here can run it: " + _blocker(options))
    size = format_bytes(choice.build.size_bytes) + ("" if choice.build.exact else " (estimated)")
    return Recommendation(model, choice, options, f"{choice.variant.label} on the CPU: {size}.")


def _option(model: CatalogModel, build: BuildFiles, report: HardwareReport) -> Option:
    if build.variant.format == "gguf":
        return _gguf_option(model, build, report)
    return _onnx_option(model, build, report)


def _gguf_option(model: CatalogModel, build: BuildFiles, report: HardwareReport) -> Option:
    from engine.planner.gguf import make_plan
    from engine.planner.plan import resources_from

    if not report.llama_cpp.available:
        reason = f"llama.cpp is not available here ({report.llama_cpp.reason})"
        return Option(build, "llama.cpp", "CPU", UNUSABLE, None, 0, 0, False, reason)
    facts = gguf_facts(model, build.variant, build.size_bytes)
    resources = resources_from(report)
    plan = make_plan(facts, resources)
    on_gpu = plan.gpu_layers > 0
    if on_gpu and plan.verdict == "fits":
        tier = GPU_FULL
    elif on_gpu:
        tier = GPU_PARTIAL
    else:
        tier = CPU_GGUF
    bound = plan.budgets[0]
    if on_gpu:
        api, _, gpu_name = plan.device.partition(": ")
        device = f"{gpu_name}{'' if 'GPU' in gpu_name else ' GPU'} ({api})"
        # What the whole model needs on the GPU: the plan for a GPU with room to spare. With
        # unified memory one pool holds both budgets.
        huge = 1 << 50
        roomy = replace(
            resources,
            cpu=replace(resources.cpu, free_bytes=huge),
            gpus=tuple(replace(g, free_bytes=huge) for g in resources.gpus),
        )
        full = make_plan(facts, roomy)
        need = sum(b.total for b in full.budgets) if api == "Metal" else full.budgets[0].total
    else:
        device, need = "CPU", bound.total
    prediction = None
    if report.speed is not None and plan.loadable:
        from engine.speed.facts import gguf_speed_facts
        from engine.speed.predict import predict_plan

        prediction = predict_plan(gguf_speed_facts(facts), plan, report.speed, device)
    return Option(
        build=build,
        runtime="llama.cpp",
        device=device,
        tier=tier,
        plan=plan,
        need_bytes=need,
        free_bytes=bound.free,
        fits=plan.verdict == "fits",
        prediction=prediction,
    )


def _onnx_option(model: CatalogModel, build: BuildFiles, report: HardwareReport) -> Option:
    from engine.planner.onnx import plan_onnx
    from engine.planner.plan import Device, Resources

    v = build.variant
    provider = v.provider or "cpu"
    device, tier, free, total, why_not = _onnx_device(v, report)
    memory = Device(device, "cpu", free, total)
    resources = Resources(cpu=memory, threads=max(1, report.cpu.physical_cores))
    info = onnx_facts(model, v, build.size_bytes)
    plan = plan_onnx(info, resources)
    if provider != "cpu" and why_not is None and not report.ort.available:
        why_not = "ONNX Runtime is not available here"
    prediction = None
    if report.speed is not None and why_not is None and plan.loadable:
        from engine.speed.facts import onnx_precision, onnx_speed_facts
        from engine.speed.predict import Part, predict

        facts = onnx_speed_facts(info, onnx_precision(str(v.target)))
        key = "npu" if tier == NPU else ("gpu0" if tier == ONNX_GPU else "cpu")
        dev = report.speed.device(key) or report.speed.device("cpu")
        if dev is not None:
            prediction = predict(
                facts,
                report.speed,
                "onnxruntime-genai",
                [Part(dev, 1.0)],
                n_ctx=plan.n_ctx,
                device_words=device,
            )
    return Option(
        build=build,
        runtime="onnxruntime-genai",
        device=device,
        tier=tier if why_not is None else UNUSABLE,
        plan=plan,
        need_bytes=plan.budgets[0].total,
        free_bytes=free,
        fits=plan.verdict == "fits" and why_not is None,
        why_not=why_not,
        prediction=prediction,
    )


def _onnx_device(v: Variant, report: HardwareReport) -> tuple[str, int, int, int, str | None]:
    """(device in words, tier, free bytes, total bytes, why it cannot run here)."""
    ram_free, ram_total = report.memory.available_bytes, report.memory.total_bytes
    provider = v.provider or "cpu"
    has = report.ort.has
    if provider == "cpu":
        why = None if report.ort.available else "ONNX Runtime is not available here"
        return "CPU", CPU_ONNX, ram_free, ram_total, why
    if provider in NPU_PROVIDERS or (provider == "openvino" and v.target == "openvino-npu"):
        ep = NPU_PROVIDERS.get(provider, OPENVINO)
        name = NPU_NAMES[provider]
        why = None if has(ep) else f"needs {ep.removesuffix('ExecutionProvider')}, not here"
        return name, NPU, ram_free, ram_total, why  # NPUs share the system memory
    if provider == "openvino":
        why = None if has(OPENVINO) else "needs OpenVINO, not here"
        return "Intel GPU (OpenVINO)", ONNX_GPU, ram_free, ram_total, why
    if provider in GPU_PROVIDERS:
        ep = GPU_PROVIDERS[provider]
        gpus = sorted(report.gpus, key=lambda g: g.budget_bytes, reverse=True)
        if provider == "cuda":
            gpus = [g for g in gpus if g.api == "cuda"]
        api = "CUDA" if provider == "cuda" else "DirectML"
        if not has(ep):
            return f"GPU ({api})", UNUSABLE, 0, 0, f"needs {api} in ONNX Runtime, not here"
        if not gpus:
            return f"GPU ({api})", UNUSABLE, 0, 0, f"no GPU for {api} here"
        gpu = gpus[0]
        if gpu.unified_memory:
            return f"{gpu.name} ({api})", ONNX_GPU, ram_free, ram_total, None
        return f"{gpu.name} ({api})", ONNX_GPU, gpu.budget_bytes, gpu.total_bytes, None
    return provider, UNUSABLE, 0, 0, f"{v.target} builds run in a browser, not in Cove"


def _fallback_rank(o: Option) -> tuple[int, int, float, int]:
    plan = o.plan
    assert plan is not None
    on_gpu = plan.gpu_layers / (plan.n_layers + 1)
    return (o.tier, -plan.n_ctx, -on_gpu, o.build.size_bytes)


def _quality(v: Variant) -> float:
    if v.format == "gguf":
        return BITS_PER_WEIGHT.get(str(v.quant), 8.5)
    return ONNX_BITS_PER_WEIGHT.get(str(v.target), 4.0)


def _size(n: int) -> str:
    return format_bytes(n)


def _reason(choice: Option | None, ranked: list[Option]) -> str:
    if choice is None:
        return "Nothing fits here: " + _blocker(tuple(ranked))
    where = "the CPU" if choice.device == "CPU" else f"the {choice.device}"
    estimated = "" if choice.build.exact else " (estimated size)"
    if not choice.fits and choice.plan is not None:
        plan = choice.plan
        if plan.verdict == "partial_offload":
            head = (
                f"{choice.variant.label} split between the {choice.device} ({plan.gpu_layers} of "
                f"{plan.n_layers + 1} layers) and the CPU: no build fits wholly in the "
                f"{_size(choice.free_bytes)} free there{estimated}"
            )
        else:
            head = (
                f"{choice.variant.label} on {where}: fits only with a {plan.n_ctx}-token context "
                f"(not {plan.requested_ctx}) in {_size(choice.free_bytes)} free{estimated}"
            )
        return head + "."
    head = (
        f"{choice.variant.label} on {where}: fits in {_size(choice.need_bytes)} of "
        f"{_size(choice.free_bytes)} free{estimated}"
    )
    better = [
        o
        for o in ranked
        if o.variant.format == choice.variant.format
        and o.variant.provider == choice.variant.provider
        and _quality(o.variant) > _quality(choice.variant)
        and o.why_not is None
        and o.build.missing is None
    ]
    if better:
        nxt = min(better, key=lambda o: _quality(o.variant))
        return f"{head}; {nxt.variant.label} would need {_size(nxt.need_bytes)}."
    faster = [o for o in ranked if o.tier < choice.tier and o.why_not is None]
    if faster:
        o = faster[0]
        return f"{head}; {o.variant.label} on the {o.device} would need {_size(o.need_bytes)}."
    return head + "."


def _blocker(options: tuple[Option, ...]) -> str:
    usable = [o for o in options if o.why_not is None and o.build.missing is None]
    if not usable:
        reasons = {o.why_not or o.build.missing or "" for o in options}
        return "; ".join(sorted(r for r in reasons if r)) + "."
    from engine.planner.plan import usable_bytes

    smallest = min(usable, key=lambda o: o.need_bytes)
    free = smallest.free_bytes
    return (
        f"the smallest build, {smallest.variant.label}, needs {_size(smallest.need_bytes)} and "
        f"{_size(usable_bytes(free))} of the {_size(free)} free is usable."
    )


# Without the file's header, what a GGUF needs beyond its size at the default context: the KV
# cache and scratch of a mid-size model (about a fifth of its weights at 8k tokens) and the
# runtime. ``cove plan owner/repo/FILE`` reads the header and answers exactly.
SIZE_FACTOR = 1.2
SIZE_OVERHEAD = 256 << 20


def fit_by_size(size_bytes: int, report: HardwareReport) -> tuple[str, str]:
    """("fits" / "tight" / "too_big", where) for a file known only by its size."""
    from engine.planner.plan import usable_bytes

    need = size_bytes * SIZE_FACTOR + SIZE_OVERHEAD
    places: list[tuple[str, int]] = []
    if report.llama_cpp.supports_gpu_offload:
        for gpu in sorted(report.gpus, key=lambda g: g.budget_bytes, reverse=True)[:1]:
            name = gpu.name if "GPU" in gpu.name else f"{gpu.name} GPU"
            places.append((name, usable_bytes(gpu.budget_bytes)))
    places.append(("CPU", usable_bytes(report.memory.available_bytes)))
    for where, usable in places:
        if need <= usable:
            return "fits", where
    where, usable = places[-1]
    return ("tight" if size_bytes + SIZE_OVERHEAD <= usable else "too_big"), where


def predict_by_size(
    size_bytes: int, quant: str | None, report: HardwareReport
) -> Prediction | None:
    """How fast a GGUF known only by its size and quant would run where ``fit_by_size`` puts
    it: the parameters from the bits per weight, a typical shape for that many."""
    if report.speed is None or size_bytes <= 0:
        return None
    from engine.speed.facts import shape_by_size
    from engine.speed.predict import Part, predict

    facts = shape_by_size(size_bytes, BITS_PER_WEIGHT.get(str(quant).upper(), 5.0))
    fit, where = fit_by_size(size_bytes, report)
    gpu = report.speed.device("gpu0")
    device = gpu if where != "CPU" and fit == "fits" and gpu is not None else None
    device = device or report.speed.device("cpu")
    if device is None:
        return None
    return predict(facts, report.speed, "llama.cpp", [Part(device, 1.0)], device_words=where)

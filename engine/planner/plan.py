"""What a memory plan is, whatever the model's format: the devices and their free memory
(``Resources``), each device's share of a model (``DeviceBudget``), and the verdict (``Plan``);
the headroom every plan keeps, the context range it chooses from, and the one way a plan says
that a model does not fit. The memory models of each format (``gguf``, ``onnx``, ``coreml``)
build plans from these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

# "unsupported": built for a device this machine lacks (an NPU-compiled ONNX build, say).
Verdict = Literal["fits", "fits_reduced_context", "partial_offload", "does_not_fit", "unsupported"]
DeviceKind = Literal["cpu", "cuda", "metal", "vulkan"]

MiB = 1024 * 1024
# Keep this share of free memory untouched: other programs allocate while the model is loaded, and
# a plan that uses every free byte is the "it said it fits, then OOM" failure.
HEADROOM = 0.10
HEADROOM_MIN = 256 * MiB
# Sliding-window layers keep a window-sized cache (llama.cpp's swa_full = false), not one as long
# as the context: for Gemma 3 that is most of the KV memory (at 32k tokens, 111 MiB instead of
# 576 MiB for the 270M model). The cost, positions older than the window being evicted, matters
# only when a follow-up rewinds further back than the window: engine/generation/kv_reuse.py
# decides that.
SWA_FULL = False
MIN_CONTEXT = 512
DEFAULT_CONTEXT = 8192
# llama.cpp pads the KV cache to a multiple of 256 cells; contexts are chosen in the same steps.
CONTEXT_STEP = 256


@dataclass(frozen=True, slots=True)
class Device:
    """Memory a model may use on one device. For CPU this is RAM; for Apple GPUs, unified."""

    name: str
    kind: DeviceKind
    free_bytes: int
    total_bytes: int


@dataclass(frozen=True, slots=True)
class Resources:
    """What the planner needs to know about the machine; built from a HardwareReport."""

    cpu: Device
    gpus: tuple[Device, ...] = ()
    threads: int = 4
    gpu_offload: bool = False
    # ONNX Runtime's execution providers here (None: not known, nothing is checked).
    ort_providers: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class DeviceBudget:
    device: str
    weights: int
    kv_cache: int
    compute: int
    overhead: int
    free: int
    projector: int = 0  # a vision model's image encoder, weights and scratch

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.compute + self.overhead + self.projector

    @property
    def usable(self) -> int:
        return usable_bytes(self.free)


@dataclass(frozen=True, slots=True)
class ProjectorPlan:
    """A vision model's projector (``mmproj``): its encoder's weights and the scratch memory
    for one image, on the device llama.cpp's multimodal library puts it on."""

    path: str
    device: str
    weights: int
    compute: int
    image_tokens: int  # context tokens one image (one tile) takes
    kind: str  # llama.cpp's projector type

    @property
    def total(self) -> int:
        return self.weights + self.compute


@dataclass(frozen=True, slots=True)
class Plan:
    model: str
    backend: str
    device: str
    verdict: Verdict
    n_ctx: int
    requested_ctx: int
    n_layers: int
    gpu_layers: int
    threads: int
    n_batch: int
    n_ubatch: int
    kv_type: str
    flash_attn: bool
    budgets: tuple[DeviceBudget, ...]
    reasons: tuple[str, ...] = field(default_factory=tuple)
    # Whether sliding-window layers get a full-size cache (llama.cpp's swa_full): the backend
    # sets exactly this, so that the plan and the allocation agree.
    swa_full: bool = SWA_FULL
    # A vision model's projector, counted in its device's budget (None: a text model).
    projector: ProjectorPlan | None = None
    # Layers per offload device, in llama.cpp's device order (its ``tensor_split``); empty: all
    # on one device. Set for a model split across machines (engine/remote/split.py).
    tensor_split: tuple[int, ...] = ()
    # Sequences generated at once in one context (llama.cpp), each with a KV cache of ``n_ctx``
    # tokens: the budgets count them all.
    parallel: int = 1

    @property
    def loadable(self) -> bool:
        return self.verdict not in ("does_not_fit", "unsupported")

    @property
    def total_bytes(self) -> int:
        return sum(b.total for b in self.budgets)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["total_bytes"] = self.total_bytes
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        """The plan back from ``to_dict()``'s JSON (``total_bytes`` and unknown keys are
        ignored). Raises KeyError, TypeError or ValueError on a malformed one."""
        verdict = str(data["verdict"])
        if verdict not in get_args(Verdict):
            raise ValueError(f"unknown verdict {verdict!r}")
        budgets = data.get("budgets") or ()
        if not isinstance(budgets, list | tuple):
            raise TypeError("budgets must be a list")
        return cls(
            model=str(data["model"]),
            backend=str(data["backend"]),
            device=str(data["device"]),
            verdict=cast(Verdict, verdict),
            n_ctx=int(data["n_ctx"]),
            requested_ctx=int(data["requested_ctx"]),
            n_layers=int(data["n_layers"]),
            gpu_layers=int(data["gpu_layers"]),
            threads=int(data["threads"]),
            n_batch=int(data["n_batch"]),
            n_ubatch=int(data["n_ubatch"]),
            kv_type=str(data["kv_type"]),
            flash_attn=bool(data["flash_attn"]),
            budgets=tuple(
                DeviceBudget(
                    device=str(b["device"]),
                    weights=int(b["weights"]),
                    kv_cache=int(b["kv_cache"]),
                    compute=int(b["compute"]),
                    overhead=int(b["overhead"]),
                    free=int(b["free"]),
                    projector=int(b.get("projector", 0)),
                )
                for b in budgets
            ),
            reasons=tuple(str(r) for r in data.get("reasons") or ()),
            swa_full=bool(data.get("swa_full", SWA_FULL)),
            projector=_projector_from(data.get("projector")),
            tensor_split=tuple(int(n) for n in data.get("tensor_split") or ()),
            parallel=int(data.get("parallel") or 1),
        )


def _projector_from(raw: object) -> ProjectorPlan | None:
    if not isinstance(raw, Mapping):
        return None
    return ProjectorPlan(
        path=str(raw["path"]),
        device=str(raw["device"]),
        weights=int(raw["weights"]),
        compute=int(raw["compute"]),
        image_tokens=int(raw["image_tokens"]),
        kind=str(raw.get("kind", "?")),
    )


def usable_bytes(free: int) -> int:
    return max(0, free - max(int(free * HEADROOM), HEADROOM_MIN))


def wanted_context(trained: int, requested: int | None, reasons: list[str]) -> int:
    """The context a plan aims for: the one asked for, else the model's trained one up to
    ``DEFAULT_CONTEXT``; never past what the model was trained on, never under ``MIN_CONTEXT``."""
    trained = max(trained, MIN_CONTEXT)
    wanted = requested or min(trained, DEFAULT_CONTEXT)
    if wanted > trained:
        reasons.append(f"{wanted} exceeds the model's trained context; capped at {trained}.")
        wanted = trained
    return max(wanted, MIN_CONTEXT)


def largest_context(ok: Callable[[int], bool], upper: int) -> int | None:
    """Largest multiple of 256 in [MIN_CONTEXT, upper] for which ``ok`` holds (monotone)."""
    lo, hi = MIN_CONTEXT // CONTEXT_STEP, upper // CONTEXT_STEP
    if not ok(lo * CONTEXT_STEP):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid * CONTEXT_STEP):
            lo = mid
        else:
            hi = mid - 1
    return lo * CONTEXT_STEP


def does_not_fit(need: int, free: int, *, context: int | None, advice: str) -> str:
    """The one way every plan says that a model does not fit: what it needs (at the smallest
    context, where the context can shrink), what is free to use, and what the user can do."""
    at = f" even at {context} tokens of context" if context is not None else ""
    return f"Needs {format_bytes(need)}{at}; {format_bytes(free)} is free to use. {advice}"


def resources_from(report: HardwareReport) -> Resources:
    """The planner's view of a hardware report: free memory per device, and thread count."""
    cpu = Device("CPU RAM", "cpu", report.memory.available_bytes, report.memory.total_bytes)
    gpus: list[Device] = []
    kinds: dict[str, DeviceKind] = {"metal": "metal", "cuda": "cuda"}
    for gpu in report.gpus:
        kind = kinds.get(gpu.api, "vulkan")
        gpus.append(Device(gpu.name, kind, gpu.budget_bytes, gpu.total_bytes))
    offload = report.llama_cpp.supports_gpu_offload
    return Resources(
        cpu=cpu,
        gpus=tuple(gpus),
        threads=max(1, report.cpu.physical_cores),
        gpu_offload=offload,
        ort_providers=report.ort.providers if report.ort.available else (),
    )


# ``--parallel auto`` serves up to this many sequences at once (LM Studio's default; Ollama's
# auto chooses 4 or 1 by memory), so that an editor, an agent and a chat front end each start
# their reply at once. An idle sequence costs only its KV cache, which auto keeps within
# AUTO_KV_SHARE of what is usable beside the first sequence's.
AUTO_PARALLEL = 4
AUTO_KV_SHARE = 0.25
PARALLEL_MAX = 64


def several_at_once(plan: Plan) -> bool:
    """Whether ``plan``'s runtime generates several sequences at once: llama.cpp, but not a
    vision model."""
    return plan.backend == "llama.cpp" and plan.projector is None


def with_parallel(plan: Plan, wanted: int | None, *, auto: int = AUTO_PARALLEL) -> Plan:
    """``plan`` generating ``wanted`` sequences at once (None: as many as fit, up to ``auto``
    and ``AUTO_KV_SHARE``; ``auto`` is the count measured to pay here, engine/tuning/batching.py,
    or the default), each with a KV cache of the plan's context, counted in every device's
    budget. Fewer where that many do not fit, with the reason; one where the runtime generates
    one sequence at a time (anything but llama.cpp, and vision models)."""
    from dataclasses import replace

    if plan.parallel != 1:
        raise ValueError("the plan already counts several sequences")
    target = max(1, min(auto if wanted is None else wanted, PARALLEL_MAX))
    if target == 1 or not plan.loadable:
        return plan
    if not several_at_once(plan):
        if wanted is None:
            return plan
        why = "vision models" if plan.projector is not None else f"{plan.backend} models"
        return replace(
            plan, reasons=(*plan.reasons, f"One reply at a time: {why} generate one sequence.")
        )

    def budgets(n: int) -> tuple[DeviceBudget, ...]:
        return tuple(replace(b, kv_cache=b.kv_cache * n) for b in plan.budgets)

    def fits(n: int) -> bool:
        scaled = budgets(n)
        if wanted is None and any(
            (s.kv_cache - b.kv_cache) > AUTO_KV_SHARE * b.usable
            for s, b in zip(scaled, plan.budgets, strict=True)
        ):
            return False
        return all(b.total <= b.usable for b in scaled)

    n = target
    while n > 1 and not fits(n):
        n -= 1
    reasons = plan.reasons
    if n < target and wanted is not None:
        per = sum(b.kv_cache for b in plan.budgets)
        reasons = (
            *reasons,
            f"{n} replies at a time, not {wanted}: each needs {format_bytes(per)} of KV cache "
            "and no more fit.",
        )
    if n == 1:
        return replace(plan, reasons=reasons)
    return replace(plan, budgets=budgets(n), parallel=n, reasons=reasons)


def one_sequence(plan: Plan) -> Plan:
    """``plan`` (made by ``with_parallel``) for one sequence."""
    from dataclasses import replace

    if plan.parallel == 1:
        return plan
    budgets = tuple(replace(b, kv_cache=b.kv_cache // plan.parallel) for b in plan.budgets)
    return replace(plan, budgets=budgets, parallel=1)

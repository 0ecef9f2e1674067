"""What the hardware probe found, as plain data: the report the planner, the CLI and the app read.

Kept apart from the probes so that reading a report (the app gets one from the engine host as
JSON) never imports a runtime.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.hardware.cpu_features import CpuInfo
from engine.hardware.speed_profile import SpeedProfile
from engine.units import format_bytes

T = TypeVar("T")

KNOWN_PROVIDERS: tuple[str, ...] = (
    "QNNExecutionProvider",
    "OpenVINOExecutionProvider",
    "VitisAIExecutionProvider",
    "DmlExecutionProvider",
    "CoreMLExecutionProvider",
    "CUDAExecutionProvider",
    "TensorrtExecutionProvider",
    "ROCMExecutionProvider",
    "CPUExecutionProvider",
)
NPU_PROVIDERS: dict[str, str] = {
    "QNNExecutionProvider": "Qualcomm Hexagon NPU",
    "OpenVINOExecutionProvider": "Intel NPU/GPU via OpenVINO",
    "VitisAIExecutionProvider": "AMD Ryzen AI NPU",
}


@dataclass(frozen=True, slots=True)
class Absent:
    what: str
    reason: str

    def __str__(self) -> str:
        return f"{self.what}: {self.reason}"


@dataclass(frozen=True, slots=True)
class PlatformInfo:
    os_name: str  # "linux" / "darwin" / "windows"
    os: str  # "Linux 6.1.0", "macOS 14.4", "Windows 11 (10.0.22631)"
    arch: str  # "x86_64" / "arm64"


@dataclass(frozen=True, slots=True)
class MemoryInfo:
    total_bytes: int
    available_bytes: int


@dataclass(frozen=True, slots=True)
class GpuInfo:
    vendor: str
    name: str
    index: int
    total_bytes: int
    free_bytes: int
    api: str
    driver: str | None
    compute_capability: str | None
    unified_memory: bool
    budget_bytes: int  # what a model may occupy on it
    estimated: bool  # budget_bytes is a rule of thumb, not a driver's answer
    # The memory's peak bandwidth as the driver states it (bus width x memory clock), if known.
    bandwidth_bytes_per_s: float | None = None


@dataclass(frozen=True, slots=True)
class OrtInfo:
    """ONNX Runtime's execution providers. Listed means compiled in, not proven to work here:
    e.g. CUDAExecutionProvider is listed by onnxruntime-gpu even without a usable CUDA."""

    available: bool
    version: str | None
    providers: tuple[str, ...]
    reason: str | None = None
    # The devices each provider reaches, as ONNX Runtime lists them (1.22 and later):
    # "provider:type:vendor", e.g. "QNNExecutionProvider:NPU:Qualcomm".
    devices: tuple[str, ...] = ()

    def has(self, provider: str) -> bool:
        return provider in self.providers

    def reach(self) -> dict[str, list[str]]:
        """Each provider with the devices it reaches ("NPU (Qualcomm)"); empty where the
        runtime does not say."""
        found: dict[str, list[str]] = {p: [] for p in self.providers}
        for entry in self.devices:
            provider, _, rest = entry.partition(":")
            kind, _, vendor = rest.partition(":")
            found.setdefault(provider, []).append(f"{kind} ({vendor})" if vendor else kind)
        return found

    def describe(self) -> str:
        """ "CPU (reaches CPU (AMD)), QNN (reaches NPU (Qualcomm))": the providers in words."""
        parts = []
        for provider, devices in self.reach().items():
            name = provider.removesuffix("ExecutionProvider")
            parts.append(f"{name} (reaches {', '.join(devices)})" if devices else name)
        return ", ".join(parts) or "none"

    def known(self) -> dict[str, bool]:
        return {p: p in self.providers for p in KNOWN_PROVIDERS}

    def npus(self) -> list[str]:
        return [name for p, name in NPU_PROVIDERS.items() if p in self.providers]


@dataclass(frozen=True, slots=True)
class CoreMLInfo:
    available: bool
    reason: str


@dataclass(frozen=True, slots=True)
class LlamaCppInfo:
    available: bool
    version: str | None
    supports_gpu_offload: bool
    devices: tuple[str, ...]  # ggml backend devices of this build: "CPU", "CUDA0", "MTL0"…
    system_info: str
    cpu_features: tuple[str, ...] = ()  # what the build's CPU backend uses: "AVX2", "FMA"…
    reason: str | None = None


# --- the report ---------------------------------------------------------------------------

# Best x86 level wins; Arm extensions add up (NEON+DotProd+I8MM), so they are listed together.
_X86_LABELS = {"avx512f": "AVX-512", "avx2": "AVX2", "avx": "AVX", "sse4_2": "SSE4.2"}
_ARM_LABELS = {"neon": "NEON", "dotprod": "DotProd", "i8mm": "I8MM", "sve": "SVE"}


def _simd_label(features: Sequence[str]) -> str:
    for flag, label in _X86_LABELS.items():
        if flag in features:
            return label
    arm = [label for flag, label in _ARM_LABELS.items() if flag in features]
    return "+".join(arm) or "no SIMD detected"


@dataclass(frozen=True, slots=True)
class HardwareReport:
    os: str
    os_name: str
    cpu: CpuInfo
    memory: MemoryInfo
    gpus: tuple[GpuInfo, ...]
    ort: OrtInfo
    coreml: CoreMLInfo
    llama_cpp: LlamaCppInfo
    absent: tuple[Absent, ...]
    # Each device's bandwidth and arithmetic rate, and each runtime's calibration on them
    # (engine/speed): None until the speed probe has run.
    speed: SpeedProfile | None = None

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(dataclasses.replace(self, speed=None))
        data["speed"] = self.speed.to_dict() if self.speed is not None else None
        data["ort"]["known_providers"] = self.ort.known()
        data["ort"]["npus"] = self.ort.npus()
        data["ort"]["reach"] = self.ort.reach()
        data["best_device"] = self.best_device()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HardwareReport:
        """The report back from ``to_dict()``'s JSON (keys it does not know are ignored).
        Raises KeyError, TypeError or ValueError on a malformed one."""
        return cls(
            os=str(data["os"]),
            os_name=str(data["os_name"]),
            cpu=_build(CpuInfo, data["cpu"]),
            memory=_build(MemoryInfo, data["memory"]),
            gpus=tuple(_build(GpuInfo, g) for g in data.get("gpus") or ()),
            ort=_build(OrtInfo, data["ort"]),
            coreml=_build(CoreMLInfo, data["coreml"]),
            llama_cpp=_build(LlamaCppInfo, data["llama_cpp"]),
            absent=tuple(_build(Absent, a) for a in data.get("absent") or ()),
            speed=SpeedProfile.from_dict(data["speed"]) if data.get("speed") else None,
        )

    def _cpu_phrase(self) -> str:
        cores = self.cpu.physical_cores
        return f"CPU ({_simd_label(self.cpu.features)}, {cores} physical core{'s' * (cores != 1)})"

    def _backend_for(self, gpu: GpuInfo) -> str | None:
        """The backend of the installed llama.cpp build that can drive ``gpu``, if any."""
        wanted = {"cuda": ("CUDA", "Vulkan"), "metal": ("MTL", "Metal")}.get(gpu.api, ())
        for device in self.llama_cpp.devices:
            for mark in wanted:
                if device.startswith(mark):
                    return "Metal" if mark == "MTL" else mark
        # A build whose devices could not be listed still says whether it offloads at all.
        if self.llama_cpp.supports_gpu_offload and not self.llama_cpp.devices:
            return {"cuda": "CUDA", "metal": "Metal"}.get(gpu.api)
        return None

    def best_gpu(self) -> tuple[GpuInfo, str] | None:
        """The GPU GGUF models would run on, with the llama.cpp backend that drives it; None
        when they would run on the CPU."""
        if not self.llama_cpp.available:
            return None
        for gpu in sorted(self.gpus, key=lambda g: g.budget_bytes, reverse=True):
            backend = self._backend_for(gpu)
            if backend is not None:
                return gpu, backend
        return None

    def best_device(self) -> str:
        """One sentence on where GGUF models would run: the GPU llama.cpp can use, else the CPU."""
        if not self.llama_cpp.available:
            return (
                f"nothing for GGUF yet: llama.cpp is unavailable ({self.llama_cpp.reason}); "
                f"it would run on the {self._cpu_phrase()}"
            )
        best = self.best_gpu()
        if best is not None:
            gpu, backend = best
            if gpu.unified_memory:
                return (
                    f"{backend}: {gpu.name} (about {format_bytes(gpu.budget_bytes)} of "
                    f"{format_bytes(gpu.total_bytes)} unified memory usable)"
                )
            name = gpu.name if gpu.name.startswith("NVIDIA") else f"NVIDIA {gpu.name}"
            return f"{backend}: {name} ({format_bytes(gpu.free_bytes)} free)"
        phrase = self._cpu_phrase()
        if self.gpus:
            phrase += f"; this llama.cpp build cannot offload to the {self.gpus[0].name}"
        return phrase

    def summary_lines(self) -> list[str]:
        cpu, mem = self.cpu, self.memory
        lines = [
            f"OS: {self.os} ({cpu.arch})",
            f"CPU: {cpu.model}",
            f"Cores: {cpu.physical_cores} physical, {cpu.logical_cores} logical",
            f"SIMD: {' '.join(cpu.features) or 'none detected'}",
            f"RAM: {format_bytes(mem.total_bytes)} total, "
            f"{format_bytes(mem.available_bytes)} available",
        ]
        for g in self.gpus:
            extra = [{"cuda": "CUDA", "metal": "Metal"}.get(g.api, g.api)]
            if g.compute_capability:
                extra.append(f"compute {g.compute_capability}")
            if g.driver:
                extra.append(f"driver {g.driver}")
            if g.unified_memory:
                usable = "estimated" if g.estimated else "reported"
                mem_text = (
                    f"{format_bytes(g.total_bytes)} unified, "
                    f"~{format_bytes(g.budget_bytes)} usable by the GPU ({usable})"
                )
            else:
                mem_text = f"{format_bytes(g.free_bytes)} free of {format_bytes(g.total_bytes)}"
            lines.append(f"GPU {g.index}: {g.name} ({', '.join(extra)}): {mem_text}")
        if self.ort.available:
            lines.append(f"NPUs: {', '.join(self.ort.npus()) or 'none'}")
            lines.append(f"ONNX Runtime {self.ort.version}: {self.ort.describe()}")
        lines.append(f"Core ML: {self.coreml.reason}")
        if self.llama_cpp.available:
            devices = ", ".join(self.llama_cpp.devices) or "unknown"
            offload = "GPU offload" if self.llama_cpp.supports_gpu_offload else "CPU only"
            lines.append(f"llama.cpp {self.llama_cpp.version} ({offload}): devices {devices}")
        lines.append(f"Best for GGUF: {self.best_device()}")
        if self.absent:
            lines.append("Not found:")
            lines += [f"  {a}" for a in self.absent]
        return lines


def _build(cls: type[T], data: object) -> T:
    """One of the report's dataclasses from its JSON object: JSON arrays become tuples."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__} must be a JSON object, not {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names}
    return cls(**values)

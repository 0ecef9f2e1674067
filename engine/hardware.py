"""What this machine offers for running models, as plain data.

Every probe is a small function gathered in :class:`Probes`, so tests (and odd platforms) can
swap any of them. :func:`probe_hardware` never raises: a probe that fails, or finds nothing,
turns into an :class:`Absent` entry whose reason is shown to the user as is. Runtimes are
imported inside their probes so that importing this module stays cheap.
"""

from __future__ import annotations

import ctypes
import dataclasses
import importlib.util
import logging
import os
import platform
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psutil

from engine import cpu_features
from engine.cpu_features import CpuInfo as CpuInfo  # re-exported: part of the report
from engine.ort_import import import_onnxruntime

T = TypeVar("T")
MiB = 1024**2
GiB = 1024**3

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


class Unavailable(Exception):
    """Raised by a probe when what it looks for is not there; the message is the user's reason."""


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


@dataclass(frozen=True, slots=True)
class OrtInfo:
    """ONNX Runtime's execution providers. Listed means compiled in, not proven to work here:
    e.g. CUDAExecutionProvider is listed by onnxruntime-gpu even without a usable CUDA."""

    available: bool
    version: str | None
    providers: tuple[str, ...]
    reason: str | None = None

    def has(self, provider: str) -> bool:
        return provider in self.providers

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


def estimate_metal_budget(total_bytes: int, wired_limit_mb: int | None = None) -> int:
    """Metal's recommendedMaxWorkingSetSize, guessed from RAM because reading it needs pyobjc.

    The ratios are community measurements, not Apple documentation: 10.67 GB on a 16 GB M4
    (exactly 2/3; exo-explore/exo#1672), ~75% on 64 and 128 GB Macs (gpustack/gpustack#1375),
    "typically ~65-75% of RAM" (sgl-project/sglang#21443). The common rule of 2/3 up to 36 GB
    and 3/4 above is the conservative end; recent macOS gives a 128 GiB Mac 107.5 GiB
    (antirez/ds4#893). An ``iogpu.wired_limit_mb`` override replaces the default, and Metal's
    value follows it (AlexsJones/llmfit#754).
    """
    if wired_limit_mb is not None and wired_limit_mb > 0:
        return min(wired_limit_mb * MiB, total_bytes)
    ratio = 2 / 3 if total_bytes <= 36 * GiB else 3 / 4
    return int(total_bytes * ratio)


# --- probes -------------------------------------------------------------------------------


def probe_platform() -> PlatformInfo:
    system = platform.system()
    os_name = {"Linux": "linux", "Darwin": "darwin", "Windows": "windows"}.get(
        system, system.lower() or "unknown"
    )
    if os_name == "darwin":
        pretty = f"macOS {platform.mac_ver()[0]}"
    elif os_name == "windows":
        pretty = f"Windows {platform.release()} ({platform.version()})"
    else:
        pretty = f"{system} {platform.release()}"
    return PlatformInfo(os_name, pretty.strip(), cpu_features.normalise_arch(platform.machine()))


def probe_cpu(p: PlatformInfo) -> CpuInfo:
    return cpu_features.probe_cpu(p.os_name, p.arch)


def probe_memory() -> MemoryInfo:
    vm = psutil.virtual_memory()
    return MemoryInfo(total_bytes=int(vm.total), available_bytes=int(vm.available))


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def probe_nvidia() -> tuple[GpuInfo | Absent, ...]:
    try:
        import pynvml
    except ImportError as exc:
        raise Unavailable("NVML not available (nvidia-ml-py not installed)") from exc
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        code = getattr(exc, "value", None)
        if code == pynvml.NVML_ERROR_LIBRARY_NOT_FOUND:
            raise Unavailable(f"no NVIDIA driver ({exc})") from exc
        if code == pynvml.NVML_ERROR_DRIVER_NOT_LOADED:
            raise Unavailable(f"NVIDIA driver not loaded ({exc})") from exc
        raise Unavailable(f"NVML could not start: {exc}") from exc
    found: list[GpuInfo | Absent] = []
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        for i in range(int(pynvml.nvmlDeviceGetCount())):
            try:
                handle = pynvml.nvmlDeviceGetHandleByIndex(i)
                mem = pynvml.nvmlDeviceGetMemoryInfo(handle)
                try:
                    major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
                    capability: str | None = f"{major}.{minor}"
                except pynvml.NVMLError:
                    capability = None
                free = int(mem.free)
                found.append(
                    GpuInfo(
                        vendor="nvidia",
                        name=_text(pynvml.nvmlDeviceGetName(handle)),
                        index=i,
                        total_bytes=int(mem.total),
                        free_bytes=free,
                        api="cuda",
                        driver=driver,
                        compute_capability=capability,
                        unified_memory=False,
                        budget_bytes=free,
                        estimated=False,
                    )
                )
            except pynvml.NVMLError as exc:
                found.append(Absent(f"NVIDIA GPU {i}", f"NVML could not read it: {exc}"))
    finally:
        pynvml.nvmlShutdown()
    if not found:
        raise Unavailable("the NVIDIA driver is loaded but reports no GPU")
    return tuple(found)


def probe_apple_gpu(
    p: PlatformInfo,
    memory: MemoryInfo,
    *,
    sysctl: Callable[[Sequence[str]], dict[str, str]] = cpu_features.read_sysctl,
) -> tuple[GpuInfo | Absent, ...]:
    if p.os_name != "darwin":
        raise Unavailable("not macOS")
    if p.arch != "arm64":
        raise Unavailable(f"this Python runs as {p.arch}, not Apple Silicon (arm64)")
    values = sysctl(["machdep.cpu.brand_string", "iogpu.wired_limit_mb"])
    wired = values.get("iogpu.wired_limit_mb", "")
    budget = estimate_metal_budget(memory.total_bytes, int(wired) if wired.isdigit() else None)
    gpu = GpuInfo(
        vendor="apple",
        name=values.get("machdep.cpu.brand_string") or "Apple Silicon",
        index=0,
        total_bytes=memory.total_bytes,
        free_bytes=memory.available_bytes,
        api="metal",
        driver=None,
        compute_capability=None,
        unified_memory=True,
        budget_bytes=budget,
        estimated=True,
    )
    return (gpu,)


def probe_ort() -> OrtInfo:
    try:
        onnxruntime = import_onnxruntime()
    except ImportError as exc:
        raise Unavailable(f"not installed ({exc})") from exc
    providers = tuple(str(x) for x in onnxruntime.get_available_providers())
    return OrtInfo(available=True, version=str(onnxruntime.__version__), providers=providers)


def probe_coreml(p: PlatformInfo) -> CoreMLInfo:
    if p.os_name != "darwin":
        raise Unavailable("not macOS")
    # find_spec, not import: importing coremltools costs seconds (it pulls in numpy/protobuf).
    if importlib.util.find_spec("coremltools") is None:
        raise Unavailable("coremltools is not installed")
    return CoreMLInfo(available=True, reason="coremltools is installed")


@contextmanager
def _quiet_llama_logs() -> Iterator[None]:
    # llama-cpp-python echoes every native log line to stderr until a model sets it quiet;
    # device discovery would otherwise spill backend init chatter into the CLI's output.
    logger = logging.getLogger("llama-cpp-python")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _ggml_devices(llama_cpp: Any) -> tuple[str, ...]:
    """Names from ggml's device registry, which llama-cpp-python does not wrap: bind it here."""
    from llama_cpp import _ggml

    libs: list[Any] = [_ggml.libggml]
    lib_dir = Path(llama_cpp.__file__).parent / "lib"
    # Windows resolves a symbol only in the DLL asked, and the device calls live in ggml-base.
    if sys.platform == "win32":
        libs += [ctypes.CDLL(str(f)) for f in lib_dir.glob("*ggml-base.dll")]

    def bind(name: str, restype: Any, *argtypes: Any) -> Any:
        for lib in libs:
            try:
                return ctypes.CFUNCTYPE(restype, *argtypes)((name, lib))
            except AttributeError:
                continue
        raise AttributeError(name)

    count = bind("ggml_backend_dev_count", ctypes.c_size_t)
    get = bind("ggml_backend_dev_get", ctypes.c_void_p, ctypes.c_size_t)
    dev_name = bind("ggml_backend_dev_name", ctypes.c_char_p, ctypes.c_void_p)
    return tuple(_text(dev_name(get(i))) for i in range(int(count())))


def probe_llama_cpp() -> LlamaCppInfo:
    try:
        import llama_cpp
    except (ImportError, OSError, RuntimeError) as exc:
        # A wheel built for another CUDA, or a missing libgomp, fails at import with OSError or
        # llama-cpp-python's RuntimeError("Failed to load shared library …").
        raise Unavailable(f"llama-cpp-python cannot load: {exc}") from exc
    with _quiet_llama_logs():
        offload = bool(llama_cpp.llama_supports_gpu_offload())
        system_info = _text(llama_cpp.llama_print_system_info()).strip()
        backends, cpu_flags = cpu_features.parse_ggml_system_info(system_info)
        try:
            devices = _ggml_devices(llama_cpp)
        except (AttributeError, OSError, ImportError):
            devices = backends
    return LlamaCppInfo(
        available=True,
        version=str(getattr(llama_cpp, "__version__", "unknown")),
        supports_gpu_offload=offload,
        devices=devices,
        system_info=system_info,
        cpu_features=cpu_flags,
    )


@dataclass(frozen=True, slots=True)
class Probes:
    platform: Callable[[], PlatformInfo] = probe_platform
    cpu: Callable[[PlatformInfo], CpuInfo] = probe_cpu
    memory: Callable[[], MemoryInfo] = probe_memory
    nvidia: Callable[[], tuple[GpuInfo | Absent, ...]] = probe_nvidia
    apple_gpu: Callable[[PlatformInfo, MemoryInfo], tuple[GpuInfo | Absent, ...]] = probe_apple_gpu
    ort: Callable[[], OrtInfo] = probe_ort
    coreml: Callable[[PlatformInfo], CoreMLInfo] = probe_coreml
    llama_cpp: Callable[[], LlamaCppInfo] = probe_llama_cpp


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

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["ort"]["known_providers"] = self.ort.known()
        data["ort"]["npus"] = self.ort.npus()
        data["best_device"] = self.best_device()
        return data

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

    def best_device(self) -> str:
        """One sentence on where GGUF models would run: the GPU llama.cpp can use, else the CPU."""
        if not self.llama_cpp.available:
            return (
                f"nothing for GGUF yet: llama.cpp is unavailable ({self.llama_cpp.reason}); "
                f"it would run on the {self._cpu_phrase()}"
            )
        for gpu in sorted(self.gpus, key=lambda g: g.budget_bytes, reverse=True):
            backend = self._backend_for(gpu)
            if backend is None:
                continue
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
            providers = ", ".join(self.ort.providers) or "none"
            lines.append(f"ONNX Runtime {self.ort.version}: {providers}")
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


def _attempt(
    what: str, probe: Callable[[], T], fallback: Callable[[str], T], absent: list[Absent]
) -> T:
    try:
        return probe()
    except Unavailable as exc:
        reason = str(exc)
    except Exception as exc:  # a broken probe must cost one line of the report, not the report
        reason = f"probe failed: {type(exc).__name__}: {exc}"
    absent.append(Absent(what, reason))
    return fallback(reason)


def _split(found: Sequence[GpuInfo | Absent], absent: list[Absent]) -> list[GpuInfo]:
    absent += [x for x in found if isinstance(x, Absent)]
    return [x for x in found if isinstance(x, GpuInfo)]


def probe_hardware(probes: Probes | None = None) -> HardwareReport:
    pr = probes or Probes()
    absent: list[Absent] = []
    plat = _attempt(
        "platform", pr.platform, lambda _: PlatformInfo("unknown", "unknown", "unknown"), absent
    )
    cpu = _attempt(
        "CPU details",
        lambda: pr.cpu(plat),
        lambda _: CpuInfo("unknown CPU", plat.arch, os.cpu_count() or 1, os.cpu_count() or 1, ()),
        absent,
    )
    # Zero memory makes every fit check fail, which is the safe way to be wrong.
    memory = _attempt("memory", pr.memory, lambda _: MemoryInfo(0, 0), absent)
    gpus = _split(_attempt("NVIDIA GPU", pr.nvidia, lambda _: (), absent), absent)
    gpus += _split(
        _attempt("Apple GPU (Metal)", lambda: pr.apple_gpu(plat, memory), lambda _: (), absent),
        absent,
    )
    ort = _attempt("ONNX Runtime", pr.ort, lambda r: OrtInfo(False, None, (), r), absent)
    if ort.available and not ort.npus():
        names = ", ".join(p.removesuffix("ExecutionProvider") for p in NPU_PROVIDERS)
        absent.append(Absent("NPU", f"no NPU execution provider in ONNX Runtime ({names})"))
    coreml = _attempt("Core ML", lambda: pr.coreml(plat), lambda r: CoreMLInfo(False, r), absent)
    llama = _attempt(
        "llama.cpp", pr.llama_cpp, lambda r: LlamaCppInfo(False, None, False, (), "", (), r), absent
    )
    if not cpu.features and llama.cpu_features:
        # The build's own CPU kernels run here, so what it was compiled for is present: a
        # fallback for platforms that do not list features (or list only a few).
        got = cpu_features.from_ggml_names(llama.cpu_features)
        cpu = dataclasses.replace(
            cpu, features=got, features_reason=None if got else cpu.features_reason
        )
    if not cpu.features:
        absent.append(Absent("CPU SIMD features", cpu.features_reason or "not reported"))
    return HardwareReport(
        os=plat.os,
        os_name=plat.os_name,
        cpu=cpu,
        memory=memory,
        gpus=tuple(gpus),
        ort=ort,
        coreml=coreml,
        llama_cpp=llama,
        absent=tuple(absent),
    )

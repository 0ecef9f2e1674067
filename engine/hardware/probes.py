"""Probe the machine: every probe is a small function gathered in :class:`Probes`, so tests (and
odd platforms) can swap any of them. :func:`probe_hardware` never raises: a probe that fails, or
finds nothing, turns into an :class:`Absent` entry whose reason is shown to the user as is.
Runtimes are imported inside their probes so that importing this module stays cheap.
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

from engine.errors import ProbeUnavailable
from engine.hardware import cpu_features
from engine.hardware.cpu_features import CpuInfo
from engine.hardware.report import (
    NPU_PROVIDERS,
    Absent,
    CoreMLInfo,
    GpuInfo,
    HardwareReport,
    LlamaCppInfo,
    MemoryInfo,
    OrtInfo,
    PlatformInfo,
)
from engine.native.lock import GGML_LOCK
from engine.native.ort import import_onnxruntime

T = TypeVar("T")
MiB = 1024**2
GiB = 1024**3


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
        raise ProbeUnavailable("NVML not available (nvidia-ml-py not installed)") from exc
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        code = getattr(exc, "value", None)
        if code == pynvml.NVML_ERROR_LIBRARY_NOT_FOUND:
            raise ProbeUnavailable(f"no NVIDIA driver ({exc})") from exc
        if code == pynvml.NVML_ERROR_DRIVER_NOT_LOADED:
            raise ProbeUnavailable(f"NVIDIA driver not loaded ({exc})") from exc
        raise ProbeUnavailable(f"NVML could not start: {exc}") from exc
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
                bandwidth = _nvml_bandwidth(pynvml, handle)
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
                        bandwidth_bytes_per_s=bandwidth,
                    )
                )
            except pynvml.NVMLError as exc:
                found.append(Absent(f"NVIDIA GPU {i}", f"NVML could not read it: {exc}"))
    finally:
        pynvml.nvmlShutdown()
    if not found:
        raise ProbeUnavailable("the NVIDIA driver is loaded but reports no GPU")
    return tuple(found)


def _nvml_bandwidth(pynvml: Any, handle: Any) -> float | None:
    """Peak memory bandwidth from the driver: the bus's bytes times the memory clock, twice a
    cycle (the double data rate NVML's clock counts once: 2619 MHz on a 5120-bit H100 SXM bus
    gives its rated 3.35 TB/s)."""
    try:
        bus_bits = int(pynvml.nvmlDeviceGetMemoryBusWidth(handle))
        clock_mhz = int(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM))
    except (pynvml.NVMLError, AttributeError):
        return None
    if bus_bits <= 0 or clock_mhz <= 0:
        return None
    return bus_bits / 8 * clock_mhz * 1e6 * 2


def probe_apple_gpu(
    p: PlatformInfo,
    memory: MemoryInfo,
    *,
    sysctl: Callable[[Sequence[str]], dict[str, str]] = cpu_features.read_sysctl,
) -> tuple[GpuInfo | Absent, ...]:
    if p.os_name != "darwin":
        raise ProbeUnavailable("not macOS")
    if p.arch != "arm64":
        raise ProbeUnavailable(f"this Python runs as {p.arch}, not Apple Silicon (arm64)")
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
        raise ProbeUnavailable(f"not installed ({exc})") from exc
    providers = tuple(str(x) for x in onnxruntime.get_available_providers())
    return OrtInfo(
        available=True,
        version=str(onnxruntime.__version__),
        providers=providers,
        devices=_ep_devices(onnxruntime),
    )


def _ep_devices(onnxruntime: Any) -> tuple[str, ...]:
    """Each execution provider's devices ("QNNExecutionProvider:NPU:Qualcomm"), from ONNX
    Runtime's device discovery (1.22 and later; older ones say nothing)."""
    listing = getattr(onnxruntime, "get_ep_devices", None)
    if listing is None:
        return ()
    found: list[str] = []
    try:
        for entry in listing():
            kind = str(entry.device.type).rsplit(".", 1)[-1]
            vendor = str(entry.device.vendor or entry.ep_vendor or "")
            found.append(f"{entry.ep_name}:{kind}:{vendor}")
    except Exception:  # a provider's discovery failing must not fail the probe
        return tuple(found)
    return tuple(dict.fromkeys(found))


def probe_coreml(p: PlatformInfo) -> CoreMLInfo:
    if p.os_name != "darwin":
        raise ProbeUnavailable("not macOS")
    # find_spec, not import: importing coremltools costs seconds (it pulls in numpy/protobuf).
    if importlib.util.find_spec("coremltools") is None:
        raise ProbeUnavailable("coremltools is not installed")
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
    devices = (get(i) for i in range(int(count())))
    return tuple(_text(dev_name(d)) for d in devices if d)  # NULL would abort in ggml


def probe_llama_cpp() -> LlamaCppInfo:
    try:
        import llama_cpp
    except (ImportError, OSError, RuntimeError) as exc:
        # A wheel built for another CUDA, or a missing libgomp, fails at import with OSError or
        # llama-cpp-python's RuntimeError("Failed to load shared library …").
        raise ProbeUnavailable(f"llama-cpp-python cannot load: {exc}") from exc
    with _quiet_llama_logs(), GGML_LOCK:
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


def _attempt(
    what: str, probe: Callable[[], T], fallback: Callable[[str], T], absent: list[Absent]
) -> T:
    try:
        return probe()
    except ProbeUnavailable as exc:
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

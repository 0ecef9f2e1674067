"""What this machine offers for running models: ``probes`` asks the machine, ``report`` is what it
found, as plain data. Reading a report never imports a runtime; probing does, inside functions."""

from engine.hardware.cpu_features import CpuInfo
from engine.hardware.probes import (
    GiB,
    MiB,
    Probes,
    estimate_metal_budget,
    probe_apple_gpu,
    probe_coreml,
    probe_cpu,
    probe_hardware,
    probe_llama_cpp,
    probe_memory,
    probe_nvidia,
    probe_ort,
    probe_platform,
)
from engine.hardware.report import (
    KNOWN_PROVIDERS,
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

__all__ = [
    "KNOWN_PROVIDERS",
    "NPU_PROVIDERS",
    "Absent",
    "CoreMLInfo",
    "CpuInfo",
    "GiB",
    "GpuInfo",
    "HardwareReport",
    "LlamaCppInfo",
    "MemoryInfo",
    "MiB",
    "OrtInfo",
    "PlatformInfo",
    "Probes",
    "estimate_metal_budget",
    "probe_apple_gpu",
    "probe_coreml",
    "probe_cpu",
    "probe_hardware",
    "probe_llama_cpp",
    "probe_memory",
    "probe_nvidia",
    "probe_ort",
    "probe_platform",
]

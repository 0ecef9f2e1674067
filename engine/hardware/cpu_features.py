"""CPU model and SIMD features, read the way each OS exposes them.

Feature names are normalised to one vocabulary (Linux's x86 flag names, and ``neon``/``dotprod``/
``i8mm``/``sve``… on Arm) because that is what decides which llama.cpp kernels can run. Parsers
are pure functions of text so they can be tested with captured samples; the readers that touch
the OS are small, and return ``None`` (or nothing) where their source does not exist.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import psutil


@dataclass(frozen=True, slots=True)
class CpuInfo:
    model: str
    arch: str
    physical_cores: int
    logical_cores: int
    features: tuple[str, ...]
    features_reason: str | None = None  # why ``features`` is empty, when it is


# Only the extensions that change which matmul/quantisation kernels are usable; the full flag
# list is noise for a person choosing a model.
X86_FEATURES: tuple[str, ...] = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx_vnni",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
)

# /proc/cpuinfo "Features" on arm64 uses the kernel's HWCAP names.
ARM_LINUX_FEATURES: Mapping[str, str] = {
    "asimd": "neon",
    "asimdhp": "fp16",
    "asimddp": "dotprod",
    "i8mm": "i8mm",
    "bf16": "bf16",
    "sve": "sve",
    "sve2": "sve2",
    "sme": "sme",
}

MACOS_X86_FEATURES: Mapping[str, str] = {
    "SSE4.2": "sse4_2",
    "AVX1.0": "avx",
    "AVX2": "avx2",
    "FMA": "fma",
    "F16C": "f16c",
    "AVX512F": "avx512f",
    "AVX512BW": "avx512bw",
    "AVX512VL": "avx512vl",
    "AVX512VNNI": "avx512_vnni",
}

MACOS_ARM_SYSCTLS: Mapping[str, str] = {
    "hw.optional.neon": "neon",
    "hw.optional.arm.FEAT_FP16": "fp16",
    "hw.optional.arm.FEAT_DotProd": "dotprod",
    "hw.optional.arm.FEAT_I8MM": "i8mm",
    "hw.optional.arm.FEAT_BF16": "bf16",
    "hw.optional.arm.FEAT_SME": "sme",
}

MACOS_CPU_SYSCTLS: tuple[str, ...] = (
    "machdep.cpu.brand_string",
    "machdep.cpu.features",
    "machdep.cpu.leaf7_features",
    *MACOS_ARM_SYSCTLS,
)

# PF_* values from winnt.h, as documented for IsProcessorFeaturePresent. Windows reports far
# fewer extensions than CPUID does (no FMA, F16C or VNNI), so the list is honest but short.
WINDOWS_FEATURES: Mapping[int, str] = {
    19: "neon",  # PF_ARM_NEON_INSTRUCTIONS_AVAILABLE
    38: "sse4_2",  # PF_SSE4_2_INSTRUCTIONS_AVAILABLE
    39: "avx",  # PF_AVX_INSTRUCTIONS_AVAILABLE
    40: "avx2",  # PF_AVX2_INSTRUCTIONS_AVAILABLE
    41: "avx512f",  # PF_AVX512F_INSTRUCTIONS_AVAILABLE
    43: "dotprod",  # PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE
    46: "sve",  # PF_ARM_SVE_INSTRUCTIONS_AVAILABLE
    47: "sve2",  # PF_ARM_SVE2_INSTRUCTIONS_AVAILABLE
    66: "i8mm",  # PF_ARM_V82_I8MM_INSTRUCTIONS_AVAILABLE
}

_ORDER: tuple[str, ...] = X86_FEATURES + tuple(dict.fromkeys(ARM_LINUX_FEATURES.values()))


def normalise_arch(machine: str) -> str:
    m = machine.strip().lower()
    if m in ("x86_64", "amd64", "x64", "em64t"):
        return "x86_64"
    if m in ("arm64", "aarch64", "arm64e"):
        return "arm64"
    return m or "unknown"


def ordered(features: Iterable[str]) -> tuple[str, ...]:
    """Known features in a stable, roughly 'older to newer' order; unknown ones dropped."""
    present = set(features)
    return tuple(f for f in _ORDER if f in present)


def parse_proc_cpuinfo(text: str) -> tuple[str | None, tuple[str, ...]]:
    """Model name and features from Linux /proc/cpuinfo (first processor block is enough)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        # Keys repeat per processor; the first block describes them all on these machines.
        fields.setdefault(key.strip().lower(), value.strip())
    model = fields.get("model name") or fields.get("model") or fields.get("hardware")
    if model is not None and model.isdigit():
        model = None  # x86 "model" is a number; only Arm boards put a name there
    if "flags" in fields:
        return model, ordered(fields["flags"].split())
    arm = [
        ARM_LINUX_FEATURES[f] for f in fields.get("features", "").split() if f in ARM_LINUX_FEATURES
    ]
    if model is None and "cpu implementer" in fields:
        model = (
            f"Arm CPU (implementer {fields['cpu implementer']}, part {fields.get('cpu part', '?')})"
        )
    return model, ordered(arm)


def parse_sysctl(text: str) -> dict[str, str]:
    """``sysctl a b c`` output (``name: value`` lines) as a dict; unknown names are left out."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            values[key.strip()] = value.strip()
    return values


def parse_macos_features(values: Mapping[str, str]) -> tuple[str, ...]:
    found: list[str] = []
    for key in ("machdep.cpu.features", "machdep.cpu.leaf7_features"):
        found += [
            MACOS_X86_FEATURES[w] for w in values.get(key, "").split() if w in MACOS_X86_FEATURES
        ]
    found += [name for key, name in MACOS_ARM_SYSCTLS.items() if values.get(key) == "1"]
    return ordered(found)


def read_proc_cpuinfo() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def read_sysctl(names: Sequence[str]) -> dict[str, str]:
    """One ``sysctl`` call for many names: a process per name would cost ~10 ms each."""
    try:
        done = subprocess.run(
            ["sysctl", *names], capture_output=True, text=True, timeout=2.0, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    return parse_sysctl(done.stdout)


def read_windows_cpu() -> tuple[str | None, tuple[str, ...]] | None:
    if sys.platform != "win32":
        return None
    import ctypes
    import winreg

    present = ctypes.windll.kernel32.IsProcessorFeaturePresent
    features = ordered(name for pf, name in WINDOWS_FEATURES.items() if present(pf))
    model: str | None = platform.processor() or None
    try:
        key = r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"
        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key) as k:
            model = str(winreg.QueryValueEx(k, "ProcessorNameString")[0]).strip() or model
    except OSError:
        pass
    return model, features


# ggml's names for what its CPU backend was built with (llama_print_system_info), where they
# differ from ours.
_GGML_NAMES: Mapping[str, str] = {
    "avx512": "avx512f",
    "matmul_int8": "i8mm",
    "fp16_va": "fp16",
}


def from_ggml_names(names: Iterable[str]) -> tuple[str, ...]:
    return ordered(_GGML_NAMES.get(n.lower(), n.lower()) for n in names)


def parse_ggml_system_info(info: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Backends and the CPU backend's features from "CUDA : ARCHS = 890 | CPU : AVX2 = 1 | …"."""
    backends: list[str] = []
    cpu: list[str] = []
    section = ""
    for item in info.split("|"):
        head, sep, rest = item.partition(" : ")
        if sep:
            section = head.strip()
            backends.append(section)
            item = rest
        key, _, value = item.partition("=")
        if section == "CPU" and value.strip() == "1":
            cpu.append(key.strip())
    return tuple(backends), tuple(cpu)


def probe_cpu(
    os_name: str,
    arch: str,
    *,
    cpuinfo: Callable[[], str | None] = read_proc_cpuinfo,
    sysctl: Callable[[Sequence[str]], dict[str, str]] = read_sysctl,
    windows: Callable[[], tuple[str | None, tuple[str, ...]] | None] = read_windows_cpu,
) -> CpuInfo:
    logical = psutil.cpu_count(logical=True) or os.cpu_count() or 1
    # Containers and some VMs hide the topology; logical cores are then the honest upper bound.
    physical = psutil.cpu_count(logical=False) or logical
    model: str | None = None
    features: tuple[str, ...] = ()
    reason: str | None = None
    if os_name == "linux":
        text = cpuinfo()
        if text is None:
            reason = "/proc/cpuinfo is not readable"
        else:
            model, features = parse_proc_cpuinfo(text)
    elif os_name == "darwin":
        values = sysctl(MACOS_CPU_SYSCTLS)
        model = values.get("machdep.cpu.brand_string")
        features = parse_macos_features(values)
        reason = None if values else "sysctl gave no answer"
    elif os_name == "windows":
        found = windows()
        if found is None:
            reason = "IsProcessorFeaturePresent is unavailable"
        else:
            model, features = found
    else:
        reason = f"no feature probe for {os_name}"
    if not features and reason is None:
        reason = "none of the extensions llama.cpp uses were reported"
    return CpuInfo(
        model=model or platform.processor() or "unknown CPU",
        arch=arch,
        physical_cores=physical,
        logical_cores=logical,
        features=features,
        features_reason=None if features else reason,
    )

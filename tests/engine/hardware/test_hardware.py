"""Hardware probing: the real probe on this machine, then every branch through injected fakes."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from engine.errors import ProbeUnavailable
from engine.hardware import (
    Absent,
    CoreMLInfo,
    CpuInfo,
    GiB,
    GpuInfo,
    HardwareReport,
    LlamaCppInfo,
    MemoryInfo,
    MiB,
    OrtInfo,
    PlatformInfo,
    Probes,
    cpu_features,
    estimate_metal_budget,
    probe_apple_gpu,
    probe_hardware,
    probe_llama_cpp,
)
from engine.units import format_bytes

LINUX = PlatformInfo("linux", "Linux 6.8.0", "x86_64")
MAC_ARM = PlatformInfo("darwin", "macOS 14.5", "arm64")

# First processor block of an Intel Core i7-1165G7 laptop (Tiger Lake), trimmed of bug lists.
X86_CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 140
model name\t: 11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz
stepping\t: 1
cpu MHz\t\t: 1689.600
cache size\t: 12288 KB
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush \
dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon \
pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 \
monitor ds_cpl vmx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic movbe popcnt \
tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb \
invpcid_single ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept vpid ept_ad fsgsbase \
tsc_adjust bmi1 avx2 smep bmi2 erms invpcid rdt_a avx512f avx512dq rdseed adx smap avx512ifma \
clflushopt clwb intel_pt avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves \
split_lock_detect dtherm ida arat pln pts hwp hwp_notify hwp_act_window hwp_epp hwp_pkg_req \
avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme \
avx512_vpopcntdq rdpid movdiri movdir64b fsrm avx512_vp2intersect md_clear ibt flush_l1d \
arch_capabilities
bogomips\t: 5606.40

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: 11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz
flags\t\t: fpu vme
"""

# An AWS Graviton3 (Neoverse V1) core: arm64 /proc/cpuinfo has no model name, only part numbers.
ARM_CPUINFO = """\
processor\t: 0
BogoMIPS\t: 2100.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm \
jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs \
paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x1
CPU part\t: 0xd40
CPU revision\t: 1
"""

# A Raspberry Pi 5 names the board at the end of the file.
PI_CPUINFO = """\
processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm \
lrcpc dcpop asimddp
CPU implementer\t: 0x41
CPU part\t: 0xd0b

Revision\t: d04170
Serial\t\t: 2b7e1a5f03c6d9f1
Model\t\t: Raspberry Pi 5 Model B Rev 1.0
"""

# `sysctl` output on an M2 Pro MacBook; names it does not know are simply left out.
M2_SYSCTL = """\
machdep.cpu.brand_string: Apple M2 Pro
hw.optional.neon: 1
hw.optional.arm.FEAT_FP16: 1
hw.optional.arm.FEAT_DotProd: 1
hw.optional.arm.FEAT_I8MM: 1
hw.optional.arm.FEAT_BF16: 1
hw.optional.arm.FEAT_SME: 0
iogpu.wired_limit_mb: 0
"""

INTEL_MAC_SYSCTL = """\
machdep.cpu.brand_string: Intel(R) Core(TM) i9-9980HK CPU @ 2.40GHz
machdep.cpu.features: FPU VME DE PSE TSC MSR PAE MCE CX8 APIC SEP MTRR PGE MCA CMOV PAT PSE36 \
CLFSH DS ACPI MMX FXSR SSE SSE2 SS HTT TM PBE SSE3 PCLMULQDQ DTES64 MON DSCPL VMX EST TM2 SSSE3 \
FMA CX16 TPR PDCM SSE4.1 SSE4.2 x2APIC MOVBE POPCNT AES PCID XSAVE OSXSAVE SEGLIM64 TSCTMR \
AVX1.0 RDRAND F16C
machdep.cpu.leaf7_features: RDWRFSGS TSC_THREAD_OFFSET SGX BMI1 HLE AVX2 SMEP BMI2 ERMS INVPCID \
RTM FPU_CSDS MPX RDSEED ADX SMAP CLFSOPT IPT SGXLC MDCLEAR TSXFA IBRS STIBP L1DF SSBD
"""


def _sysctl(text: str) -> Callable[[Sequence[str]], dict[str, str]]:
    values = cpu_features.parse_sysctl(text)

    def read(names: Sequence[str]) -> dict[str, str]:
        return {n: values[n] for n in names if n in values}

    return read


def _llama(devices: tuple[str, ...], offload: bool) -> LlamaCppInfo:
    return LlamaCppInfo(True, "0.3.36", offload, devices, "CPU : AVX2 = 1 | FMA = 1 |", ("AVX2",))


def _raise(exc: BaseException) -> Callable[..., Any]:
    def probe(*_: object) -> Any:
        raise exc

    return probe


def _quiet(**overrides: object) -> Probes:
    """Fakes for everything not under test, so the result does not depend on this machine."""
    base: dict[str, object] = {
        "platform": lambda: LINUX,
        "cpu": lambda p: CpuInfo("Test CPU", p.arch, 8, 16, ("sse4_2", "avx", "avx2")),
        "memory": lambda: MemoryInfo(32 * GiB, 20 * GiB),
        "nvidia": _raise(ProbeUnavailable("no NVIDIA driver (NVML Shared Library Not Found)")),
        "apple_gpu": _raise(ProbeUnavailable("not macOS")),
        "ort": lambda: OrtInfo(True, "1.20.1", ("CPUExecutionProvider",)),
        "coreml": _raise(ProbeUnavailable("not macOS")),
        "llama_cpp": lambda: _llama(("CPU",), False),
    }
    base.update(overrides)
    return Probes(**base)  # type: ignore[arg-type]


def _absent(report: HardwareReport, what: str) -> Absent:
    found = [a for a in report.absent if a.what == what]
    assert found, f"no Absent entry for {what!r} in {report.absent}"
    return found[0]


# --- the real machine ---------------------------------------------------------------------


def test_real_probe_describes_this_machine() -> None:
    report = probe_hardware()

    assert report.os_name in ("linux", "darwin", "windows")
    assert report.cpu.physical_cores >= 1
    assert report.cpu.logical_cores >= report.cpu.physical_cores
    assert 256 * MiB < report.memory.total_bytes < 64 * 1024 * GiB
    assert 0 < report.memory.available_bytes <= report.memory.total_bytes
    if not any(g.vendor == "nvidia" for g in report.gpus):
        assert _absent(report, "NVIDIA GPU").reason
    if not report.gpus:
        assert "CPU" in report.best_device()
    if report.os_name != "darwin":
        assert _absent(report, "Core ML").reason == "not macOS"

    data = report.to_dict()
    assert json.loads(json.dumps(data))["best_device"] == report.best_device()
    assert set(data["ort"]["known_providers"]) >= {"CPUExecutionProvider", "QNNExecutionProvider"}
    lines = report.summary_lines()
    assert lines[0].startswith("OS: ")
    assert any(line.startswith("Best for GGUF: ") for line in lines)
    if report.absent:
        assert "Not found:" in lines


def test_importing_the_module_loads_no_runtime() -> None:
    code = (
        "import sys, engine.hardware; "
        "print([m for m in ('llama_cpp', 'onnxruntime', 'pynvml', 'coremltools') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_real_llama_cpp_build_lists_its_devices() -> None:
    pytest.importorskip("llama_cpp")
    info = probe_llama_cpp()
    assert info.available and info.version
    assert "CPU" in info.devices
    assert "CPU" in info.system_info and info.cpu_features


# --- NVIDIA through a fake NVML -----------------------------------------------------------


class _NVMLError(Exception):
    def __init__(self, value: int, text: str) -> None:
        super().__init__(text)
        self.value = value


def _fake_pynvml(
    gpus: Sequence[tuple[str, int, int]], init_error: _NVMLError | None = None, bad: int = -1
) -> types.ModuleType:
    """The calls probe_nvidia makes, answering like nvidia-ml-py 12+ (str names, not bytes)."""
    m = types.ModuleType("pynvml")
    m.NVMLError = _NVMLError  # type: ignore[attr-defined]
    m.NVML_ERROR_LIBRARY_NOT_FOUND = 12  # type: ignore[attr-defined]
    m.NVML_ERROR_DRIVER_NOT_LOADED = 9  # type: ignore[attr-defined]
    calls: list[str] = []
    m.calls = calls  # type: ignore[attr-defined]

    def init() -> None:
        calls.append("init")
        if init_error is not None:
            raise init_error

    def memory(handle: int) -> types.SimpleNamespace:
        if handle == bad:
            raise _NVMLError(999, "Unknown Error")
        _, total, free = gpus[handle]
        return types.SimpleNamespace(total=total, free=free, used=total - free)

    m.nvmlInit = init  # type: ignore[attr-defined]
    m.nvmlShutdown = lambda: calls.append("shutdown")  # type: ignore[attr-defined]
    m.nvmlSystemGetDriverVersion = lambda: "550.54.15"  # type: ignore[attr-defined]
    m.nvmlDeviceGetCount = lambda: len(gpus)  # type: ignore[attr-defined]
    m.nvmlDeviceGetHandleByIndex = lambda i: i  # type: ignore[attr-defined]
    m.nvmlDeviceGetName = lambda h: gpus[h][0]  # type: ignore[attr-defined]
    m.nvmlDeviceGetMemoryInfo = memory  # type: ignore[attr-defined]
    m.nvmlDeviceGetCudaComputeCapability = lambda h: (8, 9) if h == 0 else (8, 6)  # type: ignore[attr-defined]
    return m


def test_fake_nvml_with_two_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    nvml = _fake_pynvml(
        [("NVIDIA GeForce RTX 4090", 24 * GiB, 22 * GiB), ("NVIDIA RTX A4000", 16 * GiB, 15 * GiB)]
    )
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    from engine.hardware import probe_nvidia

    report = probe_hardware(
        _quiet(nvidia=probe_nvidia, llama_cpp=lambda: _llama(("CUDA0", "CUDA1", "CPU"), True))
    )
    assert [g.name for g in report.gpus] == ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A4000"]
    first, second = report.gpus
    assert (first.total_bytes, first.free_bytes, first.budget_bytes) == (
        24 * GiB,
        22 * GiB,
        22 * GiB,
    )
    assert second.index == 1 and second.compute_capability == "8.6"
    assert first.api == "cuda" and first.driver == "550.54.15" and not first.estimated
    assert not any(a.what.startswith("NVIDIA") for a in report.absent)
    assert report.best_device() == "CUDA: NVIDIA GeForce RTX 4090 (22.0 GiB free)"
    assert (
        "GPU 1: NVIDIA RTX A4000 (CUDA, compute 8.6, driver 550.54.15): 15.0 GiB free of 16.0 GiB"
        in (report.summary_lines())
    )
    assert nvml.calls == ["init", "shutdown"]


def test_fake_nvml_without_driver_is_absent_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    error = _NVMLError(12, "NVML Shared Library Not Found")
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml([], init_error=error))
    from engine.hardware import probe_nvidia

    report = probe_hardware(_quiet(nvidia=probe_nvidia))
    assert report.gpus == ()
    assert str(_absent(report, "NVIDIA GPU")) == (
        "NVIDIA GPU: no NVIDIA driver (NVML Shared Library Not Found)"
    )


def test_one_unreadable_gpu_does_not_hide_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    gpus = [("NVIDIA L4", 24 * GiB, 23 * GiB), ("NVIDIA L4", 24 * GiB, 23 * GiB)]
    nvml = _fake_pynvml(gpus, bad=1)
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    from engine.hardware import probe_nvidia

    report = probe_hardware(_quiet(nvidia=probe_nvidia))
    assert [g.index for g in report.gpus] == [0]
    assert "Unknown Error" in _absent(report, "NVIDIA GPU 1").reason
    assert nvml.calls[-1] == "shutdown"


def test_nvml_module_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    from engine.hardware import probe_nvidia

    report = probe_hardware(_quiet(nvidia=probe_nvidia))
    assert _absent(report, "NVIDIA GPU").reason == "NVML not available (nvidia-ml-py not installed)"


def test_gpu_the_build_cannot_use_leaves_gguf_on_the_cpu() -> None:
    gpu = GpuInfo(
        "nvidia", "NVIDIA T4", 0, 16 * GiB, 15 * GiB, "cuda", "535", "7.5", False, 15 * GiB, False
    )
    report = probe_hardware(_quiet(nvidia=lambda: (gpu,)))
    assert report.best_device() == (
        "CPU (AVX2, 8 physical cores); this llama.cpp build cannot offload to the NVIDIA T4"
    )
    vulkan = probe_hardware(
        _quiet(nvidia=lambda: (gpu,), llama_cpp=lambda: _llama(("Vulkan0", "CPU"), True))
    )
    assert vulkan.best_device() == "Vulkan: NVIDIA T4 (15.0 GiB free)"


# --- failing probes -----------------------------------------------------------------------


def test_a_probe_that_raises_becomes_absent_and_the_report_survives() -> None:
    report = probe_hardware(_quiet(ort=_raise(RuntimeError("DLL load failed while importing"))))
    entry = _absent(report, "ONNX Runtime")
    assert entry.reason == "probe failed: RuntimeError: DLL load failed while importing"
    assert not report.ort.available and report.ort.reason == entry.reason
    assert report.ort.npus() == [] and report.cpu.model == "Test CPU"
    assert "  ONNX Runtime: probe failed: RuntimeError: DLL load failed while importing" in (
        report.summary_lines()
    )


def test_every_probe_failing_still_gives_a_report() -> None:
    boom = _raise(OSError("boom"))
    names = ("platform", "cpu", "memory", "nvidia", "apple_gpu", "ort", "coreml", "llama_cpp")
    report = probe_hardware(Probes(**dict.fromkeys(names, boom)))
    assert report.cpu.logical_cores >= 1 and report.memory == MemoryInfo(0, 0)
    assert {a.what for a in report.absent} >= {
        "platform",
        "CPU details",
        "memory",
        "NVIDIA GPU",
        "Apple GPU (Metal)",
        "ONNX Runtime",
        "Core ML",
        "llama.cpp",
        "CPU SIMD features",
    }
    assert report.best_device().startswith("nothing for GGUF yet: llama.cpp is unavailable")
    assert "CPU" in report.best_device()
    json.dumps(report.to_dict())
    assert report.summary_lines()


def test_keyboard_interrupt_is_not_swallowed() -> None:
    with pytest.raises(KeyboardInterrupt):
        probe_hardware(_quiet(memory=_raise(KeyboardInterrupt())))


# --- Apple Silicon ------------------------------------------------------------------------


def test_fake_apple_silicon_mac() -> None:
    sysctl = _sysctl(M2_SYSCTL)
    report = probe_hardware(
        _quiet(
            platform=lambda: MAC_ARM,
            cpu=lambda p: cpu_features.probe_cpu(p.os_name, p.arch, sysctl=sysctl),
            memory=lambda: MemoryInfo(16 * GiB, 9 * GiB),
            apple_gpu=lambda p, m: probe_apple_gpu(p, m, sysctl=sysctl),
            coreml=lambda p: CoreMLInfo(True, "coremltools is installed"),
            llama_cpp=lambda: _llama(("MTL0", "BLAS", "CPU"), True),
        )
    )
    assert report.os == "macOS 14.5" and report.cpu.model == "Apple M2 Pro"
    assert report.cpu.features == ("neon", "fp16", "dotprod", "i8mm", "bf16")
    (gpu,) = report.gpus
    assert (gpu.vendor, gpu.api, gpu.name, gpu.unified_memory) == (
        "apple",
        "metal",
        "Apple M2 Pro",
        True,
    )
    assert gpu.total_bytes == 16 * GiB and gpu.free_bytes == 9 * GiB
    assert gpu.estimated and gpu.budget_bytes == int(16 * GiB * 2 / 3)
    assert (
        report.best_device()
        == "Metal: Apple M2 Pro (about 10.7 GiB of 16.0 GiB unified memory usable)"
    )
    assert not any(a.what in ("Apple GPU (Metal)", "Core ML") for a in report.absent)
    assert any("~10.7 GiB usable by the GPU (estimated)" in line for line in report.summary_lines())


def test_metal_budget_follows_ram_size_and_the_wired_limit_override() -> None:
    assert estimate_metal_budget(8 * GiB) == int(8 * GiB * 2 / 3)
    assert estimate_metal_budget(36 * GiB) == 24 * GiB
    assert estimate_metal_budget(64 * GiB) == 48 * GiB
    assert estimate_metal_budget(128 * GiB) == 96 * GiB
    assert estimate_metal_budget(16 * GiB, wired_limit_mb=14000) == 14000 * MiB
    assert estimate_metal_budget(16 * GiB, wired_limit_mb=0) == int(16 * GiB * 2 / 3)
    raised = _sysctl("machdep.cpu.brand_string: Apple M3\niogpu.wired_limit_mb: 12000\n")
    (gpu,) = probe_apple_gpu(MAC_ARM, MemoryInfo(16 * GiB, 12 * GiB), sysctl=raised)
    assert isinstance(gpu, GpuInfo) and gpu.budget_bytes == 12000 * MiB


def test_no_metal_off_apple_silicon() -> None:
    memory = MemoryInfo(16 * GiB, 8 * GiB)
    with pytest.raises(ProbeUnavailable, match="not macOS"):
        probe_apple_gpu(LINUX, memory)
    with pytest.raises(ProbeUnavailable, match="arm64"):
        probe_apple_gpu(PlatformInfo("darwin", "macOS 13.6", "x86_64"), memory)


def test_core_ml_on_a_mac_without_coremltools() -> None:
    from engine.hardware import probe_coreml

    report = probe_hardware(_quiet(platform=lambda: MAC_ARM, coreml=probe_coreml))
    if report.coreml.available:  # only where coremltools is really installed
        return
    assert _absent(report, "Core ML").reason == "coremltools is not installed"


# --- ONNX Runtime -------------------------------------------------------------------------


def test_fake_onnxruntime_with_qnn_names_the_npu(monkeypatch: pytest.MonkeyPatch) -> None:
    ort = types.ModuleType("onnxruntime")
    ort.__version__ = "1.20.1"  # type: ignore[attr-defined]
    ort.get_available_providers = lambda: ["QNNExecutionProvider", "CPUExecutionProvider"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "onnxruntime", ort)
    from engine.hardware import probe_ort

    report = probe_hardware(_quiet(ort=probe_ort))
    assert report.ort.version == "1.20.1" and report.ort.has("QNNExecutionProvider")
    assert report.ort.npus() == ["Qualcomm Hexagon NPU"]
    assert (
        report.ort.known()["QNNExecutionProvider"]
        and not report.ort.known()["DmlExecutionProvider"]
    )
    assert not any(a.what == "NPU" for a in report.absent)
    assert "NPUs: Qualcomm Hexagon NPU" in report.summary_lines()
    assert report.to_dict()["ort"]["npus"] == ["Qualcomm Hexagon NPU"]


def test_each_provider_is_listed_with_the_devices_it_reaches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ONNX Runtime 1.22+ lists (provider, device) pairs: a Snapdragon X's, as it would."""

    def device(ep: str, kind: str, vendor: str) -> types.SimpleNamespace:
        hw = types.SimpleNamespace(type=f"OrtHardwareDeviceType.{kind}", vendor=vendor)
        return types.SimpleNamespace(ep_name=ep, ep_vendor="Microsoft", device=hw)

    ort = types.ModuleType("onnxruntime")
    ort.__version__ = "1.23.0"  # type: ignore[attr-defined]
    ort.get_available_providers = lambda: ["QNNExecutionProvider", "CPUExecutionProvider"]  # type: ignore[attr-defined]
    ort.get_ep_devices = lambda: [  # type: ignore[attr-defined]
        device("QNNExecutionProvider", "NPU", "Qualcomm"),
        device("QNNExecutionProvider", "GPU", "Qualcomm"),
        device("CPUExecutionProvider", "CPU", "Qualcomm"),
    ]
    monkeypatch.setitem(sys.modules, "onnxruntime", ort)
    from engine.hardware import probe_ort

    report = probe_hardware(_quiet(ort=probe_ort))
    assert report.ort.reach() == {
        "QNNExecutionProvider": ["NPU (Qualcomm)", "GPU (Qualcomm)"],
        "CPUExecutionProvider": ["CPU (Qualcomm)"],
    }
    assert (
        "ONNX Runtime 1.23.0: QNN (reaches NPU (Qualcomm), GPU (Qualcomm)), CPU (reaches CPU "
        "(Qualcomm))" in report.summary_lines()
    )
    again = HardwareReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.ort.reach() == report.ort.reach()


def test_onnxruntime_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    from engine.hardware import probe_ort

    report = probe_hardware(_quiet(ort=probe_ort))
    assert not report.ort.available
    assert _absent(report, "ONNX Runtime").reason.startswith("not installed")
    assert not any(a.what == "NPU" for a in report.absent)  # nothing to say about NPUs without ORT


def test_ort_without_npu_providers_says_so() -> None:
    report = probe_hardware(_quiet())
    assert "QNN, OpenVINO, VitisAI" in _absent(report, "NPU").reason


# --- CPU features -------------------------------------------------------------------------


def test_proc_cpuinfo_x86() -> None:
    model, features = cpu_features.parse_proc_cpuinfo(X86_CPUINFO)
    assert model == "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz"
    assert features == (
        "sse4_2",
        "avx",
        "avx2",
        "fma",
        "f16c",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512_vnni",
    )


def test_proc_cpuinfo_arm() -> None:
    model, features = cpu_features.parse_proc_cpuinfo(ARM_CPUINFO)
    assert model == "Arm CPU (implementer 0x41, part 0xd40)"
    assert features == ("neon", "fp16", "dotprod", "i8mm", "bf16", "sve")
    pi_model, pi_features = cpu_features.parse_proc_cpuinfo(PI_CPUINFO)
    assert pi_model == "Raspberry Pi 5 Model B Rev 1.0"
    assert pi_features == ("neon", "fp16", "dotprod")


def test_probe_cpu_on_linux_reads_the_given_cpuinfo() -> None:
    cpu = cpu_features.probe_cpu("linux", "arm64", cpuinfo=lambda: ARM_CPUINFO)
    assert cpu.arch == "arm64" and "dotprod" in cpu.features and cpu.features_reason is None
    unreadable = cpu_features.probe_cpu("linux", "x86_64", cpuinfo=lambda: None)
    assert (
        unreadable.features == () and unreadable.features_reason == "/proc/cpuinfo is not readable"
    )
    assert unreadable.physical_cores >= 1


def test_intel_mac_sysctl_features() -> None:
    cpu = cpu_features.probe_cpu("darwin", "x86_64", sysctl=_sysctl(INTEL_MAC_SYSCTL))
    assert cpu.model.startswith("Intel(R) Core(TM) i9-9980HK")
    assert cpu.features == ("sse4_2", "avx", "avx2", "fma", "f16c")


def test_missing_features_fall_back_to_what_the_llama_build_uses() -> None:
    report = probe_hardware(
        _quiet(
            cpu=lambda p: CpuInfo("Mystery CPU", p.arch, 4, 4, (), "no feature probe for haiku"),
            llama_cpp=lambda: LlamaCppInfo(
                True, "0.3.36", False, ("CPU",), "", ("SSE3", "AVX", "AVX2", "FMA", "AVX512")
            ),
        )
    )
    assert report.cpu.features == ("avx", "avx2", "fma", "avx512f")
    assert not any(a.what == "CPU SIMD features" for a in report.absent)
    bare = probe_hardware(
        _quiet(
            cpu=lambda p: CpuInfo("X", p.arch, 1, 1, (), "no feature probe"),
            llama_cpp=_raise(ProbeUnavailable("llama-cpp-python cannot load: No module named 'x'")),
        )
    )
    assert _absent(bare, "CPU SIMD features").reason == "no feature probe"


def test_ggml_system_info_parsing() -> None:
    info = (
        "CUDA : ARCHS = 890 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | "
        "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 0 | "
        "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
    )
    backends, cpu = cpu_features.parse_ggml_system_info(info)
    assert backends == ("CUDA", "CPU")
    assert cpu == ("SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "LLAMAFILE", "OPENMP", "REPACK")
    assert cpu_features.from_ggml_names(cpu) == ("avx", "avx2", "fma", "f16c")


def test_arch_names_are_normalised() -> None:
    assert [cpu_features.normalise_arch(m) for m in ("AMD64", "x86_64", "aarch64", "ARM64")] == [
        "x86_64",
        "x86_64",
        "arm64",
        "arm64",
    ]
    assert cpu_features.read_windows_cpu() is None or sys.platform == "win32"


def test_a_report_survives_its_json_round_trip() -> None:
    """The app gets the report from the engine host as JSON and reads it as a HardwareReport."""
    report = probe_hardware()
    assert HardwareReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report


def test_a_malformed_report_is_refused() -> None:
    with pytest.raises((KeyError, TypeError)):
        HardwareReport.from_dict({"os": "Linux", "os_name": "linux", "cpu": []})


def test_format_bytes() -> None:
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(512 * MiB) == "512 MiB"
    assert format_bytes(int(7.8 * GiB)) == "7.8 GiB"
    assert format_bytes(24 * GiB) == "24.0 GiB"
    assert format_bytes(1536 * GiB) == "1.5 TiB"
    assert format_bytes(-2 * MiB) == "-2.0 MiB"

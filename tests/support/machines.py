"""Hardware reports of machines this one is not, for the planner and the recommender: what the
probe would say on them (memory as free as on a machine in use, the runtimes' own device lists).
"""

from __future__ import annotations

from engine.hardware import HardwareReport
from engine.hardware.cpu_features import CpuInfo
from engine.hardware.report import CoreMLInfo, GpuInfo, LlamaCppInfo, MemoryInfo, OrtInfo
from engine.hardware.speed_profile import DRIVER, MEASURED, TABLE, DeviceSpeed, SpeedProfile

GiB = 1 << 30
CPU_ORT = ("CPUExecutionProvider",)


def _report(
    *,
    os_name: str,
    cpu: CpuInfo,
    total: float,
    free: float,
    gpus: tuple[GpuInfo, ...] = (),
    providers: tuple[str, ...] = CPU_ORT,
    llama_devices: tuple[str, ...] = ("CPU",),
    speed: tuple[DeviceSpeed, ...] = (),
) -> HardwareReport:
    return HardwareReport(
        os=os_name,
        os_name=os_name,
        cpu=cpu,
        memory=MemoryInfo(int(total * GiB), int(free * GiB)),
        gpus=gpus,
        ort=OrtInfo(True, "1.22.0", providers),
        coreml=CoreMLInfo(os_name == "darwin", "test machine"),
        llama_cpp=LlamaCppInfo(
            available=True,
            version="0.3.36",
            supports_gpu_offload=len(llama_devices) > 1,
            devices=llama_devices,
            system_info="",
        ),
        absent=(),
        # What the speed probe would find there: nothing has run on it yet (priors only).
        speed=SpeedProfile(speed) if speed else None,
    )


def _cpu(name: str, gb_s: float, gflops: float) -> DeviceSpeed:
    """A CPU as the probe measures it: a copy's bandwidth (about two thirds of the memory's
    rated figure) and a float32 matrix product's rate."""
    return DeviceSpeed("cpu", name, "cpu", gb_s * 1e9, gflops * 1e9, MEASURED)


def mac_m3_pro_18gb() -> HardwareReport:
    """Apple M3 Pro, 18 GB unified memory; Metal's working-set limit is about 2/3 of RAM."""
    gpu = GpuInfo(
        vendor="Apple",
        name="Apple M3 Pro",
        index=0,
        total_bytes=18 * GiB,
        free_bytes=12 * GiB,
        api="metal",
        driver=None,
        compute_capability=None,
        unified_memory=True,
        budget_bytes=12 * GiB,
        estimated=True,
    )
    cpu = CpuInfo("Apple M3 Pro", "arm64", 11, 11, ("neon", "dotprod", "i8mm"))
    return _report(
        os_name="darwin",
        cpu=cpu,
        total=18,
        free=12,
        gpus=(gpu,),
        providers=("CoreMLExecutionProvider", *CPU_ORT),
        llama_devices=("MTL0", "CPU"),
        speed=(
            _cpu("Apple M3 Pro", 100, 600),
            DeviceSpeed("gpu0", "Apple M3 Pro", "gpu", 150e9, 7.4e12, TABLE),
        ),
    )


def nvidia_laptop_8gb() -> HardwareReport:
    """An RTX 4060 Laptop GPU (8 GB, 7.4 free) in a 16 GB Windows laptop with a CUDA llama.cpp."""
    gpu = GpuInfo(
        vendor="NVIDIA",
        name="NVIDIA GeForce RTX 4060 Laptop GPU",
        index=0,
        total_bytes=8 * GiB,
        free_bytes=int(7.4 * GiB),
        api="cuda",
        driver="560.94",
        compute_capability="8.9",
        unified_memory=False,
        budget_bytes=int(7.4 * GiB),
        estimated=False,
    )
    cpu = CpuInfo("Intel Core i7-13620H", "x86_64", 10, 16, ("avx2", "fma"))
    return _report(
        os_name="windows",
        cpu=cpu,
        total=16,
        free=9,
        gpus=(gpu,),
        providers=("DmlExecutionProvider", "CUDAExecutionProvider", *CPU_ORT),
        llama_devices=("CUDA0", "CPU"),
        speed=(
            _cpu("Intel Core i7-13620H", 55, 700),
            DeviceSpeed("gpu0", gpu.name, "gpu", 256e9, 60e12, DRIVER),
        ),
    )


def snapdragon_x_16gb() -> HardwareReport:
    """A Snapdragon X Elite laptop: the Hexagon NPU through ONNX Runtime's QNN provider, a CPU
    llama.cpp build (no GPU backend for the Adreno GPU in it)."""
    cpu = CpuInfo("Snapdragon X Elite X1E78100", "arm64", 12, 12, ("neon", "dotprod", "i8mm"))
    return _report(
        os_name="windows",
        cpu=cpu,
        total=16,
        free=10,
        providers=("QNNExecutionProvider", "DmlExecutionProvider", *CPU_ORT),
        speed=(
            _cpu(cpu.model, 90, 800),
            DeviceSpeed("npu", "Qualcomm Hexagon NPU", "npu", 90e9, 45e12, TABLE),
        ),
    )


def intel_openvino_16gb() -> HardwareReport:
    """A Core Ultra laptop with ONNX Runtime's OpenVINO provider (its NPU and integrated GPU)."""
    cpu = CpuInfo("Intel Core Ultra 7 155H", "x86_64", 16, 22, ("avx2", "fma"))
    return _report(
        os_name="windows",
        cpu=cpu,
        total=16,
        free=10,
        providers=("OpenVINOExecutionProvider", *CPU_ORT),
        speed=(
            _cpu(cpu.model, 75, 900),
            DeviceSpeed("npu", "Intel NPU", "npu", 75e9, 11e12, TABLE),
        ),
    )


def amd_ryzen_ai_32gb() -> HardwareReport:
    """A Ryzen AI 9 HX 370 laptop (32 GB): the XDNA 2 NPU through ONNX Runtime's Vitis AI
    provider, the Radeon 890M through DirectML, a CPU llama.cpp build."""
    cpu = CpuInfo("AMD Ryzen AI 9 HX 370", "x86_64", 12, 24, ("avx2", "fma", "avx512f"))
    return _report(
        os_name="windows",
        cpu=cpu,
        total=32,
        free=20,
        providers=("VitisAIExecutionProvider", "DmlExecutionProvider", *CPU_ORT),
        speed=(
            _cpu(cpu.model, 80, 1200),
            DeviceSpeed("npu", "AMD Ryzen AI NPU", "npu", 80e9, 50e12, TABLE),
        ),
    )


def cpu_only_8gb() -> HardwareReport:
    """An 8 GB laptop with no usable GPU, 5 GB of it free."""
    cpu = CpuInfo("Intel Core i5-8250U", "x86_64", 4, 8, ("avx2", "fma"))
    return _report(os_name="linux", cpu=cpu, total=8, free=5, speed=(_cpu(cpu.model, 22, 250),))


MACHINES = {
    "mac-m3-pro-18gb": mac_m3_pro_18gb,
    "nvidia-laptop-8gb": nvidia_laptop_8gb,
    "snapdragon-x-16gb": snapdragon_x_16gb,
    "intel-openvino-16gb": intel_openvino_16gb,
    "amd-ryzen-ai-32gb": amd_ryzen_ai_32gb,
    "cpu-only-8gb": cpu_only_8gb,
}

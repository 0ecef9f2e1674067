"""The speed probe: this machine's memory bandwidth and arithmetic rate per device, in about a
second (the starter model run once to calibrate llama.cpp is ``engine/speed/starter.py``).

The CPU's bandwidth is timed copying arrays larger than a processor cache, one thread per core;
its arithmetic rate, a float32 matrix product. Each is the best of a few repetitions: other
programs can only slow a repetition, never speed it up, so the best is the machine's own. A GPU's
bandwidth is the driver's (NVML: bus width times memory clock) or the chip's published figure
(Apple silicon); an NPU shares the system memory.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.hardware.speed_profile import DRIVER, ESTIMATED, MEASURED, TABLE, DeviceSpeed

if TYPE_CHECKING:
    from engine.hardware.report import GpuInfo, HardwareReport

COPY_BYTES = 256 << 20  # per array: beyond the last-level cache of most processors
REPEATS = 4
MATRIX = 768

# Published memory bandwidth of Apple silicon (GB/s), by chip; the longest matching name wins.
APPLE_BANDWIDTH = {
    "M1": 68, "M1 Pro": 200, "M1 Max": 400, "M1 Ultra": 800,
    "M2": 100, "M2 Pro": 200, "M2 Max": 400, "M2 Ultra": 800,
    "M3": 100, "M3 Pro": 150, "M3 Max": 400, "M3 Ultra": 819,
    "M4": 120, "M4 Pro": 273, "M4 Max": 546,
}  # fmt: skip
# Half-precision tensor throughput (TFLOPS, dense) of common GPUs, by a piece of their name.
GPU_TFLOPS = {
    "H200": 990, "H100": 756, "A100": 312, "L40S": 362, "L4": 121, "A10": 125,
    "RTX 5090": 419, "RTX 4090": 330, "RTX 4080": 195, "RTX 4070": 117, "RTX 4060": 60,
    "RTX 3090": 142, "RTX 3080": 119, "RTX 3070": 81, "RTX 3060": 51,
}  # fmt: skip
# Apple GPUs' float32 rate (TFLOPS), by chip (the largest GPU of each).
APPLE_TFLOPS = {
    "M1": 2.6, "M1 Pro": 5.2, "M1 Max": 10.4, "M1 Ultra": 21.0,
    "M2": 3.6, "M2 Pro": 6.8, "M2 Max": 13.6, "M2 Ultra": 27.2,
    "M3": 4.1, "M3 Pro": 7.4, "M3 Max": 16.4, "M3 Ultra": 28.0,
    "M4": 4.3, "M4 Pro": 9.2, "M4 Max": 18.4,
}  # fmt: skip
# NPUs' rated int8 TOPS, by the execution provider that reaches them.
NPU_TOPS = {"QNNExecutionProvider": 45, "VitisAIExecutionProvider": 50}
OPENVINO_NPU_TOPS = 11
# Without a figure for a GPU's arithmetic: operations per byte of bandwidth of recent GPUs.
GPU_FLOPS_PER_BYTE = 100.0


def cpu_bandwidth(threads: int, size: int = COPY_BYTES, repeats: int = REPEATS) -> float:
    """Bytes per second the CPU moves copying ``size`` bytes, split over ``threads``."""
    import numpy as np

    threads = max(threads, 1)
    n = size // 8 // threads
    sources = [np.ones(n) for _ in range(threads)]
    targets = [np.empty_like(s) for s in sources]
    best = 0.0
    for _ in range(repeats):
        workers = [
            threading.Thread(target=np.copyto, args=(targets[i], sources[i]))
            for i in range(threads)
        ]
        began = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.perf_counter() - began
        best = max(best, 2 * n * 8 * threads / elapsed)  # read and written
    return best


def cpu_flops(size: int = MATRIX, repeats: int = REPEATS) -> float:
    """Operations per second of a float32 matrix product (the BLAS's threads)."""
    import numpy as np

    a = np.random.default_rng(0).random((size, size), dtype=np.float32)
    a @ a  # the first call pays the library's start
    best = 0.0
    for _ in range(repeats):
        began = time.perf_counter()
        a @ a
        best = max(best, 2 * size**3 / (time.perf_counter() - began))
    return best


def _named(table: dict[str, float], name: str) -> float | None:
    hits = [k for k in table if k.lower() in name.lower()]
    return table[max(hits, key=len)] if hits else None


def gpu_speed(gpu: GpuInfo) -> DeviceSpeed:
    key, kind = f"gpu{gpu.index}", "gpu"
    if gpu.api == "metal":
        chip = gpu.name.replace("Apple", "").strip()
        gbps = _named({k: float(v) for k, v in APPLE_BANDWIDTH.items()}, chip)
        tflops = _named(APPLE_TFLOPS, chip) or 3.0
        basis = TABLE if gbps else ESTIMATED
        return DeviceSpeed(key, gpu.name, kind, (gbps or 100) * 1e9, tflops * 1e12, basis)
    driver = gpu.bandwidth_bytes_per_s
    basis = DRIVER if driver else ESTIMATED
    bandwidth = float(driver) if driver else 300e9  # else a mid-range discrete GPU
    rated = _named({k: float(v) for k, v in GPU_TFLOPS.items()}, gpu.name)
    flops = rated * 1e12 if rated else bandwidth * GPU_FLOPS_PER_BYTE
    return DeviceSpeed(key, gpu.name, kind, float(bandwidth), flops, basis)


def npu_speed(report: HardwareReport, cpu: DeviceSpeed) -> DeviceSpeed | None:
    for provider, tops in NPU_TOPS.items():
        if report.ort.has(provider):
            name = "Qualcomm Hexagon NPU" if provider.startswith("QNN") else "AMD Ryzen AI NPU"
            return DeviceSpeed("npu", name, "npu", cpu.bandwidth, tops * 1e12, TABLE)
    if report.ort.has("OpenVINOExecutionProvider"):
        return DeviceSpeed(
            "npu", "Intel NPU", "npu", cpu.bandwidth, OPENVINO_NPU_TOPS * 1e12, TABLE
        )
    return None


def measure_devices(
    report: HardwareReport,
    *,
    bandwidth: Callable[[int], float] = cpu_bandwidth,
    flops: Callable[[], float] = cpu_flops,
) -> tuple[DeviceSpeed, ...]:
    cores = max(report.cpu.physical_cores, 1)
    cpu = DeviceSpeed("cpu", report.cpu.model, "cpu", bandwidth(cores), flops(), MEASURED)
    devices = [cpu]
    if report.llama_cpp.supports_gpu_offload or report.ort.has("CUDAExecutionProvider"):
        devices += [gpu_speed(g) for g in report.gpus]
    npu = npu_speed(report, cpu)
    if npu is not None:
        devices.append(npu)
    return tuple(devices)

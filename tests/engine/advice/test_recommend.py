"""Which build to download, on machines this one is not: an M-series Mac, an NVIDIA 8 GB laptop, a
Snapdragon X with QNN, an Intel machine with OpenVINO and a CPU-only 8 GB laptop. Every build is
planned by the real planners; the expectations follow from the memory each machine has. These are
the choices by fit alone, before the speed probe has run (the machines' speed profiles are
removed); tests/engine/speed/test_speed_recommend.py covers the choices by predicted speed."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from engine.advice.recommend import (
    CPU_GGUF,
    GPU_FULL,
    NPU,
    fit_by_size,
    recommend,
)
from engine.hardware.report import HardwareReport
from engine.hub.api import RemoteFile
from engine.hub.meta import Listing
from engine.library.catalog import CatalogModel, load_catalog, parse_catalog
from tests.support import machines
from tests.support.machines import GiB


def _unprobed(make: Callable[[], HardwareReport]) -> Callable[[], HardwareReport]:
    return lambda: dataclasses.replace(make(), speed=None)


MACHINES = {name: _unprobed(make) for name, make in machines.MACHINES.items()}
cpu_only_8gb = _unprobed(machines.cpu_only_8gb)
intel_openvino_16gb = _unprobed(machines.intel_openvino_16gb)
mac_m3_pro_18gb = _unprobed(machines.mac_m3_pro_18gb)
nvidia_laptop_8gb = _unprobed(machines.nvidia_laptop_8gb)
snapdragon_x_16gb = _unprobed(machines.snapdragon_x_16gb)

# Llama 3.1 8B's shape (config.json): 32 layers, 8 KV heads of 128, a 128k vocabulary.
LLAMA_8B = {"layers": 32, "heads": 32, "kv_heads": 8, "head_dim": 128, "embedding": 4096}
LLAMA_8B |= {"ffn": 14336, "vocab": 128256}
QUANTS = ("Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0")


def model(params_b: float = 8.03, arch: dict[str, Any] | None = None) -> CatalogModel:
    variants: list[dict[str, Any]] = [
        {"format": "gguf", "repo": "acme/M-GGUF", "file": f"m-{q}.gguf", "quant": q} for q in QUANTS
    ]
    variants += [
        {"format": "onnx", "repo": "acme/M-onnx", "folder": f, "target": t, "provider": p}
        for f, t, p in (
            ("cpu-int4", "cpu-int4", "cpu"),
            ("npu-qnn", "qnn-npu", "qnn"),
            ("npu-ov", "openvino-npu", "openvino"),
            ("dml", "directml-int4", "dml"),
        )
    ]
    entry = {
        "id": "m",
        "name": "M",
        "kind": "chat",
        "publisher": "Acme",
        "params_b": params_b,
        "context_length": 131072,
        "license": "apache-2.0",
        "description": "A test model.",
        "arch": arch or LLAMA_8B,
        "variants": variants,
    }
    return parse_catalog({"schema": 1, "models": [entry]}).models[0]


def sizes_from_hub(m: CatalogModel, factor: float = 1.0) -> dict[str, Listing]:
    """Listings as the hub would give them: every build present, sizes from the estimate."""
    files: dict[str, list[RemoteFile]] = {}
    for v in m.variants:
        size = int(v.estimated_bytes(m.params_b) * factor)
        paths = [str(v.file)] if v.format == "gguf" else [f"{v.folder}/model.onnx.data"]
        if v.format == "onnx":
            paths.append(f"{v.folder}/genai_config.json")
        for p in paths:
            n = size if not p.endswith(".json") else 2048
            files.setdefault(v.repo, []).append(RemoteFile(v.repo, p, "main", n, "0" * 64))
    now = time.time()
    return {r: Listing(r, "main", now, tuple(f)) for r, f in files.items()}


def test_mac_runs_the_best_quant_that_fits_on_metal() -> None:
    m = model()
    rec = recommend(m, mac_m3_pro_18gb(), sizes_from_hub(m))
    assert rec.choice is not None
    assert rec.choice.tier == GPU_FULL and rec.choice.variant.quant == "Q8_0"
    assert "Metal" in rec.choice.device
    assert rec.reason.startswith("Q8_0 on the Apple M3 Pro GPU (Metal): fits in ")
    assert rec.choice.need_bytes <= rec.choice.free_bytes


def test_nvidia_8gb_takes_the_largest_quant_that_fits_wholly_in_vram() -> None:
    m = model()
    rec = recommend(m, nvidia_laptop_8gb(), sizes_from_hub(m))
    assert rec.choice is not None and rec.choice.tier == GPU_FULL
    assert "CUDA" in rec.choice.device
    chosen = rec.choice.variant.quant
    # Every better quant would only partly fit on the GPU: the sentence names the next one.
    better = QUANTS[QUANTS.index(str(chosen)) + 1 :]
    assert better, "an 8B model's Q8_0 cannot fit in 7.4 GiB"
    for option in rec.options:
        if option.variant.quant in better:
            assert option.tier != GPU_FULL
    assert re.search(rf"; {better[0]} would need \d+(\.\d)? GiB\.$", rec.reason), rec.reason
    # The ONNX builds are not chosen while llama.cpp drives the GPU.
    assert rec.choice.runtime == "llama.cpp"


def test_snapdragon_prefers_the_npu_build() -> None:
    m = model()
    rec = recommend(m, snapdragon_x_16gb(), sizes_from_hub(m))
    assert rec.choice is not None
    assert rec.choice.tier == NPU and rec.choice.variant.target == "qnn-npu"
    assert rec.reason.startswith("ONNX qnn-npu on the Qualcomm Hexagon NPU: fits in ")
    openvino = next(o for o in rec.options if o.variant.target == "openvino-npu")
    assert openvino.why_not is not None and not openvino.fits


def test_intel_with_openvino_prefers_its_npu_build_and_without_one_the_cpu() -> None:
    m = model()
    rec = recommend(m, intel_openvino_16gb(), sizes_from_hub(m))
    assert rec.choice is not None and rec.choice.variant.target == "openvino-npu"
    without_npu = parse_catalog(
        {
            "schema": 1,
            "models": [
                {
                    **_raw(m),
                    "variants": [
                        {"format": "gguf", "repo": "acme/M-GGUF", "file": f"m-{q}.gguf", "quant": q}
                        for q in QUANTS
                    ],
                }
            ],
        }
    ).models[0]
    rec = recommend(without_npu, intel_openvino_16gb(), sizes_from_hub(without_npu))
    assert rec.choice is not None and rec.choice.tier == CPU_GGUF
    assert rec.reason.startswith(f"{rec.choice.variant.quant} on the CPU: fits in ")


def test_cpu_only_8gb_laptop() -> None:
    small = model(3.21, {**LLAMA_8B, "layers": 28, "embedding": 3072, "heads": 24, "ffn": 8192})
    rec = recommend(small, cpu_only_8gb(), sizes_from_hub(small))
    assert rec.choice is not None and rec.choice.tier == CPU_GGUF
    assert rec.choice.variant.quant == "Q8_0"
    big = model()
    rec = recommend(big, cpu_only_8gb(), sizes_from_hub(big))
    # 5 GiB free: no 8B build fits at the default context; the closest one is named with numbers.
    assert rec.choice is None or not rec.choice.fits
    assert re.search(r"\d GiB", rec.reason), rec.reason


def test_without_the_hubs_sizes_the_estimate_is_said_to_be_one() -> None:
    m = model()
    rec = recommend(m, nvidia_laptop_8gb())
    assert rec.choice is not None and not rec.choice.build.exact
    assert "estimated" in rec.reason


def test_a_build_the_hub_no_longer_has_is_never_chosen() -> None:
    m = model()
    listings = sizes_from_hub(m)
    gguf = listings["acme/M-GGUF"]
    kept = tuple(f for f in gguf.files if "Q8_0" not in f.path)
    listings["acme/M-GGUF"] = Listing(gguf.repo, gguf.revision, gguf.fetched_at, kept)
    rec = recommend(m, mac_m3_pro_18gb(), listings)
    assert rec.choice is not None and rec.choice.variant.quant == "Q6_K"
    q8 = next(o for o in rec.options if o.variant.quant == "Q8_0")
    assert q8.to_dict()["why_not"] and "no longer has" in str(q8.to_dict()["why_not"])


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_catalog_model_gets_a_choice_or_a_reason_on_every_machine(machine: str) -> None:
    report = MACHINES[machine]()
    for entry in load_catalog().models:
        rec = recommend(entry, report)
        assert rec.reason, entry.id
        if rec.choice is None:
            assert rec.reason.startswith("Nothing"), (entry.id, rec.reason)
            continue
        assert rec.choice.why_not is None, (entry.id, rec.choice.why_not)
        if entry.kind != "chat":
            continue
        # The chosen build is the best of those that fit wholly, in the best tier that has one.
        fitting = [o for o in rec.options if o.fits and o.why_not is None]
        if rec.choice.fits:
            assert rec.choice.tier == min(o.tier for o in fitting), entry.id
            assert rec.choice.need_bytes <= rec.choice.free_bytes, entry.id
        else:
            assert not fitting, entry.id


def test_small_catalog_models_fit_everywhere() -> None:
    """Every machine here runs a 1B-class model wholly at the default context."""
    small = [m for m in load_catalog().models if m.kind == "chat" and m.params_b <= 1.8]
    assert small
    for machine, make in MACHINES.items():
        for entry in small:
            rec = recommend(entry, make())
            assert rec.choice is not None and rec.choice.fits, (machine, entry.id, rec.reason)


def test_fit_by_size_for_hub_files() -> None:
    fit, where = fit_by_size(4 * GiB, nvidia_laptop_8gb())
    assert fit == "fits" and "RTX 4060" in where
    fit, where = fit_by_size(6 * GiB, nvidia_laptop_8gb())
    assert (fit, where) == ("fits", "CPU")  # too big for the GPU, fine in 9 GiB of RAM
    assert fit_by_size(3 * GiB, cpu_only_8gb()) == ("fits", "CPU")
    assert fit_by_size(4 * GiB, cpu_only_8gb())[0] == "tight"  # only without a context
    assert fit_by_size(9 * GiB, cpu_only_8gb())[0] == "too_big"


def _raw(m: CatalogModel) -> dict[str, Any]:
    assert m.arch is not None
    return {
        "id": m.id,
        "name": m.name,
        "kind": m.kind,
        "publisher": m.publisher,
        "params_b": m.params_b,
        "context_length": m.context_length,
        "license": m.license,
        "description": m.description,
        "arch": {
            k: getattr(m.arch, k)
            for k in ("layers", "heads", "kv_heads", "head_dim", "embedding", "ffn", "vocab")
        },
    }

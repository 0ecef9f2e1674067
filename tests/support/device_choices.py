"""What Cove picks on machines this one is not: for each simulated machine (tests/support/
machines.py) and a 1B, a 7B and a 14B model of the catalog, the runtime, device and build the
recommender chooses, and why. Writes the table into docs/DEVICES.md (between its markers), or
checks that the table there is current.

    python bench/device_choices.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.advice.recommend import NPU, Recommendation, recommend
from engine.hardware.report import HardwareReport
from engine.library.catalog import load_catalog
from tests.support.machines import MACHINES

ROOT = Path(__file__).resolve().parents[2]

DOC = ROOT / "docs" / "DEVICES.md"
START = "<!-- device-choices:start (bench/device_choices.py writes this table) -->"
END = "<!-- device-choices:end -->"
MODELS = (
    ("1B", "llama-3.2-1b-instruct"),
    ("7B", "mistral-7b-instruct-v0.3"),
    ("14B", "qwen2.5-14b-instruct"),
)
NAMES = {
    "mac-m3-pro-18gb": "Apple M3 Pro, 18 GB (Metal, Core ML, Neural Engine)",
    "nvidia-laptop-8gb": "RTX 4060 Laptop 8 GB, 16 GB RAM (CUDA)",
    "snapdragon-x-16gb": "Snapdragon X Elite, 16 GB (QNN NPU)",
    "intel-openvino-16gb": "Core Ultra 7 155H, 16 GB (OpenVINO NPU)",
    "amd-ryzen-ai-32gb": "Ryzen AI 9 HX 370, 32 GB (Vitis AI NPU)",
    "cpu-only-8gb": "CPU only, 8 GB",
}


def accelerator_note(rec: Recommendation, report: HardwareReport) -> str:
    """Why an NPU or Core ML, where the machine has one, is not the choice."""
    choice = rec.choice
    if choice is not None and choice.tier == NPU:
        return ""
    npus = report.ort.npus()
    notes = []
    if npus:
        built = [
            o for o in rec.options if o.tier == NPU or o.variant.provider in ("qnn", "vitisai")
        ]
        reachable = [o for o in built if o.why_not is None]
        if not built:
            notes.append(f"no build of it for the {npus[0]} is published")
        elif not reachable:
            notes.append(f"its NPU build is for another NPU ({built[0].why_not})")
        elif not any(o.fits for o in reachable):
            notes.append("its NPU build does not fit")
    if report.coreml.available:
        notes.append("no Core ML build of it is published, so Metal through llama.cpp")
    return ("; ".join(notes) + ".") if notes else ""


def table() -> str:
    catalog = load_catalog()
    rows = [
        "| machine | model | runtime | device | build | why |",
        "|---|---|---|---|---|---|",
    ]
    for key, make in MACHINES.items():
        report = make()
        for size, model_id in MODELS:
            model = catalog.get(model_id)
            if model is None:
                raise SystemExit(f"{model_id} is not in the catalog")
            rec = recommend(model, report, comfortable_tps=10)
            choice = rec.choice
            note = accelerator_note(rec, report)
            why = rec.reason + (f" Not the accelerator: {note}" if note else "")
            if choice is None:
                cells = ["—", "—", "—"]
            else:
                v = choice.variant
                build = v.quant if v.format == "gguf" else f"ONNX {v.target}"
                cells = [choice.runtime, choice.device, str(build)]
            rows.append(
                f"| {NAMES[key]} | {size}: {model.name} | " + " | ".join(cells) + f" | {why} |"
            )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="fail if docs/DEVICES.md is stale")
    args = parser.parse_args()
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if START not in text or END not in text:
        raise SystemExit(f"{DOC} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _old, tail = rest.split(END, 1)
    new = f"{head}{START}\n{table()}\n{END}{tail}"
    if args.check:
        if new != text:
            print(f"{DOC} is out of date: run python bench/device_choices.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The simulated-machine table in docs/DEVICES.md: current with the recommender and the catalog,
and the choices a user of each machine would expect."""

from __future__ import annotations

from engine.advice.recommend import recommend
from engine.library.catalog import load_catalog
from tests.support.device_choices import DOC, END, START, table
from tests.support.machines import MACHINES


def test_the_table_in_the_docs_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    written = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert written == table(), "run: python bench/device_choices.py"


def pick(machine: str, model: str) -> tuple[str | None, str | None]:
    entry = load_catalog().get(model)
    assert entry is not None
    choice = recommend(entry, MACHINES[machine](), comfortable_tps=10).choice
    return (choice.runtime, choice.device) if choice else (None, None)


def test_each_machine_gets_what_its_owner_would_expect() -> None:
    assert pick("mac-m3-pro-18gb", "qwen2.5-14b-instruct") == (
        "llama.cpp",
        "Apple M3 Pro GPU (Metal)",
    )
    assert pick("amd-ryzen-ai-32gb", "llama-3.2-1b-instruct") == (
        "onnxruntime-genai",
        "AMD Ryzen AI NPU",
    )
    runtime, device = pick("nvidia-laptop-8gb", "mistral-7b-instruct-v0.3")
    assert runtime == "llama.cpp" and device is not None and "CUDA" in device
    # An NPU build for another vendor's NPU is not taken for this one.
    assert pick("snapdragon-x-16gb", "llama-3.2-1b-instruct") == ("llama.cpp", "CPU")
    assert pick("cpu-only-8gb", "qwen2.5-14b-instruct") == (None, None)

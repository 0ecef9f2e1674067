"""A way to run a model (its build, runtime, device and settings), and which builds are of one
model. What ways there are on this machine: engine/tuning/ways.py.

For a GGUF: the planner's device (the GPU, all or part of the model) and, where there is a GPU,
the CPU alone (a small model can be faster there than on a weak GPU); each with flash attention
on and off (llama.cpp's CPU flash-attention kernel is faster at the start of a chat and slower
deep into it, docs/PERFORMANCE.md), except where a quantised V cache needs it on. For an ONNX
folder, its own execution provider. And the other format's build of the same model where one is
installed (a GGUF and an ONNX build of SmolLM2-135M-Instruct, say). A way that does not fit in
the memory free now is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.planner.plan import Plan

# Words in a model's file or folder name that name its build, not the model.
_BUILD_WORDS = re.compile(
    r"[-_.](gguf|onnx|int4|int8|fp16|bf16|fp32|f16|f32|q\d(_[a-z0-9]+)*|iq\d\w*|cpu|cuda|dml|"
    r"directml|qnn|openvino|vitisai|npu|gpu|rtn|block[-_]?\d+|acc[-_]?level[-_]?\d+|awq)(?=$|[-_.])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Config:
    """One way to run a model: which build, on which runtime and device, with what settings."""

    path: str  # the GGUF file or the ONNX folder to load
    backend: str
    device: str
    gpu_layers: int
    flash_attn: bool

    @property
    def key(self) -> str:
        return f"{self.backend}|{self.path}|{self.device}|{self.gpu_layers}|{int(self.flash_attn)}"

    @property
    def label(self) -> str:
        build = Path(self.path).name
        parts = [build, self.backend, self.device]
        if self.backend == "llama.cpp":
            parts.append(f"flash attention {'on' if self.flash_attn else 'off'}")
        return " · ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "backend": self.backend,
            "device": self.device,
            "gpu_layers": self.gpu_layers,
            "flash_attn": self.flash_attn,
            "label": self.label,
        }

    @classmethod
    def of(cls, path: Path, plan: Plan) -> Config:
        return cls(str(path), plan.backend, plan.device, plan.gpu_layers, plan.flash_attn)


@dataclass(frozen=True, slots=True)
class Way:
    config: Config
    plan: Plan


def model_family(path: Path) -> str:
    """A model's name without its build: ``SmolLM2-135M-Instruct.Q4_1.gguf`` and
    ``smollm2-135m-instruct-onnx-int4-cpu`` are both ``smollm2-135m-instruct``."""
    name = path.name.removesuffix(".gguf")
    previous = None
    while previous != name:
        previous, name = name, _BUILD_WORDS.sub("", name)
    return name.lower().strip("-_.")

"""The way a model ran while it was scored, read from the engine's status. Flash attention on or
off moves a small model's log-likelihoods by about 0.1 a choice (the starter on the everyday
task, docs/PERFORMANCE.md), and so do the runtime, the device and the cache's number type: figures
from two runs compare question by question only when both ran the same way. How many prompts a
request held and how many sequences read them does not move them: each prompt of a list scores
exactly as it does alone (engine/backends/llama/batcher.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine.client.protocol import ResidentModel


@dataclass(frozen=True, slots=True)
class RanAs:
    backend: str  # "llama.cpp", "onnxruntime-genai", …
    device: str  # "CPU", "CUDA0", …
    flash_attn: bool | None  # None: a runtime without the switch
    kv_type: str | None  # the cache's number type ("f16", "q8_0"); None where not told
    n_batch: int | None  # tokens handed to the runtime at once
    n_ubatch: int | None  # tokens it computes at once
    sequences: int  # prompts read side by side
    prompts_a_request: int  # prompts sent in one request

    @classmethod
    def of(cls, resident: ResidentModel, prompts_a_request: int) -> RanAs:
        """From one of the status's ``residents``."""
        backend = resident.backend or "unknown"
        return cls(
            backend=backend,
            device=resident.device or "unknown",
            # Only llama.cpp has the switch; other runtimes' plans say False.
            flash_attn=resident.flash_attn if backend == "llama.cpp" else None,
            kv_type=resident.kv_type,
            n_batch=resident.n_batch,
            n_ubatch=resident.n_ubatch,
            sequences=resident.parallel,
            prompts_a_request=prompts_a_request,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """ "llama.cpp on CPU, flash attention on, cache f16, batches of 512 tokens, 32 prompts
        a request in 4 sequences"."""
        parts = [f"{self.backend} on {self.device}"]
        if self.flash_attn is not None:
            parts.append(f"flash attention {'on' if self.flash_attn else 'off'}")
        if self.kv_type:
            parts.append(f"cache {self.kv_type}")
        if self.n_ubatch:
            parts.append(f"batches of {self.n_ubatch} tokens")
        parts.append(f"{self.prompts_a_request} prompts a request in {self.sequences} sequences")
        return ", ".join(parts)

    def differences(self, other: RanAs) -> list[str]:
        """What differs from ``other`` in what moves log-likelihoods, by field name."""
        keys = ("backend", "device", "flash_attn", "kv_type", "n_ubatch")
        return [k for k in keys if getattr(self, k) != getattr(other, k)]


def ran_as(
    residents: Sequence[ResidentModel], model: str | None, prompts_a_request: int
) -> RanAs | None:
    """How ``model`` (as the engine named it in its answer) runs, from the status's residents;
    None when the engine does not say."""
    for resident in residents:
        if model is not None and resident.model == model:
            return RanAs.of(resident, prompts_a_request)
    return None

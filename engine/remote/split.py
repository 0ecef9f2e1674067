"""Splitting one model's layers between this machine and ``cove worker`` machines.

llama.cpp's RPC devices come first in its device list. With ``n_gpu_layers = n`` it offloads the
last ``n - 1`` repeating layers and the output head, shared out by ``tensor_split`` in device order
(the head counts as one more layer of the last device). Cove keeps the head on this machine's CPU
all the same (engine/backends/llama/model.py, ``HEAD_PATTERN``): it is the largest thing a token
sends otherwise, the logits. The first layers and the input embeddings stay here too.

Each machine's share is set by its free memory: layers are dealt out in proportion to what each
can hold (its free memory less the planner's headroom and its fixed costs), and a split where the
layers do not fit in all of them together is refused with the numbers.

The cost of a layer on a machine is its weights plus its share of the KV cache. A worker also
holds a compute buffer (the graph's scratch memory, as for a GPU); this machine keeps the input
embeddings, the output head, its compute buffer and the runtime's overhead.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.formats.gguf import GGUFFile
from engine.planner.gguf import (
    compute_bytes,
    kv_cache_bytes,
    make_plan,
    runtime_overhead,
    split_weights,
)
from engine.planner.plan import DeviceBudget, Plan, Resources, usable_bytes
from engine.units import format_bytes


@dataclass(frozen=True, slots=True)
class WorkerShare:
    """What the using side knows of a worker: where llama.cpp reaches it (a loopback tunnel),
    its address on the network, and its free memory as it reported it."""

    endpoint: str
    name: str
    free_memory: int
    total_memory: int
    device: str = "CPU"

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> WorkerShare:
        return cls(
            endpoint=str(data["endpoint"]),
            name=str(data["name"]),
            free_memory=int(data["free_memory"]),  # type: ignore[call-overload]
            total_memory=int(data.get("total_memory") or 0),  # type: ignore[call-overload]
            device=str(data.get("device") or "CPU"),
        )

    @classmethod
    def from_info(cls, endpoint: str, name: str, info: Mapping[str, object]) -> WorkerShare:
        """From a worker's answer to ``info`` (engine/remote/worker.py)."""
        return cls(
            endpoint=endpoint,
            name=name,
            free_memory=int(info.get("free_memory") or 0),  # type: ignore[call-overload]
            total_memory=int(info.get("total_memory") or 0),  # type: ignore[call-overload]
            device=str(info.get("device") or "CPU"),
        )


def encode(workers: Sequence[WorkerShare]) -> str:
    return json.dumps([dataclasses.asdict(w) for w in workers])


def decode(text: str) -> tuple[WorkerShare, ...]:
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("expected a list of workers")
    return tuple(WorkerShare.from_dict(item) for item in data)


def split_plan(g: GGUFFile, plan: Plan, workers: Sequence[WorkerShare], local_free: int) -> Plan:
    """``plan`` (a CPU plan for the model at the context wanted) with its layers dealt out
    between this machine (``local_free`` bytes of RAM free) and ``workers``. The verdict is
    ``does_not_fit`` when they cannot hold it together."""
    layers, embed, output = split_weights(g)
    n = g.block_count
    kv_layer = kv_cache_bytes(g, plan.n_ctx, plan.kv_type, plan.n_ubatch) / max(n, 1)
    per_layer = [w + kv_layer for w in layers]
    average = sum(per_layer) / max(n, 1)
    remote_compute = compute_bytes(g, plan.n_ctx, plan.n_ubatch, flash_attn=plan.flash_attn)
    local_compute = compute_bytes(g, plan.n_ctx, plan.n_ubatch, plan.flash_attn, resident_only=True)
    local_fixed = embed + output + local_compute + runtime_overhead(g)
    rooms = [usable_bytes(local_free) - local_fixed] + [
        usable_bytes(w.free_memory) - remote_compute for w in workers
    ]
    counts = _deal(n, [max(0.0, r) / average for r in rooms])
    # The last layers go to the workers, in order; the first stay here.
    starts = [0]
    for c in counts:
        starts.append(starts[-1] + c)
    spans = [range(starts[i], starts[i + 1]) for i in range(len(counts))]
    used = [sum(per_layer[i] for i in span) for span in spans]
    fits = (
        all(used[i] <= max(0.0, rooms[i]) or counts[i] == 0 for i in range(len(counts)))
        and sum(counts) == n
    )
    budgets = [
        DeviceBudget(
            device=f"{plan.budgets[0].device} (this computer)",
            weights=int(sum(layers[i] for i in spans[0]) + embed + output),
            kv_cache=int(kv_layer * counts[0]),
            compute=local_compute,
            overhead=runtime_overhead(g),
            free=local_free,
        )
    ]
    for w, span, c in zip(workers, spans[1:], counts[1:], strict=True):
        budgets.append(
            DeviceBudget(
                device=f"worker {w.name} ({w.device})",
                weights=int(sum(layers[i] for i in span)),
                kv_cache=int(kv_layer * c),
                compute=remote_compute if c else 0,
                overhead=0,
                free=w.free_memory,
            )
        )
    reasons = [*plan.reasons, describe(counts, workers, n)]
    if not fits:
        need = sum(per_layer) + local_fixed + remote_compute * len(workers)
        room = sum(max(0.0, r) for r in rooms) + remote_compute * len(workers)
        reasons.append(
            f"The model needs about {format_bytes(int(need))} at {plan.n_ctx} tokens of context "
            f"and this computer and the workers can hold {format_bytes(int(room))} together. "
            "Add a worker, free memory on one, use a smaller quantization, or a shorter context."
        )
    shares = list(counts[1:])
    if shares:
        shares[-1] += 1  # the output head's nominal place (kept on this CPU, see above)
    return dataclasses.replace(
        plan,
        device=f"{plan.device} + {len(workers)} worker{'s' if len(workers) != 1 else ''}",
        verdict="fits" if fits else "does_not_fit",
        gpu_layers=sum(shares),
        tensor_split=tuple(shares),
        budgets=tuple(budgets),
        reasons=tuple(reasons),
    )


def describe(counts: Sequence[int], workers: Sequence[WorkerShare], n: int) -> str:
    parts = [f"{counts[0]} here"]
    parts += [f"{c} on {w.name}" for w, c in zip(workers, counts[1:], strict=True)]
    return f"Layers split by free memory ({n} in all): " + ", ".join(parts) + "."


def _deal(n: int, capacity: Sequence[float]) -> list[int]:
    """``n`` layers in proportion to ``capacity`` (each in layers), by largest remainder, none
    beyond a machine's capacity while another has room; what cannot be placed is given to the
    machine with the most room (the plan then reports it does not fit)."""
    total = sum(capacity)
    if total <= 0:
        return [n] + [0] * (len(capacity) - 1)
    share = [n * c / total for c in capacity]
    counts = [int(s) for s in share]
    order = sorted(range(len(share)), key=lambda i: share[i] - counts[i], reverse=True)
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    # Move layers off machines past their capacity onto ones with room.
    for i in range(len(counts)):
        while counts[i] > int(capacity[i]) and counts[i] > 0:
            room = [j for j in range(len(counts)) if counts[j] < int(capacity[j])]
            if not room:
                break
            j = max(room, key=lambda k: capacity[k] - counts[k])
            counts[i] -= 1
            counts[j] += 1
    return counts


def plan_with_workers(
    name: str, ctx: int | None, resources: Resources, workers: Sequence[WorkerShare]
) -> Plan:
    """The plan for model ``name`` split between this machine (its CPU) and ``workers``."""
    from engine.errors import BackendUnavailable
    from engine.formats.gguf import read_gguf
    from engine.library.names import resolve_model

    path = resolve_model(name)
    if path.suffix.lower() != ".gguf" or not path.is_file():
        raise BackendUnavailable(
            f"{path.name} is not a GGUF file: only llama.cpp's models can be split across "
            "machines (cove worker)."
        )
    g = read_gguf(path)
    local_free = resources.cpu.free_bytes
    together = dataclasses.replace(
        resources.cpu, free_bytes=local_free + sum(w.free_memory for w in workers)
    )
    # The context wanted, planned as if all the memory were one machine's; then dealt out.
    base = make_plan(
        g,
        dataclasses.replace(resources, cpu=together, gpus=(), gpu_offload=False),
        requested_ctx=ctx,
    )
    return split_plan(g, base, workers, local_free)

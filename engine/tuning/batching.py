"""How many replies at once pay on this machine: the aggregate decode speed of 1, 2, 4, 8 ...
sequences, measured on the loaded model, and the ``--parallel auto`` count chosen from it.

One batch of N sequences' next tokens reads the weights once for all of them, so N replies
together go faster than one, up to the point where the processor (or GPU) is busy with the
arithmetic instead of waiting for memory: on 2 CPU cores the starter's aggregate speed grows
about 1.3x from one sequence to eight (docs/PERFORMANCE.md), on a GPU nearly N-fold. Past that
point more sequences only split the same speed between more replies.

A measurement takes a second, small context on the loaded model's weights (no second copy of
the model): per count N, a prompt read once and copied to N sequences, then ``STEPS`` steps of
one token per sequence, every row's logits computed as a reply's are. A round measures every
count once, in alternating order (1 2 4 8, 8 4 2 1, ...), so whatever else the machine does
falls on every count alike; the medians of ``ROUNDS`` rounds decide, and rounds taken while
other processes kept the machine busy make the result provisional (measured again later), as
for the ways to run a model (engine/tuning/measure.py).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING, Any

from engine.errors import GenerationError, LoadCancelled, ModelLoadError
from engine.native import compute
from engine.tuning.load import LoadMeter, is_busy
from engine.tuning.measure import counting

if TYPE_CHECKING:
    from engine.backends.llama.model import LlamaModel
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.tuning.store import TuningStore

# Each doubling of the sequences (and of their KV caches' memory) is kept while it gains at
# least this much aggregate speed: on 2 cores the starter's doublings gained 1.41x, 1.33x, 1.17x
# and then 1.11x from 8 to 16 at a shallow depth (where batching gains most), which is within
# what runs of one count differ by on a shared machine.
GAIN = 1.15
# Sequences beyond the gain still let that many clients start their replies at once; they are
# kept up to the planner's default unless they cost aggregate speed (below this share of one
# sequence's).
LOSS = 0.90
DEPTH = 128  # tokens of context each sequence decodes at
WARM_STEPS = 2
STEPS = 24
ROUNDS = 3
# Counts are measured up to here at least (past it, the first round stops rising two doublings
# beyond the count that pays).
CLIMB_TO = 8


@dataclass(frozen=True, slots=True)
class Batching:
    """Rounds of aggregate decode speeds (tokens/s, all sequences together) per count."""

    rounds: tuple[Mapping[int, float], ...]
    others_cpu: float  # other processes' share of the machine while measuring
    provisional: bool  # measured on a busy machine: used, and measured again later

    @property
    def speeds(self) -> dict[int, float]:
        """The median speed per count, over the rounds that measured it."""
        counts = sorted({n for r in self.rounds for n in r})
        return {n: median(r[n] for r in self.rounds if n in r) for n in counts}

    def to_dict(self) -> dict[str, object]:
        return {
            "rounds": [{str(n): round(v, 2) for n, v in sorted(r.items())} for r in self.rounds],
            "others_cpu": round(self.others_cpu, 3),
            "provisional": self.provisional,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Batching:
        rounds: list[dict[int, float]] = []
        for raw in data["rounds"]:
            one = {int(n): float(v) for n, v in dict(raw).items()}
            if not one or any(n < 1 or v <= 0 for n, v in one.items()):
                raise ValueError("a round needs positive counts and speeds")
            rounds.append(one)
        if not rounds:
            raise ValueError("no rounds")
        return cls(tuple(rounds), float(data["others_cpu"]), bool(data["provisional"]))


def paying(speeds: Mapping[int, float]) -> int:
    """The largest count whose speed gains ``GAIN`` per doubling over the count chosen before
    it, counts taken in rising order: a count that does not pay is passed over, and a larger one
    may still (on an H200 the starter ran 8 sequences at 5.8x one's speed, 16 at 0.96x of 8, 32
    at 1.6x of 16 and 64 at 1.6x of 32: the CUDA kernels change above 8)."""
    chosen = min(speeds)
    for n in sorted(speeds):
        if n > chosen and speeds[n] >= GAIN ** math.log2(n / chosen) * speeds[chosen]:
            chosen = n
    return chosen


def parallel_from(speeds: Mapping[int, float], floor: int) -> tuple[int, str]:
    """The replies at once ``--parallel auto`` runs, and why, from the aggregate ``speeds``
    measured per count (1 among them): the largest that pays (``paying``); below ``floor``
    (the planner's default, within memory) counts are kept that cost no more than ``LOSS`` of
    one sequence's speed, so that a few clients still start at once."""
    counts = sorted(speeds)
    if not counts or counts[0] != 1:
        raise ValueError("the speed of one sequence is needed")
    one = speeds[1]
    chosen = paying(speeds)
    pays = chosen
    if chosen < floor:
        kept = [n for n in counts if chosen < n <= floor and speeds[n] >= LOSS * one]
        chosen = max(kept, default=chosen)
    gain = speeds[chosen] / one
    if chosen == 1:
        why = f"one reply at a time: {chosen_text(speeds, counts)}"
    elif chosen == pays:
        why = (
            f"{chosen} replies at once: together {gain:.2f}x the speed of one "
            f"({speeds[chosen]:.0f} against {one:.0f} tokens/s)"
        )
        if chosen != counts[-1]:
            nxt = counts[counts.index(chosen) + 1]
            why += f"; {nxt} gain only {speeds[nxt] / speeds[chosen]:.2f}x more"
    else:
        why = (
            f"{chosen} replies at once, so that {chosen} clients start at once: batching gains "
            f"little here ({gain:.2f}x the speed of one with {chosen})"
        )
    return chosen, why


def chosen_text(speeds: Mapping[int, float], counts: Sequence[int]) -> str:
    two = counts[1] if len(counts) > 1 else None
    if two is None:
        return "only one sequence fits"
    return f"{two} together run at {speeds[two] / speeds[1]:.2f}x the speed of one"


def counts_up_to(most: int) -> list[int]:
    """1, 2, 4 ... up to ``most`` (which ends the list where it is not a power of two)."""
    counts = [1]
    while counts[-1] * 2 <= most:
        counts.append(counts[-1] * 2)
    if counts[-1] != most and most > 1:
        counts.append(most)
    return counts


def measure_round(
    model: LlamaModel,
    counts: Sequence[int],
    *,
    reverse: bool = False,
    climb: bool = False,
    stop: threading.Event | None = None,
) -> tuple[dict[int, float], float]:
    """One round: the aggregate decode speed of each count in ``counts`` on a small context of
    ``model``'s weights, and other processes' share of the machine meanwhile. ``climb``: counts
    in rising order, ending (past ``CLIMB_TO``) two doublings beyond the count that pays.
    Setting ``stop``, or closing the model, ends it (LoadCancelled) between two steps;
    EngineBusy when a reply holds the model."""
    from engine.native.lock import GGML_LOCK
    from engine.native.threadpool import attach_threadpool

    lib = model.lib
    most = max(counts)
    with model.held() as closing:

        def stopped() -> bool:
            return closing.is_set() or (stop is not None and stop.is_set())

        cparams = model.context_params(DEPTH + WARM_STEPS + STEPS + 8, most)
        with GGML_LOCK:
            ctx = lib.llama_init_from_model(model.handle, cparams)
        if not ctx:
            raise ModelLoadError(f"llama.cpp could not make a context of {most} sequences")
        pool = attach_threadpool(lib, ctx, model.plan.threads)
        batch = lib.llama_batch_init(max(DEPTH, most), 0, 1)
        meter = LoadMeter().start()
        try:
            text, _ = counting(1, DEPTH * 2)
            tokens = model.tokenize(text)[:DEPTH]
            mem = lib.llama_get_memory(ctx)
            speeds: dict[int, float] = {}
            order = sorted(counts, reverse=reverse and not climb)
            for n in order:
                lib.llama_memory_clear(mem, True)
                _decode(lib, ctx, batch, [(tokens, 0, 0)], stopped)
                for seq in range(1, n):
                    lib.llama_memory_seq_cp(mem, 0, seq, -1, -1)
                started = 0.0
                for step in range(WARM_STEPS + STEPS):
                    if step == WARM_STEPS:
                        started = time.perf_counter()
                    token = tokens[1 + step % (len(tokens) - 1)] if len(tokens) > 1 else tokens[0]
                    rows = [([token], seq, len(tokens) + step) for seq in range(n)]
                    _decode(lib, ctx, batch, rows, stopped)
                speeds[n] = n * STEPS / (time.perf_counter() - started)
                # Two doublings past the count that pays, with no gain: the rest will not pay.
                if climb and n >= CLIMB_TO and n >= 4 * paying(speeds):
                    break
            return speeds, meter.others_share()
        finally:
            lib.llama_batch_free(batch)
            lib.llama_free(ctx)
            if pool is not None:
                pool.close()


def _decode(
    lib: Any,
    ctx: Any,
    batch: Any,
    rows: Sequence[tuple[Sequence[int], int, int]],
    stopped: Callable[[], bool],
) -> None:
    """Decode ``rows`` (tokens, sequence, first position) in one batch, the logits of each
    row's last token computed."""
    if stopped():
        raise LoadCancelled("Measuring was stopped.")
    n = 0
    for tokens, seq, pos in rows:
        for i, token in enumerate(tokens):
            batch.token[n] = token
            batch.pos[n] = pos + i
            batch.n_seq_id[n] = 1
            batch.seq_id[n][0] = seq
            batch.logits[n] = 1 if i == len(tokens) - 1 else 0
            n += 1
    batch.n_tokens = n
    rc = int(compute.run(lib.llama_decode, ctx, batch))
    if rc != 0:
        raise GenerationError(f"llama.cpp could not decode a batch of {n} tokens (code {rc})")


def batching_of(rounds: Sequence[tuple[Mapping[int, float], float]]) -> Batching:
    """The measurement from rounds of (speeds, others' share)."""
    from statistics import mean

    others = mean(share for _, share in rounds) if rounds else 0.0
    return Batching(tuple(s for s, _ in rounds), others, is_busy(others))


def batching_key(path: Path, plan: Plan) -> str:
    """A model's build and the way it runs, as batching depends on them."""
    from engine.tuning.store import build_key

    attention = "fa" if plan.flash_attn else "nofa"
    where = f"{plan.device}:{plan.gpu_layers}:{plan.threads}"
    return f"{build_key(path)}:{where}:{plan.kv_type}:{attention}"


def most_at_once(plan: Plan) -> int:
    """The most sequences ``--parallel auto`` may run in the memory ``plan`` was made for."""
    from engine.planner.plan import PARALLEL_MAX, one_sequence, with_parallel

    return with_parallel(one_sequence(plan), None, auto=PARALLEL_MAX).parallel


def counts_for(plan: Plan) -> list[int]:
    """The counts to measure for ``plan``: 1, 2, 4 ... up to what fits."""
    return counts_up_to(most_at_once(plan))


def count_for(plan: Plan, record: Batching) -> tuple[int, str] | None:
    """``--parallel auto``'s count for ``plan`` from ``record``, with the reason: among the
    counts that fit in the memory it was made for; None where not even one sequence was
    measured."""
    from engine.planner.plan import AUTO_PARALLEL

    most = most_at_once(plan)
    speeds = {n: v for n, v in record.speeds.items() if n <= most}
    if 1 not in speeds:
        return None
    return parallel_from(speeds, min(AUTO_PARALLEL, most))


def measured_parallel(
    path: Path, plan: Plan, report: HardwareReport, store: TuningStore | None = None
) -> tuple[int, str, Batching] | None:
    """``--parallel auto``'s count for ``plan`` (one sequence) from the measurement kept for
    it, with the reason and the measurement; None where it was not measured."""
    from engine.tuning.store import TuningStore, machine_key

    entry = (store or TuningStore()).batching(machine_key(report), batching_key(path, plan))
    try:
        record = Batching.from_dict(entry) if entry is not None else None
    except (KeyError, TypeError, ValueError):
        record = None
    chosen = count_for(plan, record) if record is not None else None
    if record is None or chosen is None:
        return None
    return (*chosen, record)


def measure_batching(
    path: Path,
    plan: Plan,
    report: HardwareReport,
    *,
    again: bool = False,
    store: TuningStore | None = None,
) -> tuple[int, str, Batching] | None:
    """Measure now (``cove tune``) how many replies at once pay for ``plan`` (one sequence of
    a llama.cpp model), unless a measurement made on a quiet machine is kept; keep it, and
    return ``--parallel auto``'s count with the reason. None for another runtime's model."""
    from engine.backends.llama.model import LlamaModel
    from engine.planner.plan import several_at_once
    from engine.tuning.store import TuningStore, machine_key

    if not several_at_once(plan):
        return None
    store = store or TuningStore()
    found = measured_parallel(path, plan, report, store)
    if found is not None and not found[2].provisional and not again:
        return found
    model = LlamaModel(path, plan)
    try:
        rounds: list[tuple[dict[int, float], float]] = []
        counts = counts_for(plan)
        for i in range(ROUNDS):
            speeds, share = measure_round(model, counts, reverse=i % 2 == 1, climb=i == 0)
            counts = sorted(speeds)
            rounds.append((speeds, share))
    finally:
        model.close()
    store.save_batching(
        machine_key(report), batching_key(path, plan), batching_of(rounds).to_dict()
    )
    return measured_parallel(path, plan, report, store)


def describe(found: tuple[int, str, Batching] | None) -> dict[str, object]:
    """``--parallel auto``'s count as ``cove plan --json`` and ``cove tune --json`` show it."""
    from engine.planner.plan import AUTO_PARALLEL

    if found is None:
        return {
            "count": None,
            "source": "not_measured",
            "reason": f"not measured yet: up to {AUTO_PARALLEL} as memory allows, measured when "
            "the engine is first idle",
            "speeds": {},
        }
    n, why, record = found
    return {
        "count": n,
        "source": "provisional" if record.provisional else "measured",
        "reason": why,
        "speeds": {str(k): round(v, 1) for k, v in record.speeds.items()},
    }

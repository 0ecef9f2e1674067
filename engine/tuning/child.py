"""Idle measuring in a process of its own, at the lowest priority the system offers.

The engine's runtimes compute on threads that serve replies too; their priority cannot be lowered
for a measurement and raised again afterwards without privileges. So a measuring run is a child
process (``python -m engine.tuning.child``) that takes the lowest priority before it starts any
thread (engine/tuning/priority.py), loads the model (its weights memory-mapped: the pages the
engine already holds are shared), runs once as ``cove tune`` would, prints what it found as one
line of JSON, and ends. Stopping it is ending it: within a fraction of a second of ``stop``, its
memory freed with it. It ends with the engine, however the engine ends.

Jobs (a JSON object on the child's standard input):
- ``{"kind": "way", "path": ..., "plan": {...}}``: one run of engine/tuning/measure.py;
- ``{"kind": "batching", "path": ..., "plan": {...}, "counts": [...], "reverse": ...,
  "climb": ...}``: one round of engine/tuning/batching.py.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import EngineError, GenerationError, LoadCancelled
from engine.launch import child_env, module_command
from engine.tuning.figures import Sample
from engine.tuning.idle import Stop

if TYPE_CHECKING:
    from engine.backends.llama.model import LlamaModel
    from engine.planner.plan import Plan

MODULE = "engine.tuning.child"
POLL_S = 0.05  # how often a stop is looked for while the child runs
# The context a batching round's model is loaded with (the round makes its own for the counts).
BATCHING_CTX = 256


def measure_once_in_child(
    path: Path,
    plan: Plan,
    progress: object = None,
    stop: threading.Event | None = None,
) -> tuple[Sample, float]:
    """One run of ``path``'s way ``plan`` (engine/tuning/measure.py's ``measure_once``) in a
    child at the lowest priority: the run and its load's seconds. Setting ``stop`` ends the
    child (LoadCancelled)."""
    found = run_child({"kind": "way", "path": str(path), "plan": plan.to_dict()}, stop)
    try:
        return Sample.from_dict(found["sample"]), float(found["load_s"])
    except (KeyError, TypeError, ValueError) as exc:
        raise GenerationError(
            f"The measuring process sent what Cove could not read ({exc})"
        ) from None


def measure_round_in_child(
    model: LlamaModel,
    counts: list[int],
    *,
    reverse: bool = False,
    climb: bool = False,
    stop: threading.Event | None = None,
) -> tuple[dict[int, float], float]:
    """One round of engine/tuning/batching.py's ``measure_round`` on ``model``'s file and way,
    in a child at the lowest priority: each count's aggregate speed, and others' share of the
    machine meanwhile. Setting ``stop`` ends the child (LoadCancelled)."""
    job = {
        "kind": "batching",
        "path": str(model.path),
        "plan": model.plan.to_dict(),
        "counts": list(counts),
        "reverse": reverse,
        "climb": climb,
    }
    found = run_child(job, stop)
    try:
        speeds = {int(n): float(v) for n, v in dict(found["speeds"]).items()}
        return speeds, float(found["share"])
    except (KeyError, TypeError, ValueError) as exc:
        raise GenerationError(
            f"The measuring process sent what Cove could not read ({exc})"
        ) from None


def run_child(
    job: dict[str, Any], stop: threading.Event | None, module: str = MODULE
) -> dict[str, Any]:
    """Run ``job`` in a child (``python -m module``, whose ``main`` is ``child_main``) and return
    what it printed; LoadCancelled once ``stop`` is set (the child is ended at once),
    GenerationError when it failed."""
    cancel = stop or threading.Event()
    if cancel.is_set():
        raise LoadCancelled("Measuring was stopped.")
    proc = subprocess.Popen(
        module_command(module),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    if isinstance(cancel, Stop):
        cancel.adopt(proc.pid)  # its processor time is the measurement's own, not another's
    out: list[bytes] = []

    def talk() -> None:
        with contextlib.suppress(OSError, ValueError):
            out.extend(proc.communicate(json.dumps(job).encode()))

    talker = threading.Thread(target=talk, name="cove-idle-child", daemon=True)
    talker.start()
    try:
        while talker.is_alive():
            if cancel.wait(POLL_S):
                proc.kill()
                talker.join()
                raise LoadCancelled("Measuring was stopped.")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if isinstance(cancel, Stop):
            cancel.forget(proc.pid)
    stdout = out[0] if out else b""
    stderr = out[1].decode("utf-8", "replace") if len(out) > 1 else ""
    lines = stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        found = json.loads(lines[-1]) if lines else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        tail = stderr.strip().splitlines()[-1:] or [f"it exited with code {proc.returncode}"]
        raise GenerationError(f"The measuring process failed: {tail[0]}")
    if "error" in found:
        raise GenerationError(str(found["error"]))
    return found


def _run(job: dict[str, Any]) -> dict[str, Any]:
    from engine.planner.plan import Plan
    from engine.tuning.measure import measure_once

    path, plan = Path(str(job["path"])), Plan.from_dict(job["plan"])
    if job["kind"] == "way":
        sample, load_s = measure_once(path, plan)
        return {"sample": sample.to_dict(), "load_s": round(load_s, 3)}
    if job["kind"] == "batching":
        from engine.backends.llama.model import LlamaModel
        from engine.tuning.batching import measure_round

        model = LlamaModel(path, replace(plan, n_ctx=BATCHING_CTX, parallel=1))
        try:
            speeds, share = measure_round(
                model,
                [int(n) for n in job["counts"]],
                reverse=bool(job.get("reverse")),
                climb=bool(job.get("climb")),
            )
        finally:
            model.close()
        return {"speeds": {str(n): v for n, v in speeds.items()}, "share": share}
    raise ValueError(f"no such job: {job['kind']!r}")


def child_main(run: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    """A measuring child's life: the lowest priority first (every thread started after inherits
    it), an end with the process that started it, the job read from standard input, and what
    ``run`` found (or the error) printed as one line of JSON, with the priority it ran at."""
    from engine.launch import die_with_parent
    from engine.tuning.priority import is_lowest, lowest_priority

    taken = lowest_priority()
    die_with_parent()
    try:
        job = json.loads(sys.stdin.read())
        found = run(job)
    except (EngineError, OSError, KeyError, TypeError, ValueError) as exc:
        print(json.dumps({"error": str(exc) or type(exc).__name__}), flush=True)
        return 1
    # The priority it ran at, as the system reports it (read at the end: every thread had it).
    found["priority"] = {"taken": taken, "lowest": is_lowest()}
    print(json.dumps(found), flush=True)
    return 0


def main() -> int:
    return child_main(_run)


if __name__ == "__main__":
    sys.exit(main())

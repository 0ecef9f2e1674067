"""``cove eval MODEL [MODEL…] --task FILE``: a multiple-choice task through the engine, each
model in turn (loaded, scored, unloaded), then their accuracies side by side with standard
errors, and each model against the first question by question. Progress goes to stderr;
``--json`` prints one JSON object on stdout."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from engine.cli.output import print_json
from engine.evaluation.metrics import paired
from engine.evaluation.run import Outcome, evaluate
from engine.evaluation.tasks import Task, load_task, shipped_task


def eval_command(
    models: list[str],
    task_path: Path | None,
    *,
    limit: int | None,
    ctx: int | None,
    as_json: bool,
    out: TextIO = sys.stdout,
) -> int:
    from engine.client.local import LocalEngine
    from engine.library.names import resolve_model

    task = load_task(task_path or shipped_task()).first(limit)
    for model in models:
        resolve_model(model)  # a missing file is reported before any process starts
    outcomes: list[Outcome] = []
    local = LocalEngine.start()
    try:
        client = local.client
        for model in models:
            _say(f"Loading {model}…")
            name = client.load(model, ctx=ctx).model or model
            outcomes.append(
                evaluate(client, name, task, progress=_progress(name), cancel=threading.Event())
            )
            _say(f"\r{name}: done in {outcomes[-1].seconds:.0f} s.{' ' * 20}\n")
            client.unload(name)
    finally:
        local.stop()
        local.client.close()
    if as_json:
        print_json(report(task, outcomes))
    else:
        _table(task, outcomes, out)
    return 0


def report(task: Task, outcomes: list[Outcome]) -> dict[str, Any]:
    """The JSON ``cove eval --json`` prints."""
    first = outcomes[0]
    return {
        "task": task.name,
        "file": str(task.source),
        "questions": len(task.questions),
        "models": [
            {
                "model": o.model,
                "acc": o.score.acc,
                "acc_stderr": o.score.acc_stderr,
                "acc_norm": o.score.acc_norm,
                "acc_norm_stderr": o.score.acc_norm_stderr,
                "seconds": round(o.seconds, 2),
                "ran_as": o.ran_as.to_dict() if o.ran_as is not None else None,
                "chosen": [a.chosen for a in o.answered],
                "logliks": [list(a.logliks) for a in o.answered],
            }
            for o in outcomes
        ],
        "compared": [
            {
                "model": o.model,
                "against": first.model,
                "same_answer": p.same_answer,
                "acc_difference": p.acc_difference,
                "acc_difference_stderr": p.acc_difference_stderr,
                "ran_differently": _differences(o, first),
            }
            for o in outcomes[1:]
            for p in [paired(o.answered, first.answered)]
        ],
    }


def _table(task: Task, outcomes: list[Outcome], out: TextIO) -> None:
    print(f"{task.name}: {len(task.questions)} questions ({task.source})\n", file=out)
    width = max(len("Model"), *(len(o.model) for o in outcomes))
    print(f"{'Model':<{width}}  {'Accuracy':<15}  {'Normalised':<15}  Time", file=out)
    for o in outcomes:
        s = o.score
        print(
            f"{o.model:<{width}}  {s.acc:.3f} ± {s.acc_stderr:.3f}   "
            f"{s.acc_norm:.3f} ± {s.acc_norm_stderr:.3f}   {o.seconds:.0f} s",
            file=out,
        )
    print("\nHow each ran (flash attention and the cache move log-likelihoods a little):",
          file=out)  # fmt: skip
    for o in outcomes:
        way = o.ran_as.describe() if o.ran_as is not None else "not told by the engine"
        print(f"  {o.model:<{width}}  {way}", file=out)
    first = outcomes[0]
    for o in outcomes[1:]:
        p = paired(o.answered, first.answered)
        print(
            f"\n{o.model} against {first.model}: the same answer on {p.same_answer:.0%} of "
            f"questions; accuracy {p.acc_difference:+.3f} ± {p.acc_difference_stderr:.3f}",
            file=out,
        )
        if differ := _differences(o, first):
            print(
                f"  They ran differently ({', '.join(WORDS[d] for d in differ)}): part of the "
                "difference may come from that, not from the builds.",
                file=out,
            )


# What a difference in the way of running is called, by RanAs field.
WORDS = {"backend": "runtime", "device": "device", "flash_attn": "flash attention",
         "kv_type": "cache type", "n_ubatch": "batch size"}  # fmt: skip


def _differences(o: Outcome, first: Outcome) -> list[str]:
    """What moves log-likelihoods and differs between the two runs (empty when either is not
    known)."""
    if o.ran_as is None or first.ran_as is None:
        return []
    return o.ran_as.differences(first.ran_as)


def _progress(name: str) -> Any:
    def show(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{name}: {done}/{total} questions", end="", file=sys.stderr, flush=True)

    return show


def _say(text: str) -> None:
    if text.startswith("\r") and not sys.stderr.isatty():
        text = text[1:].rstrip()
    print(text, end="" if text.endswith("\n") else "\n", file=sys.stderr, flush=True)

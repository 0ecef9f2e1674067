"""``cove plan``: will a model fit in the memory free now, where, at what context; for a GGUF on
the hub, from its header alone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli.output import print_json
from engine.cli.tuning import choice_for, describe_choice
from engine.units import format_tps

if TYPE_CHECKING:
    from engine.advice.drafts import DraftChoice
    from engine.formats.gguf import GGUFFile
    from engine.planner.plan import Plan
    from engine.speed.installed import ModelSpeed
    from engine.tuning.batching import Batching


def plan_command(
    model: str,
    ctx: int | None,
    as_json: bool,
    workers: list[str] | None = None,
    parallel: int | None = 1,
) -> int:
    from engine.backends.loader import plan_model
    from engine.errors import ModelNotFound
    from engine.planner.plan import AUTO_PARALLEL, several_at_once, with_parallel

    if workers:
        return _plan_split(model, ctx, as_json, workers)
    try:
        path, _info, plan = plan_model(model, ctx=ctx)
    except ModelNotFound:
        if not _names_hub_file(model):
            raise
        return _plan_remote(model, ctx, as_json)
    choice = choice_for(path, ctx, measure_now=False)
    if choice is not None and choice.source != "not_measured":
        plan = choice.plan  # what loading it will do
    auto = _auto_parallel(path, plan) if parallel is None else None
    plan = with_parallel(plan, parallel, auto=AUTO_PARALLEL if auto is None else auto[0])
    drafts = _drafts(path, plan)
    speed = _speed(path, plan)
    if as_json:
        print_json(
            {
                **plan.to_dict(),
                **speed_fields(speed),
                "choice": choice.to_dict() if choice else None,
                "drafts": [d.to_dict() for d in drafts],
                **({} if parallel is not None else {"parallel_auto": _auto_dict(plan, auto)}),
            }
        )
        return 0
    print(describe_plan(plan))
    if parallel is None and several_at_once(plan):
        print(f"Because   {_auto_dict(plan, auto)['reason']}")
    if speed is not None:
        print(describe_speed(speed))
    if choice is not None:
        print(describe_choice(choice))
    for d in drafts:
        print(describe_draft(d))
    return 0


def _auto_parallel(path: Path, plan: Plan) -> tuple[int, str, Batching] | None:
    """``--parallel auto``'s measured count for ``plan``, if measured."""
    from engine.hardware import probe_hardware
    from engine.planner.plan import several_at_once
    from engine.tuning.batching import measured_parallel

    if not several_at_once(plan):
        return None
    return measured_parallel(path, plan, probe_hardware())


def _auto_dict(plan: Plan, found: tuple[int, str, Batching] | None) -> dict[str, object]:
    from engine.planner.plan import several_at_once
    from engine.tuning.batching import describe

    if not several_at_once(plan):
        return {"count": 1, "source": "runtime", "reason": "one reply at a time", "speeds": {}}
    return describe(found)


def _plan_split(model: str, ctx: int | None, as_json: bool, specs: list[str]) -> int:
    """The split ``cove serve --worker`` would make now: each worker asked for its free memory
    (its certificate pinned on first use, its key checked), nothing loaded."""
    from engine.backends.loader import current_resources
    from engine.remote.pins import trust
    from engine.remote.split import WorkerShare, plan_with_workers
    from engine.remote.tunnel import WorkerAddress, with_key, worker_info

    shares = []
    for spec in specs:
        w = with_key(WorkerAddress.parse(spec))
        info = worker_info(w, trust(w.host, w.port))
        shares.append(WorkerShare.from_info("", w.address, info))
    plan = plan_with_workers(model, ctx, current_resources(), shares)
    if as_json:
        print_json(plan.to_dict())
    else:
        print(describe_plan(plan))
    return 0 if plan.loadable else 1


def _speed(path: Path, plan: Plan) -> ModelSpeed | None:
    from engine.hardware import probe_hardware
    from engine.speed.installed import model_speed
    from engine.speed.machine import with_speed

    if not plan.loadable:
        return None
    return model_speed(path, with_speed(probe_hardware()), plan, predict_too=True)


def speed_fields(speed: ModelSpeed | None) -> dict[str, object]:
    """``cove plan --json``'s speed: the prediction's figures at the top, the details apart."""
    prediction = speed.prediction if speed is not None else None
    return {
        "predicted_decode_tps": round(prediction.decode_tps, 1) if prediction else None,
        "predicted_prompt_tps": round(prediction.prompt_tps, 1) if prediction else None,
        "speed": speed.to_dict() if speed is not None else None,
    }


def describe_speed(speed: ModelSpeed) -> str:
    p = speed.prediction
    lines = []
    if p is not None:
        deep = format_tps(p.decode_tps_deep)
        lines.append(
            f"Speed     about {format_tps(p.decode_tps)} tokens/s replying ({deep} "
            f"{p.deep_depth:,} tokens into a conversation), {format_tps(p.prompt_tps)} tokens/s "
            f"reading a prompt; {p.basis}"
        )
    if speed.measured:
        lines.append(
            f"Measured  {format_tps(speed.decode_tps)} tokens/s replying, "
            f"{format_tps(speed.prompt_tps)} tokens/s reading, when it last ran here"
        )
    return "\n".join(lines)


def _drafts(path: Path, plan: Plan) -> list[DraftChoice]:
    """The catalog's draft models for this model, checked against its file and counted in the
    memory left after it."""
    from engine.advice.drafts import beside, draft_choices

    if path.suffix.lower() != ".gguf":
        return []
    left = min((b.free for b in plan.budgets), default=0) - plan.total_bytes
    return [beside(d, left) for d in draft_choices(path, plan.n_ctx)]


def describe_draft(d: DraftChoice) -> str:
    from engine.units import format_bytes

    if d.path is None:
        return f"Draft     {d.id}: not installed (cove pull {d.id} to let it draft)"
    if d.reason is not None:
        return f"Draft     {d.id}: not usable: {d.reason}"
    return f"Draft     {d.id}: can draft ({format_bytes(d.bytes)}; cove serve --draft {d.id})"


def _names_hub_file(model: str) -> bool:
    pieces = model.strip("/").split("/")
    return len(pieces) >= 3 and pieces[-1].lower().endswith(".gguf") and not model.startswith(".")


def _plan_remote(model: str, ctx: int | None, as_json: bool) -> int:
    """Fit before download: the file's header over HTTP Range, the real planner on it."""
    from engine.advice.remote_gguf import plan_remote
    from engine.hub.api import Hub, HubConfig
    from engine.units import format_bytes

    pieces = model.strip("/").split("/")
    repo, file = "/".join(pieces[:2]), "/".join(pieces[2:])
    with Hub(HubConfig.resolve()) as hub:
        header, plan = plan_remote(hub, repo, file, ctx=ctx)
    speed = _remote_speed(header.info, plan)
    if as_json:
        print_json(
            {
                **plan.to_dict(),
                **speed_fields(speed),
                "remote": {
                    "repo": repo,
                    "file": file,
                    "file_size": header.size,
                    "header_bytes_read": header.fetched_bytes,
                },
            }
        )
        return 0
    print(describe_plan(plan))
    if speed is not None:
        print(describe_speed(speed))
    print(
        f"Read      {format_bytes(header.fetched_bytes)} of the file's header from the hub "
        f"(the file is {format_bytes(header.size)}); nothing was downloaded"
    )
    return 0


def _remote_speed(info: GGUFFile, plan: Plan) -> ModelSpeed | None:
    from engine.hardware import probe_hardware
    from engine.speed.facts import gguf_speed_facts
    from engine.speed.installed import ModelSpeed
    from engine.speed.machine import with_speed
    from engine.speed.predict import predict_plan

    report = with_speed(probe_hardware())
    if report.speed is None or not plan.loadable:
        return None
    p = predict_plan(gguf_speed_facts(info), plan, report.speed)
    words = f"about {format_tps(p.decode_tps)} tokens/s (predicted)"
    return ModelSpeed(p.decode_tps, p.prompt_tps, False, words, p)


# Projectors that cut a large image into tiles, each taking ``image_tokens``.
_TILED = frozenset({"idefics3", "llava_next", "minicpmv", "internvl", "lfm2"})


def describe_plan(plan: Plan) -> str:
    from engine.units import format_bytes

    verdicts = {
        "fits": "fits",
        "fits_reduced_context": f"fits with a reduced context ({plan.n_ctx} tokens)",
        "partial_offload": f"fits with partial offload ({plan.gpu_layers}/{plan.n_layers + 1} "
        "layers on the GPU)",
        "does_not_fit": "does not fit",
        "unsupported": "cannot run here",
    }
    lines = [
        f"Model     {plan.model}",
        f"Verdict   {verdicts[plan.verdict]}",
        f"Device    {plan.device}, {plan.threads} threads, context {plan.n_ctx} tokens "
        f"(KV cache {plan.kv_type}, flash attention {'on' if plan.flash_attn else 'off'})",
    ]
    if plan.parallel > 1:
        lines.append(
            f"Parallel  {plan.parallel} replies at once, each with its own {plan.n_ctx}-token "
            f"KV cache ({format_bytes(sum(b.kv_cache for b in plan.budgets) // plan.parallel)} "
            "each)"
        )
    for b in plan.budgets:
        vision = f" + image encoder {format_bytes(b.projector)}" if b.projector else ""
        lines.append(
            f"{b.device}: weights {format_bytes(b.weights)} + KV cache "
            f"{format_bytes(b.kv_cache)} + compute {format_bytes(b.compute)} + runtime "
            f"{format_bytes(b.overhead)}{vision} = {format_bytes(b.total)} of "
            f"{format_bytes(b.usable)} usable ({format_bytes(b.free)} free)"
        )
    p = plan.projector
    if p is not None:
        lines.append(
            f"Vision    {Path(p.path).name} ({p.kind}) on {p.device}: encoder weights "
            f"{format_bytes(p.weights)} + {format_bytes(p.compute)} to read one image; an "
            f"image takes {p.image_tokens} tokens of the context"
            + (" per tile" if p.kind in _TILED else "")
        )
    lines.extend(f"Note      {reason}" for reason in plan.reasons)
    return "\n".join(lines)

"""The ``cove`` command: probe, inspect, plan, chat, serve, models, search, pull, rm, index, ask,
collections.

Errors reach the user as one readable line on stderr with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from engine.errors import EngineError, InsufficientMemory
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from engine.client import EngineClient
    from engine.planner import Plan
    from engine.tuning import Choice

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cove", description="Cove: a private, offline AI on your own hardware."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    probe = sub.add_parser("probe", help="show what this machine has and what Cove will use")
    probe.add_argument("--json", action="store_true", help="print JSON")

    inspect = sub.add_parser("inspect", help="read a model file's metadata without loading it")
    inspect.add_argument(
        "model", metavar="MODEL", help="a .gguf path, an ONNX model folder, or 'starter'"
    )
    inspect.add_argument("--json", action="store_true", help="print JSON")

    plan = sub.add_parser("plan", help="will MODEL fit in free memory, where, at what context")
    plan.add_argument(
        "model",
        metavar="MODEL",
        help="a .gguf path, an ONNX model folder, 'starter', a downloaded model, or a GGUF on "
        "the hub (owner/repo/FILE: only its header is read)",
    )
    plan.add_argument("--ctx", type=_positive, metavar="N", help="context length wanted")
    plan.add_argument("--json", action="store_true", help="print JSON")

    tune = sub.add_parser(
        "tune",
        help="measure the ways MODEL can run here (GPU or CPU, flash attention, its GGUF or "
        "ONNX build) and choose the fastest; or choose one yourself",
    )
    tune.add_argument("model", metavar="MODEL", help="a .gguf path, an ONNX folder, 'starter'")
    tune.add_argument("--ctx", type=_positive, metavar="N", help="context length wanted")
    tune.add_argument("--again", action="store_true", help="measure again, even if measured")
    choice = tune.add_mutually_exclusive_group()
    choice.add_argument(
        "--use", metavar="WAY", help="always run MODEL this way (a label 'cove tune' lists)"
    )
    choice.add_argument("--auto", action="store_true", help="forget --use: the fastest again")
    tune.add_argument("--json", action="store_true", help="print JSON")

    chat = sub.add_parser("chat", help="chat with a model (one answer with PROMPT)")
    chat.add_argument("prompt", nargs="?", metavar="PROMPT", help="answer this and exit")
    chat.add_argument("--model", default="starter", metavar="MODEL")
    chat.add_argument("--system", metavar="TEXT", help="system prompt")
    chat.add_argument("--temperature", type=float, default=0.7, metavar="T")
    chat.add_argument("--max-tokens", type=_positive, default=512, metavar="N")
    chat.add_argument("--seed", type=int, metavar="S")
    chat.add_argument("--ctx", type=_positive, metavar="N", help="context length")
    chat.add_argument("--stats", choices=["json"], help="print generation stats on stderr")
    chat.add_argument(
        "--engine", metavar="URL", help="use this OpenAI-compatible server instead of a local one"
    )
    chat.add_argument("--api-key", metavar="K", help="API key for --engine")

    models = sub.add_parser("models", help="list installed models and partial downloads")
    models.add_argument("--json", action="store_true", help="print JSON")

    search = sub.add_parser(
        "search", help="find models: the catalog, then Hugging Face, with what fits here"
    )
    search.add_argument("query", nargs="+", metavar="QUERY", help="words to look for")
    search.add_argument("--json", action="store_true", help="print JSON")

    pull = sub.add_parser("pull", help="download a model from Hugging Face (resumes)")
    pull.add_argument(
        "model",
        metavar="MODEL",
        help="a catalog id (the build recommended here), owner/repo (its Q4_K_M GGUF, or the "
        "largest that fits) or owner/repo/FILE",
    )
    pull.add_argument(
        "--quant", metavar="Q", help="the quantisation (e.g. Q8_0) or ONNX target (cpu-int4)"
    )
    pull.add_argument("--json", action="store_true", help="print JSON")

    index = sub.add_parser("index", help="add files or folders to a document collection")
    index.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    index.add_argument("--collection", required=True, metavar="NAME")
    index.add_argument(
        "--embedding-model", metavar="PATH", help="ONNX encoder folder (default: the library's)"
    )
    index.add_argument(
        "--ocr",
        action="store_true",
        help="read scanned PDF pages by OCR (slower; needs Cove's ocr extra)",
    )
    index.add_argument("--json", action="store_true", help="print JSON")

    ask = sub.add_parser("ask", help="answer a question from a document collection, with sources")
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("--collection", required=True, metavar="NAME")
    ask.add_argument("--top-k", type=_positive, default=5, metavar="K", help="sources to use")
    ask.add_argument("--retrieve-only", action="store_true", help="list the sources; no answer")
    ask.add_argument("--model", metavar="M", help="chat model for the answer (default: starter)")
    ask.add_argument(
        "--embedding-model", metavar="PATH", help="ONNX encoder folder (default: the library's)"
    )
    ask.add_argument("--json", action="store_true", help="print JSON")

    collections = sub.add_parser("collections", help="list or remove document collections")
    collections.add_argument("--json", action="store_true", help="print JSON")
    collections.add_argument(
        "--remove", metavar="NAME", help="remove this collection (or, with --path, files from it)"
    )
    collections.add_argument(
        "--path", action="append", default=[], metavar="PATH", help="a file or folder to remove"
    )

    rm = sub.add_parser("rm", help="delete a downloaded model, or discard a partial download")
    rm.add_argument("model", metavar="MODEL", help="a name 'cove models' shows")
    rm.add_argument("--json", action="store_true", help="print JSON")

    serve = sub.add_parser("serve", help="run the OpenAI-compatible local API server")
    serve.add_argument("--model", metavar="MODEL", help="chat model to load ('starter', a path)")
    serve.add_argument(
        "--embedding-model", type=Path, metavar="PATH", help="embedding model folder"
    )
    serve.add_argument("--host", default="127.0.0.1", metavar="H", help="default: 127.0.0.1")
    serve.add_argument("--port", type=int, default=8080, metavar="P", help="default: 8080")
    serve.add_argument("--api-key", metavar="K", help="require this key on every request")
    serve.add_argument("--ctx", type=_positive, metavar="N", help="context length")
    serve.add_argument("--max-queue", type=_positive, default=8, metavar="N")
    serve.add_argument("--log-prompts", action="store_true", help="write prompts to the log")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = args.command or "chat"
    if args.command is None:
        args = build_parser().parse_args(["chat", *(argv or [])])
    try:
        if command == "probe":
            return _probe(args.json)
        if command == "inspect":
            return _inspect(args.model, args.json)
        if command == "plan":
            return _plan(args.model, args.ctx, args.json)
        if command == "tune":
            return _tune(args)
        if command == "serve":
            return _serve(args)
        if command in ("models", "pull", "rm", "search"):
            return _library(args)
        if command in ("index", "ask", "collections"):
            return _documents(args)
        return _chat(args)
    except EngineError as exc:
        _fail(str(exc))
        return EXIT_ERROR
    except ValueError as exc:
        _fail(f"invalid argument: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
    except OSError as exc:
        _fail(str(exc))
        return EXIT_ERROR


def _probe(as_json: bool) -> int:
    from engine.hardware import probe_hardware

    report = probe_hardware()
    if as_json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report.summary_lines()))
    return 0


def _inspect(model: str, as_json: bool) -> int:
    from engine.gguf import read_gguf
    from engine.models import resolve_model
    from engine.onnx_model import is_onnx_chat_folder, read_onnx_model
    from engine.templates import choose_template

    path = resolve_model(model)
    from engine.coreml_model import is_coreml_model, read_coreml_model

    if is_coreml_model(path):
        coreml = read_coreml_model(path)
        summary = dict(coreml.summary())
        template = choose_template(
            embedded=coreml.chat_template, architecture=coreml.architecture, model_name=coreml.name
        )
    elif is_onnx_chat_folder(path):
        onnx = read_onnx_model(path)
        summary = dict(onnx.summary())
        template = choose_template(
            embedded=onnx.chat_template, architecture=onnx.architecture, model_name=onnx.name
        )
    else:
        info = read_gguf(path)
        summary = dict(info.summary())
        tokens = info.metadata.get("tokenizer.ggml.tokens")
        template = choose_template(
            embedded=info.chat_template,
            architecture=info.architecture,
            tokens=[str(t) for t in tokens] if isinstance(tokens, list) else None,
            model_name=info.name,
        )
    summary["path"] = str(path)
    summary["chat_template"] = {
        "name": template.name,
        "origin": template.origin,
        "reason": template.reason,
    }
    if as_json:
        _print_json(summary)
        return 0
    for key, value in summary.items():
        if key == "chat_template":
            print(f"{'chat template':<18} {template.name} ({template.reason})")
        else:
            print(f"{key.replace('_', ' '):<18} {_human(key, value)}")
    return 0


def _library(args: argparse.Namespace) -> int:
    from engine.library import commands

    if args.command == "models":
        return commands.models_command(args.json)
    if args.command == "rm":
        return commands.rm_command(args.model, args.json)
    if args.command == "search":
        from engine.library.search_cli import search_command

        return search_command(" ".join(args.query), args.json)
    return commands.pull_command(args.model, args.quant, args.json)


def _documents(args: argparse.Namespace) -> int:
    from engine.documents import commands

    if args.command == "index":
        return commands.index_command(
            args.paths, args.collection, args.embedding_model, args.json, ocr=args.ocr
        )
    if args.command == "ask":
        return commands.ask_command(
            args.question,
            args.collection,
            top_k=args.top_k,
            retrieve_only=args.retrieve_only,
            model=args.model,
            embedding_model=args.embedding_model,
            as_json=args.json,
        )
    if args.path and not args.remove:
        raise ValueError("--path needs --remove NAME")
    return commands.collections_command(args.json, args.remove, args.path)


def _plan(model: str, ctx: int | None, as_json: bool) -> int:
    from engine.errors import ModelNotFound
    from engine.loader import plan_model

    try:
        path, _info, plan = plan_model(model, ctx=ctx)
    except ModelNotFound:
        if not _names_hub_file(model):
            raise
        return _plan_remote(model, ctx, as_json)
    choice = _choice(path, ctx, measure_now=False)
    if choice is not None and choice.source != "not_measured":
        plan = choice.plan  # what loading it will do
    if as_json:
        _print_json({**plan.to_dict(), "choice": choice.to_dict() if choice else None})
        return 0
    print(describe_plan(plan))
    if choice is not None:
        print(describe_choice(choice))
    return 0


def _choice(
    path: Path, ctx: int | None, *, measure_now: bool, again: bool = False
) -> Choice | None:
    from engine.hardware import probe_hardware
    from engine.planner import resources_from
    from engine.tuning import choose

    report = probe_hardware()
    progress = _measuring_progress() if measure_now and sys.stderr.isatty() else None
    return choose(
        path,
        resources_from(report),
        report,
        ctx=ctx,
        measure_now=measure_now,
        remeasure=again,
        progress=progress,
    )


def _measuring_progress() -> Callable[[float], bool]:
    def show(fraction: float) -> bool:
        print(f"\rMeasuring… {fraction:4.0%}", end="", file=sys.stderr, flush=True)
        if fraction >= 1:
            print(file=sys.stderr)
        return True

    return show


def _tune(args: argparse.Namespace) -> int:
    from engine.models import resolve_model
    from engine.tuning.store import TuningStore

    path = resolve_model(args.model)
    store = TuningStore()
    if args.auto:
        store.set_override(path, None)
    if args.use:
        choice = _choice(path, args.ctx, measure_now=False)
        labels = [w.label for w in choice.ways] if choice else []
        if args.use not in labels:
            raise ValueError(
                f"{args.use!r} is not a way {path.name} runs here; choose one of: "
                + "; ".join(repr(label) for label in labels)
            )
        store.set_override(path, args.use)
    choice = _choice(path, args.ctx, measure_now=not args.use, again=args.again)
    if choice is None:
        raise InsufficientMemory(f"{path.name} does not fit in the memory free now.")
    if args.json:
        _print_json({**choice.plan.to_dict(), "choice": choice.to_dict()})
        return 0
    print(describe_choice(choice))
    return 0


def describe_choice(choice: Choice) -> str:
    lines = [f"Runs      {choice.config.label}", f"Because   {choice.reason}"]
    if len(choice.ways) > 1:
        lines.append(f"Ways      {len(choice.ways)} here:")
        measured = {m.config: m for m in choice.measurements}
        n_ctx = choice.plan.n_ctx
        for way in choice.ways:
            m = measured.get(way)
            figures = (
                f"prompt {m.prefill_tokens_per_s:.0f} tok/s, reply {m.near_tokens_per_s:.0f} "
                f"tok/s at the start, {1 / m.decode_s(n_ctx / 2):.0f} halfway; a turn "
                f"{m.turn_s(n_ctx):.2f} s"
                if m
                else "not measured"
            )
            mark = "*" if way == choice.config else " "
            lines.append(f"        {mark} {way.label}: {figures}")
    return "\n".join(lines)


def _names_hub_file(model: str) -> bool:
    pieces = model.strip("/").split("/")
    return len(pieces) >= 3 and pieces[-1].lower().endswith(".gguf") and not model.startswith(".")


def _plan_remote(model: str, ctx: int | None, as_json: bool) -> int:
    """Fit before download: the file's header over HTTP Range, the real planner on it."""
    from engine.library.hub import Hub, HubConfig
    from engine.library.remote_gguf import plan_remote
    from engine.units import format_bytes

    pieces = model.strip("/").split("/")
    repo, file = "/".join(pieces[:2]), "/".join(pieces[2:])
    with Hub(HubConfig.resolve()) as hub:
        header, plan = plan_remote(hub, repo, file, ctx=ctx)
    if as_json:
        _print_json(
            {
                **plan.to_dict(),
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
    print(
        f"Read      {format_bytes(header.fetched_bytes)} of the file's header from the hub "
        f"(the file is {format_bytes(header.size)}); nothing was downloaded"
    )
    return 0


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
    for b in plan.budgets:
        lines.append(
            f"{b.device}: weights {format_bytes(b.weights)} + KV cache "
            f"{format_bytes(b.kv_cache)} + compute {format_bytes(b.compute)} + runtime "
            f"{format_bytes(b.overhead)} = {format_bytes(b.total)} of "
            f"{format_bytes(b.usable)} usable ({format_bytes(b.free)} free)"
        )
    lines.extend(f"Note      {reason}" for reason in plan.reasons)
    return "\n".join(lines)


def _chat(args: argparse.Namespace) -> int:
    """One path for every engine: a private local host (the default), or a remote server."""
    from engine.client import EngineClient
    from engine.local_engine import LocalEngine

    params = GenerationParams(
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        seed=args.seed,
    )
    local: LocalEngine | None = None
    if args.engine:
        client = EngineClient(args.engine, args.api_key)
        model = None if args.model == "starter" else args.model
    else:
        from engine.models import resolve_model

        resolve_model(args.model)  # a missing file is reported before any process starts
        local = LocalEngine.start()
        client = local.client
        model = client.load(args.model, ctx=args.ctx).model
    history: list[ChatMessage] = []
    if args.system:
        history.append(ChatMessage("system", args.system))
    try:
        if args.prompt is not None:
            history.append(ChatMessage("user", args.prompt))
            _reply, final = _stream(client.chat(history, params, model=model), sys.stdout)
            if args.stats:
                print(json.dumps(_stats_dict(final)), file=sys.stderr)
            if final.finish_reason == "error":
                _fail(final.error or "generation failed")
                return EXIT_ERROR
            return 0
        return _interactive(client, model, history, params, args.stats == "json")
    finally:
        if local is not None:
            local.stop()
        client.close()


def _serve(args: argparse.Namespace) -> int:
    from engine.host.server import ServeOptions, serve

    if args.model is not None:
        from engine.models import resolve_model

        resolve_model(args.model)
    return serve(
        ServeOptions(
            host=args.host,
            port=args.port,
            model=args.model,
            embedding_model=args.embedding_model,
            ctx=args.ctx,
            api_key=args.api_key,
            max_queue=args.max_queue,
            log_prompts=args.log_prompts,
        )
    )


def _interactive(
    client: EngineClient,
    model: str | None,
    history: list[ChatMessage],
    params: GenerationParams,
    stats: bool,
) -> int:
    print("Cove chat. Ctrl+C stops a reply, Ctrl+D quits.", file=sys.stderr)
    while True:
        try:
            line = input("> ")
        except EOFError:
            print(file=sys.stderr)
            return 0
        if not line.strip():
            continue
        history.append(ChatMessage("user", line))
        cancel = threading.Event()
        chunks = client.chat(history, params, cancel=cancel, model=model)
        try:
            reply, final = _stream(chunks, sys.stdout)
        except KeyboardInterrupt:
            cancel.set()
            chunks.close()  # type: ignore[attr-defined]
            print("\n[stopped]", file=sys.stderr)
            history.pop()
            continue
        if final.truncation is not None:
            print(f"[{final.truncation.describe()}]", file=sys.stderr)
        if final.ignored_params:
            names = ", ".join(final.ignored_params)
            print(f"[this runtime cannot apply: {names}; they were ignored]", file=sys.stderr)
        if final.finish_reason == "error":
            print(f"[error: {final.error}]", file=sys.stderr)
            history.pop()
            continue
        history.append(ChatMessage("assistant", reply))
        if stats:
            print(json.dumps(_stats_dict(final)), file=sys.stderr)


def _stream(chunks: Iterable[Chunk], out: TextIO) -> tuple[str, Chunk]:
    """Write text chunks as they come; return the whole reply and the terminal chunk."""
    parts: list[str] = []
    final: Chunk | None = None
    for chunk in chunks:
        if chunk.is_terminal:
            final = chunk
            break
        parts.append(chunk.text)
        out.write(chunk.text)
        out.flush()
    out.write("\n")
    out.flush()
    if final is None:
        final = Chunk(finish_reason="error", error="the stream ended without a result")
    return "".join(parts), final


def _stats_dict(final: Chunk) -> dict[str, object]:
    stats = final.stats
    data: dict[str, object] = {
        "finish_reason": final.finish_reason,
        "prompt_tokens": stats.prompt_tokens if stats else 0,
        "cached_tokens": stats.cached_tokens if stats else 0,
        "completion_tokens": stats.completion_tokens if stats else 0,
        "ttft_s": stats.ttft_s if stats else None,
        "prompt_tokens_per_s": stats.prompt_tokens_per_s if stats else None,
        "decode_tokens_per_s": stats.decode_tokens_per_s if stats else None,
        "total_s": stats.total_s if stats else None,
        "context_full": final.context_full,
        "truncation": final.truncation.describe() if final.truncation else None,
        "ignored_params": list(final.ignored_params),
    }
    if final.error:
        data["error"] = final.error
    return data


def _human(key: str, value: object) -> str:
    from engine.units import format_bytes

    if isinstance(value, int) and key in ("file_size", "weights_bytes"):
        return format_bytes(value)
    if isinstance(value, dict) and key == "tensor_types":
        from engine.gguf import describe_mix

        return describe_mix(value)
    if isinstance(value, int) and key == "parameters":
        return f"{value / 1e6:.1f} M" if value < 1e9 else f"{value / 1e9:.2f} B"
    return str(value)


def _print_json(data: object) -> None:
    print(json.dumps(data, indent=2, default=str))


def _fail(message: str) -> None:
    print(f"cove: error: {message}", file=sys.stderr)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

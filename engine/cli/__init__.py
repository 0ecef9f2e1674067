"""The ``cove`` command: probe, inspect, plan, tune, chat, serve, worker, trust, models, search,
pull, rm, index, ask, collections, history, mcp, eval. This module parses the arguments and hands
each command to its module; the library's, the documents', the server's and the remote commands
live with those packages.

Errors reach the user as one readable line on stderr with a non-zero exit code, never a traceback.

Beside an open window on the same data folder the commands share it safely (the history is
SQLite, the JSON files are changed under a lock, engine/instance.py); ``chat`` and ``serve`` then
leave idle measuring to the window's engine, and say so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cli.chat import chat_command
from engine.cli.history import add_history_parser
from engine.cli.inspection import inspect_command, probe_command
from engine.cli.output import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE, command_hint, fail
from engine.cli.plan import plan_command
from engine.cli.tuning import tune_command
from engine.errors import EngineError
from engine.generation.state_cache import DEFAULT_LIMIT_BYTES
from engine.launch import die_with_parent
from engine.remote import DEFAULT_WORKER_PORT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cove", description="Cove: a private, offline AI on your own hardware."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    probe = sub.add_parser("probe", help="show what this machine has and what Cove will use")
    probe.add_argument("--json", action="store_true", help="print JSON")
    probe.add_argument(
        "--again",
        action="store_true",
        help="measure this machine's memory bandwidth and speed again (and run the starter)",
    )

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
    plan.add_argument(
        "--parallel",
        type=_parallel,
        default=1,
        metavar="N|auto",
        help="replies at once, each with its own KV cache (as cove serve --parallel; default 1)",
    )
    plan.add_argument(
        "--worker",
        action="append",
        default=[],
        metavar="HOST:PORT=KEY",
        help="plan MODEL split with this 'cove worker' (repeat for more)",
    )
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
        "--speculation",
        choices=["auto", "exact", "on", "off"],
        default="auto",
        help="check tokens guessed from the conversation in batches: auto (where it pays), "
        "exact (only where the reply stays bit for bit plain decoding's), off",
    )
    chat.add_argument(
        "--engine", metavar="URL", help="use this OpenAI-compatible server instead of a local one"
    )
    chat.add_argument("--api-key", metavar="K", help="API key for --engine")
    chat.add_argument(
        "--mcp",
        metavar="CONFIG.json",
        help="offer the tools of these MCP servers (an mcp.json); each call asks first",
    )
    chat.add_argument(
        "--yes", action="store_true", help="with --mcp: allow every tool call without asking"
    )
    chat.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="PATH",
        help="show the model this image with the (first) question; repeat for more "
        "(a vision model: Gemma 3, Qwen2.5-VL, SmolVLM)",
    )
    chat.add_argument(
        "--no-background-measuring",
        action="store_true",
        help="never measure in the background while this chat's engine runs (as cove serve)",
    )

    mcp = sub.add_parser("mcp", help="the MCP servers Cove's chats can use")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    mcp_list = mcp_sub.add_parser("list", help="list the configured servers and their tools")
    mcp_list.add_argument("--json", action="store_true", help="print JSON")
    mcp_list.add_argument(
        "--config", type=Path, metavar="FILE", help="another mcp.json (default: Cove's own)"
    )

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
    ask.add_argument(
        "--reranker",
        metavar="PATH",
        help="cross-encoder folder that reorders the best passages (default: the library's, "
        "when installed: cove pull ms-marco-minilm-l6-v2)",
    )
    ask.add_argument("--no-rerank", action="store_true", help="never rerank the passages")
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

    add_history_parser(sub)

    rm = sub.add_parser("rm", help="delete a downloaded model, or discard a partial download")
    rm.add_argument("model", metavar="MODEL", help="a name 'cove models' shows")
    rm.add_argument("--json", action="store_true", help="print JSON")

    serve = sub.add_parser("serve", help="run the OpenAI-compatible local API server")
    serve.add_argument("--model", metavar="MODEL", help="chat model to load ('starter', a path)")
    serve.add_argument(
        "--embedding-model", type=Path, metavar="PATH", help="embedding model folder"
    )
    serve.add_argument(
        "--host", metavar="H", help="default: 127.0.0.1 (with --lan: 0.0.0.0, every address)"
    )
    serve.add_argument("--port", type=int, default=8080, metavar="P", help="default: 8080")
    serve.add_argument("--api-key", metavar="K", help="require this key on every request")
    serve.add_argument(
        "--lan",
        action="store_true",
        help="serve other computers on this network: with a key (made and shown once, or "
        "--api-key), TLS with this machine's certificate (clients pin its fingerprint) and "
        "limits per address",
    )
    serve.add_argument(
        "--new-key", action="store_true", help="with --lan: make a new key (the old one stops)"
    )
    serve.add_argument(
        "--advertise",
        action="store_true",
        help="with --lan: announce this engine's name and fingerprint on the network (mDNS)",
    )
    serve.add_argument(  # the window's sharing switch: stop when the window is gone
        "--exit-with-parent", type=int, metavar="PID", help=argparse.SUPPRESS
    )
    serve.add_argument(
        "--worker",
        action="append",
        default=[],
        metavar="HOST:PORT[=KEY]",
        help="split the model's layers with the 'cove worker' on this machine (repeat for more); "
        "its key is kept after the first time",
    )
    serve.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="PATTERN=MODEL",
        help="answer requests naming PATTERN (a glob, e.g. 'claude-*') with MODEL; repeatable",
    )
    serve.add_argument(
        "--any-model-name",
        action="store_true",
        help="answer a request naming any unknown model with the loaded model",
    )
    serve.add_argument("--ctx", type=_positive, metavar="N", help="context length")
    serve.add_argument(
        "--parallel",
        type=_parallel,
        default=None,
        metavar="N|auto",
        help="replies generated at once (llama.cpp models; default auto: as many as fit, up to 4)",
    )
    serve.add_argument(
        "--keep-alive",
        type=_keep_alive,
        default=600.0,
        metavar="DURATION",
        help="how long a model loaded on demand (a request naming another installed model) "
        "stays once idle: '10m' (default), '1h', '0' (at once), '-1' (until told)",
    )
    serve.add_argument(
        "--max-models",
        type=_positive,
        metavar="N",
        help="chat models resident at once (default: as many as fit in memory)",
    )
    serve.add_argument(
        "--max-queue",
        type=_positive,
        metavar="N",
        help="requests that may wait beyond the running ones before a 429 (default: 8 a reply)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="PATTERN",
        help="let web pages of this origin use the engine from a browser (a glob, e.g. "
        "'chrome-extension://*'; '*' for every one); repeatable. Pages of this computer "
        "(localhost) and desktop apps (app://, tauri://, vscode-webview://) are allowed already; "
        "COVE_ORIGINS adds comma-separated patterns",
    )
    serve.add_argument("--log-prompts", action="store_true", help="write prompts to the log")
    serve.add_argument(
        "--no-background-measuring",
        action="store_true",
        help="never measure in the background (the ways to run a model, how many replies at "
        "once pay); by default that waits until this computer is idle and runs at the lowest "
        "priority",
    )
    serve.add_argument(
        "--ollama",
        action="store_true",
        help="also listen on Ollama's port (127.0.0.1:11434), for tools that expect it there",
    )
    serve.add_argument(
        "--state-cache-mb",
        type=_non_negative,
        default=STATE_CACHE_MB,
        metavar="MB",
        help="keep conversations' model state on disk, up to this size (0: off; default 4096)",
    )
    serve.add_argument(
        "--draft",
        metavar="MODEL",
        help="a smaller model of the same vocabulary to draft for the chat model, or 'auto' "
        "(the catalog's, when installed and fitting)",
    )
    worker = sub.add_parser(
        "worker",
        help="lend this machine's memory (and GPU) to another Cove for part of a model "
        "(llama.cpp RPC, behind a key and TLS)",
    )
    worker.add_argument(
        "--port", type=int, default=DEFAULT_WORKER_PORT, metavar="P",
        help=f"default: {DEFAULT_WORKER_PORT}",
    )  # fmt: skip
    worker.add_argument(
        "--key", metavar="K", help="the key other machines must give (default: made and shown once)"
    )
    worker.add_argument("--new-key", action="store_true", help="make a new key (the old stops)")
    worker.add_argument(
        "--host", default="0.0.0.0", metavar="H", help="address to listen on (default: all)"
    )
    worker.add_argument("--threads", type=_positive, metavar="N", help="CPU threads to use")

    evaluation = sub.add_parser(
        "eval",
        help="how often models answer a multiple-choice task right, side by side (e.g. two "
        "builds of one model)",
    )
    evaluation.add_argument("models", nargs="+", metavar="MODEL", help="a name 'cove models' "
                            "shows, a .gguf path or 'starter'; several are compared")  # fmt: skip
    evaluation.add_argument(
        "--task",
        type=Path,
        metavar="FILE",
        help="questions as JSON lines ({question, choices, answer}) or an lm-evaluation-harness "
        "YAML task over local data (default: the 200 everyday questions shipped with Cove)",
    )
    evaluation.add_argument("--limit", type=_positive, metavar="N", help="the first N questions")
    evaluation.add_argument("--ctx", type=_positive, metavar="N", help="context length")
    evaluation.add_argument("--json", action="store_true", help="print JSON")

    trust = sub.add_parser(
        "trust",
        help="the certificates of other computers' engines and workers, pinned on first use",
    )
    trust.add_argument("--forget", metavar="HOST:PORT", help="accept a changed certificate")
    trust.add_argument("--json", action="store_true", help="print JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Started by another Cove process with ``child_env`` (a server a test started): end with it.
    die_with_parent()
    args = build_parser().parse_args(argv)
    command = args.command or "chat"
    if args.command is None:
        args = build_parser().parse_args(["chat", *(argv or [])])
    try:
        if command == "probe":
            return probe_command(args.json, args.again)
        if command == "inspect":
            return inspect_command(args.model, args.json)
        if command == "plan":
            return plan_command(args.model, args.ctx, args.json, args.worker, args.parallel)
        if command == "tune":
            return tune_command(args)
        if command == "serve":
            if _beside_window(args.exit_with_parent):
                args.no_background_measuring = True
            return _serve(args)
        if command == "worker":
            from engine.remote.worker import worker_command

            return worker_command(
                args.host, args.port, args.key, new_key=args.new_key, threads=args.threads
            )
        if command == "trust":
            from engine.cli.trust import trust_command

            return trust_command(args.forget, args.json)
        if command == "eval":
            from engine.cli.evaluate import eval_command

            return eval_command(
                args.models, args.task, limit=args.limit, ctx=args.ctx, as_json=args.json
            )
        if command == "history":
            from engine.cli.history import history_command

            return history_command(args)
        if command == "mcp":
            from engine.cli.mcp import mcp_list_command

            return mcp_list_command(args.config, args.json)
        if command in ("models", "pull", "rm", "search"):
            return _library(args)
        if command in ("index", "ask", "collections"):
            return _documents(args)
        if not args.engine and _beside_window(None):
            args.no_background_measuring = True
        return chat_command(args)
    except EngineError as exc:
        fail(str(exc) + command_hint(exc.code))
        return EXIT_ERROR
    except ValueError as exc:
        fail(f"invalid argument: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
    except OSError as exc:
        fail(str(exc))
        return EXIT_ERROR


def _beside_window(parent: int | None) -> bool:
    """Whether Cove's window holds this data folder, said on stderr: then this command's engine
    leaves idle measuring to the window's (two would take turns measuring one machine). The
    window's own ``serve`` (its sharing switch, ``parent``) is part of it and says nothing."""
    from engine.instance import running_window

    window = running_window()
    if window is None or (parent is not None and window.pid == parent):
        return False
    pid = f" (pid {window.pid})" if window.pid is not None else ""
    print(
        f"cove: Cove's window is open on this data folder{pid}; idle measuring is left to it.",
        file=sys.stderr,
    )
    return True


def _library(args: argparse.Namespace) -> int:
    from engine.cli import library

    if args.command == "models":
        return library.models_command(args.json)
    if args.command == "rm":
        return library.rm_command(args.model, args.json)
    if args.command == "search":
        from engine.cli.search import search_command

        return search_command(" ".join(args.query), args.json)
    return library.pull_command(args.model, args.quant, args.json)


def _documents(args: argparse.Namespace) -> int:
    from engine.cli import documents

    if args.command == "index":
        return documents.index_command(
            args.paths, args.collection, args.embedding_model, args.json, ocr=args.ocr
        )
    if args.command == "ask":
        return documents.ask_command(
            args.question,
            args.collection,
            top_k=args.top_k,
            retrieve_only=args.retrieve_only,
            model=args.model,
            embedding_model=args.embedding_model,
            as_json=args.json,
            reranker_model=args.reranker,
            rerank=not args.no_rerank,
        )
    if args.path and not args.remove:
        raise ValueError("--path needs --remove NAME")
    return documents.collections_command(args.json, args.remove, args.path)


def _serve(args: argparse.Namespace) -> int:
    from engine.host.models.model_names import NameRules, parse_alias
    from engine.host.server import ServeOptions, serve

    if args.model is not None:
        from engine.library.names import resolve_model

        resolve_model(args.model)
    if (args.new_key or args.advertise) and not args.lan:
        raise ValueError("--new-key and --advertise go with --lan")
    options = ServeOptions(
        host=args.host or "127.0.0.1",
        port=args.port,
        model=args.model,
        embedding_model=args.embedding_model,
        ctx=args.ctx,
        api_key=args.api_key,
        max_queue=args.max_queue,
        parallel=args.parallel,
        keep_alive_s=args.keep_alive,
        max_models=args.max_models,
        log_prompts=args.log_prompts,
        ollama=args.ollama,
        state_cache_bytes=args.state_cache_mb * 2**20,
        draft=args.draft,
        parent_pid=args.exit_with_parent,
        names=NameRules(tuple(parse_alias(a) for a in args.alias), args.any_model_name),
        background_measuring=not args.no_background_measuring,
        allow_origins=tuple(args.allow_origin),
    )
    if args.lan:
        from engine.host.lan import lan_options

        options = lan_options(options, host=args.host, new_key=args.new_key,
                              advertise=args.advertise)  # fmt: skip
    if args.worker:
        from engine.host.split_front import serve_split

        return serve_split(options, args.worker)
    return serve(options)


STATE_CACHE_MB = DEFAULT_LIMIT_BYTES // 2**20


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or a positive integer")
    return value


def _keep_alive(text: str) -> float | None:
    from engine.host.models.residents import keep_alive_option

    return keep_alive_option(text)


def _parallel(text: str) -> int | None:
    from engine.host.models.admission import parallel_count

    return parallel_count(text)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value

"""``python -m engine.host``: the process the app starts (see engine.client.local.LocalEngine)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.client.protocol import TOKEN_ENV
from engine.errors import EngineError
from engine.generation.state_cache import DEFAULT_LIMIT_BYTES
from engine.host.models.admission import parallel_count
from engine.host.models.replies import STREAM_FLUSH_S
from engine.host.models.residents import DEFAULT_KEEP_ALIVE_S, keep_alive_option
from engine.host.server import ServeOptions, serve
from engine.remote.split import decode

STATE_CACHE_MB = DEFAULT_LIMIT_BYTES // 2**20


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.host")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model")
    parser.add_argument("--embedding-model", type=Path)
    parser.add_argument("--ctx", type=int)
    parser.add_argument("--max-queue", type=int)
    # The window's own engine: a chat reply and a document answer at once, without the memory
    # of more sequences than one person uses.
    parser.add_argument("--parallel", type=parallel_count, default=2, metavar="N|auto")
    parser.add_argument(
        "--keep-alive", type=keep_alive_option, default=DEFAULT_KEEP_ALIVE_S, metavar="DURATION"
    )
    parser.add_argument("--max-models", type=int, metavar="N")
    parser.add_argument("--log-prompts", action="store_true")
    parser.add_argument("--exit-with-parent", type=int, metavar="PID")
    parser.add_argument(
        "--stream-flush-ms",
        type=float,
        default=STREAM_FLUSH_S * 1000,
        help="hand streamed text to the connection at most this often (0: every token)",
    )
    parser.add_argument("--state-cache-mb", type=int, default=STATE_CACHE_MB)
    parser.add_argument("--draft", metavar="MODEL")
    parser.add_argument("--no-background-measuring", action="store_true")
    parser.add_argument(
        "--workers", metavar="JSON", help="cove workers reached through loopback tunnels"
    )
    args = parser.parse_args(argv)
    options = ServeOptions(
        host=args.host,
        port=args.port,
        model=args.model,
        embedding_model=args.embedding_model,
        ctx=args.ctx,
        api_key=os.environ.pop(TOKEN_ENV, None) or None,
        max_queue=args.max_queue,
        parallel=args.parallel,
        keep_alive_s=args.keep_alive,
        max_models=args.max_models,
        log_prompts=args.log_prompts,
        announce=True,
        parent_pid=args.exit_with_parent,
        flush_s=max(args.stream_flush_ms, 0.0) / 1000,
        state_cache_bytes=max(args.state_cache_mb, 0) * 2**20,
        draft=args.draft,
        workers=decode(args.workers) if args.workers else (),
        background_measuring=not args.no_background_measuring,
    )
    try:
        return serve(options)
    except (EngineError, OSError) as exc:
        print(f"cove host: error: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""``cove chat``: one answer to a prompt, or a conversation at the terminal, with a private local
host (the default) or a remote OpenAI-compatible server."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from engine.cli.output import EXIT_ERROR, fail
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from engine.client import EngineClient


def chat_command(args: argparse.Namespace) -> int:
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
                fail(final.error or "generation failed")
                return EXIT_ERROR
            return 0
        return _interactive(client, model, history, params, args.stats == "json")
    finally:
        if local is not None:
            local.stop()
        client.close()


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

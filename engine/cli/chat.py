"""``cove chat``: one answer to a prompt, or a conversation at the terminal, with a private local
host (the default) or a remote OpenAI-compatible server."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from engine.cli.output import EXIT_ERROR, fail
from engine.images import read_image_file
from engine.types import ChatMessage, Chunk, GenerationParams, ImageInput

if TYPE_CHECKING:
    from engine.client.http_client import EngineClient
    from engine.mcp_servers.consent import ConsentStore
    from engine.mcp_servers.hub import McpHub
    from engine.mcp_servers.turn import Ask


def chat_command(args: argparse.Namespace) -> int:
    """One path for every engine: a private local host (the default), or a remote server."""
    from engine.client.local import LocalEngine

    params = GenerationParams(
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        seed=args.seed,
        speculation=args.speculation,
    )
    # Images are read and checked before any process starts.
    images = tuple(read_image_file(Path(p)) for p in args.image)
    if args.mcp:
        from engine.mcp_servers import config

        config.load(Path(args.mcp))  # a bad list is reported before any process starts
    local: LocalEngine | None = None
    if args.engine:
        from engine.remote.connect import connect

        connection = connect(args.engine, args.api_key)
        client = connection.client
        if connection.trusted is not None and connection.trusted.first_use:
            print(
                f"cove: pinned the certificate of {connection.trusted.address}: "
                f"{connection.trusted.fingerprint} (check that the other computer shows the same)",
                file=sys.stderr,
            )
        model = None if args.model == "starter" else args.model
    else:
        from engine.library.names import resolve_model

        resolve_model(args.model)  # a missing file is reported before any process starts
        quiet = ("--no-background-measuring",) if args.no_background_measuring else ()
        local = LocalEngine.start(extra_args=quiet)
        client = local.client
        model = client.load(args.model, ctx=args.ctx).model
    history: list[ChatMessage] = []
    if args.system:
        history.append(ChatMessage("system", args.system))
    tools: _Tools | None = None
    try:
        tools = _Tools.start(args.mcp, args.yes) if args.mcp else None
        turn = _Turn(client, model, tools)
        if args.prompt is not None:
            history.append(ChatMessage("user", args.prompt, images=images))
            _reply, final = turn(history, params, None)
            if args.stats:
                print(json.dumps(_stats_dict(final)), file=sys.stderr)
            if final.finish_reason == "error":
                fail(final.error or "generation failed")
                return EXIT_ERROR
            return 0
        return _interactive(turn, history, params, args.stats == "json", images)
    finally:
        if tools is not None:
            tools.hub.close()
        if local is not None:
            local.stop()
        client.close()


class _Tools:
    """``--mcp``: the servers of a list, connected for the whole chat."""

    def __init__(self, hub: McpHub, consent: ConsentStore, ask: Ask) -> None:
        self.hub, self.consent, self.ask = hub, consent, ask

    @classmethod
    def start(cls, path: str, allow_all: bool) -> _Tools:
        from pathlib import Path

        from engine.cli.mcp import report_statuses, terminal_ask
        from engine.mcp_servers import config
        from engine.mcp_servers.consent import ConsentStore
        from engine.mcp_servers.hub import McpHub

        hub = McpHub(config.load(Path(path)))
        report_statuses(hub.start())
        return cls(hub, ConsentStore(), terminal_ask(allow_all))


class _Turn:
    """One reply, streamed to stdout: with MCP tools when ``--mcp`` gave some. Returns the reply
    and the terminal chunk; the calls and their results join ``history``."""

    def __init__(self, client: EngineClient, model: str | None, tools: _Tools | None) -> None:
        self.client, self.model, self.tools = client, model, tools
        self.chunks: Iterator[Chunk] | None = None

    def __call__(
        self,
        history: list[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None,
    ) -> tuple[str, Chunk]:
        def chat(messages: Sequence[ChatMessage], p: GenerationParams) -> Iterator[Chunk]:
            self.chunks = self.client.chat(messages, p, cancel=cancel, model=self.model)
            return self.chunks

        if self.tools is None or not self.tools.hub.tools():
            return _stream(chat(history, params), sys.stdout)
        from engine.cli.mcp import show_call
        from engine.mcp_servers.turn import run_turn

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        result = run_turn(
            chat,
            history,
            params,
            self.tools.hub,
            self.tools.consent,
            self.tools.ask,
            on_text=write,
            on_call=show_call,
            on_reasoning=lambda text: print(text, end="", file=sys.stderr, flush=True),
            cancel=cancel,
        )
        sys.stdout.write("\n")
        history.extend(result.messages)
        return result.text, result.final

    def close(self) -> None:
        if self.chunks is not None:
            self.chunks.close()  # type: ignore[attr-defined]


def _interactive(
    turn: _Turn,
    history: list[ChatMessage],
    params: GenerationParams,
    stats: bool,
    images: tuple[ImageInput, ...] = (),
) -> int:
    print("Cove chat. Ctrl+C stops a reply, Ctrl+D quits.", file=sys.stderr)
    if images:
        s = "" if len(images) == 1 else "s"
        print(f"[{len(images)} image{s} go with your first message]", file=sys.stderr)
    while True:
        try:
            line = input("> ")
        except EOFError:
            print(file=sys.stderr)
            return 0
        if not line.strip():
            continue
        history.append(ChatMessage("user", line, images=images))
        cancel = threading.Event()
        kept = len(history)
        try:
            reply, final = turn(history, params, cancel)
        except KeyboardInterrupt:
            cancel.set()
            turn.close()
            print("\n[stopped]", file=sys.stderr)
            del history[kept - 1 :]
            continue
        if final.truncation is not None:
            print(f"[{final.truncation.describe()}]", file=sys.stderr)
        if final.ignored_params:
            names = ", ".join(final.ignored_params)
            print(f"[this runtime cannot apply: {names}; they were ignored]", file=sys.stderr)
        if final.finish_reason == "error":
            print(f"[error: {final.error}]", file=sys.stderr)
            del history[kept - 1 :]
            continue
        images = ()  # sent once; they stay in the history
        history.append(ChatMessage("assistant", reply))
        if stats:
            print(json.dumps(_stats_dict(final)), file=sys.stderr)


def _stream(chunks: Iterable[Chunk], out: TextIO) -> tuple[str, Chunk]:
    """Write text chunks as they come; return the whole reply and the terminal chunk."""
    parts: list[str] = []
    final: Chunk | None = None
    for chunk in chunks:
        if chunk.reasoning:  # a reasoning model's thinking: on stderr, apart from the answer
            sys.stderr.write(chunk.reasoning)
            sys.stderr.flush()
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
        "draft_tokens": stats.draft_tokens if stats else 0,
        "accepted_tokens": stats.accepted_tokens if stats else 0,
        "context_full": final.context_full,
        "truncation": final.truncation.describe() if final.truncation else None,
        "ignored_params": list(final.ignored_params),
    }
    if final.error:
        data["error"] = final.error
    return data

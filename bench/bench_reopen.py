"""Time to the first token of the next reply in a long conversation, with the conversation's
state restored from disk against reading the history again.

- restart: a conversation of about ``--tokens`` tokens is built on an engine host, the host
  stops, and a fresh host gets the next message, once with the saved state (the default) and once
  with ``--state-cache-mb 0``, alternating, ``--rounds`` times;
- switch: one host holds two long conversations and the next message alternates between them,
  so each reply follows the other chat's; with saved state, and on a host without it.

Also timed: copying the state out of the runtime after a reply (the only part done before the
reply's last chunk; the file is written in the background).

    python bench/bench_reopen.py [--model starter] [--tokens 4000] [--rounds 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.types import ChatMessage, GenerationParams  # noqa: E402

CTX = 8192
PARAMS = GenerationParams(temperature=0.0, max_tokens=24)
PARAGRAPH = (
    "The harbour board met on Tuesday to review the season. Cargo volumes rose by a tenth, the "
    "new crane on the east quay was commissioned late because of a wiring fault, and the dredging "
    "of the inner basin is due to finish before the autumn storms. "
)


def build(client: Any, tag: str, tokens: int) -> list[ChatMessage]:
    """A conversation of about ``tokens`` prompt tokens, built turn by turn as a person would."""
    history = [ChatMessage("system", "You are a helpful assistant.")]
    turn = 0
    while True:
        turn += 1
        history.append(ChatMessage("user", f"{tag} note {turn}: {PARAGRAPH * 3}Summarise."))
        text, final = ask(client, history)
        history.append(ChatMessage("assistant", text))
        assert final.stats is not None
        if final.stats.prompt_tokens >= tokens:
            return history


def ask(client: Any, history: list[ChatMessage]) -> tuple[str, Any]:
    parts: list[str] = []
    final = None
    for chunk in client.chat(history, PARAMS):
        if chunk.is_terminal:
            final = chunk
        else:
            parts.append(chunk.text)
    assert final is not None and final.finish_reason in ("stop", "length"), final
    return "".join(parts), final


def host(model: str, state_dir: Path, cache_mb: int | None = None) -> Any:
    import os

    from engine.client.local import LocalEngine

    os.environ["COVE_STATE_DIR"] = str(state_dir)
    extra = ("--state-cache-mb", str(cache_mb)) if cache_mb is not None else ()
    engine = LocalEngine.start(extra_args=extra)
    engine.client.load(model, ctx=CTX)
    return engine


def restart(model: str, tokens: int, rounds: int, folder: Path) -> dict[str, Any]:
    engine = host(model, folder)
    try:
        history = build(engine.client, "Harbour", tokens)
    finally:
        engine.stop()
    rows: dict[str, list[float]] = {"restored": [], "reread": []}
    cached: list[int] = []
    prompt = 0
    for r in range(rounds):
        order = ("restored", "reread") if r % 2 == 0 else ("reread", "restored")
        for way in order:
            engine = host(model, folder, None if way == "restored" else 0)
            try:
                question = [*history, ChatMessage("user", f"Question {r}: what was late?")]
                _text, final = ask(engine.client, question)
            finally:
                engine.stop()
            rows[way].append(final.stats.ttft_s)
            prompt = final.stats.prompt_tokens
            if way == "restored":
                cached.append(final.stats.cached_tokens)
    return summary(rows, prompt_tokens=prompt, restored_tokens=min(cached))


def switch(model: str, tokens: int, rounds: int, folder: Path) -> dict[str, Any]:
    rows: dict[str, list[float]] = {"restored": [], "reread": []}
    for way in ("restored", "reread"):
        engine = host(model, folder / way, None if way == "restored" else 0)
        try:
            chats = [build(engine.client, tag, tokens // 2) for tag in ("Harbour", "Orchard")]
            for r in range(rounds):
                for history in chats:
                    question = [*history, ChatMessage("user", f"Question {r}: anything late?")]
                    _text, final = ask(engine.client, question)
                    rows[way].append(final.stats.ttft_s)
        finally:
            engine.stop()
    return summary(rows, prompt_tokens=tokens // 2)


def capture(model: str, tokens: int) -> dict[str, Any]:
    """Copying the runtime's state after a reply, in process."""
    from engine.backends import backend_for
    from engine.backends.loader import plan_model

    path, _info, plan = plan_model(model, ctx=CTX)
    loaded: Any = backend_for(path).load(path, plan)
    try:
        history = [ChatMessage("user", PARAGRAPH * max(1, tokens // 55))]
        for _chunk in loaded.chat(history, GenerationParams(temperature=0.0, max_tokens=1)):
            pass
        seconds = []
        size = 0
        for _ in range(5):
            began = time.perf_counter()
            data = loaded._state_bytes()
            seconds.append(time.perf_counter() - began)
            size = len(data)
        return {
            "cached_tokens": loaded.cached_tokens,
            "state_mb": round(size / 2**20, 1),
            "median_copy_ms": round(statistics.median(seconds) * 1000, 1),
        }
    finally:
        loaded.close()


def summary(rows: dict[str, list[float]], **extra: int) -> dict[str, Any]:
    restored = statistics.median(rows["restored"])
    reread = statistics.median(rows["reread"])
    return {
        **extra,
        "restored_ttft_s": round(restored, 3),
        "reread_ttft_s": round(reread, 3),
        "ratio": round(restored / reread, 3),
        "runs": {k: [round(v, 3) for v in vs] for k, vs in rows.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="starter")
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result: dict[str, Any] = {"model": args.model, "tokens": args.tokens}
    with tempfile.TemporaryDirectory(prefix="cove-reopen-") as tmp:
        folder = Path(tmp)
        result["restart"] = restart(args.model, args.tokens, args.rounds, folder / "restart")
        print("restart:", json.dumps(result["restart"]), flush=True)
        result["switch"] = switch(args.model, args.tokens, args.rounds, folder / "switch")
        print("switch:", json.dumps(result["switch"]), flush=True)
    result["capture"] = capture(args.model, args.tokens)
    print("capture:", json.dumps(result["capture"]), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

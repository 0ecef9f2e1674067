"""An agent client's first and second turn against a running engine: the requests Claude Code
and Codex CLI really send (tests/fixtures/clients, whole, not shortened), turn 1 then turn 2
(after a tool call, the same long prefix of instructions and tool schemas), streamed.

    .venv/bin/python bench/bench_agent_turns.py --url http://127.0.0.1:8080 [--key K]
        [--client claude-code codex] [--max-tokens 16] [--json]
    .venv/bin/python bench/bench_agent_turns.py --url ... --client codex --at-once 2

``--at-once N``: turn 1 sent by N clients at the same moment (on a fresh engine: what several
sessions of one tool starting together cost), each one's first token and whole time; then turn 1
once more, alone, from the cache.

Reported per turn: the prompt's tokens, how many were read from the cache (the reused prefix),
the time to the first streamed text or call, and the whole time. Turn 1 on a fresh engine is the
baseline the second turn's time is compared with (the ratio)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "clients"
FIRST_EVENTS = {"content_block_delta", "response.output_text.delta", "response.output_item.added"}


def turn(url: str, key: str, captured: dict[str, Any], model: str, tokens: int) -> dict[str, Any]:
    body = dict(captured["body"], model=model, stream=True)
    anthropic = captured["path"].startswith("/v1/messages")
    body["max_tokens" if anthropic else "max_output_tokens"] = tokens
    headers = {**captured["headers"], "Authorization": f"Bearer {key}", "x-api-key": key}
    start = time.perf_counter()
    first: float | None = None
    usage: dict[str, Any] = {}
    with httpx.stream("POST", url + captured["path"], json=body, headers=headers,
                      timeout=3600) as response:  # fmt: skip
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue
            data = json.loads(line[5:])
            kind = data.get("type")
            if first is None and kind in FIRST_EVENTS:
                first = time.perf_counter() - start
            if kind == "message_delta":
                usage = data.get("usage") or {}
            if kind in ("response.completed", "response.incomplete"):
                usage = data["response"].get("usage") or {}
    total = time.perf_counter() - start
    if anthropic:
        prompt, cached = usage.get("input_tokens", 0), usage.get("cache_read_input_tokens", 0)
    else:
        prompt = usage.get("input_tokens", 0)
        cached = (usage.get("input_tokens_details") or {}).get("cached_tokens", 0)
    return {"prompt_tokens": prompt, "cached_tokens": cached,
            "first_token_s": round(first if first is not None else total, 2),
            "total_s": round(total, 2)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", required=True)
    ap.add_argument("--key", default="local")
    ap.add_argument("--model", default="any")
    ap.add_argument("--client", nargs="+", default=["claude-code", "codex"])
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--at-once", type=int, default=0, metavar="N")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.at_once:
        return at_once(args)
    results: dict[str, Any] = {}
    for client in args.client:
        turns = []
        for n in (1, 2):
            captured = json.loads((FIXTURES / f"{client}-{n}.json").read_text())
            turns.append(turn(args.url, args.key, captured, args.model, args.max_tokens))
        ratio = turns[1]["first_token_s"] / max(turns[0]["first_token_s"], 1e-9)
        results[client] = {"turn_1": turns[0], "turn_2": turns[1],
                           "turn_2_over_turn_1": round(ratio, 3)}  # fmt: skip
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for client, r in results.items():
            for name in ("turn_1", "turn_2"):
                t = r[name]
                print(f"{client:12} {name}: {t['prompt_tokens']:6d} prompt tokens, "
                      f"{t['cached_tokens']:6d} cached, first token {t['first_token_s']:7.2f} s, "
                      f"whole {t['total_s']:7.2f} s")  # fmt: skip
            print(f"{client:12} turn 2 / turn 1 (first token): {r['turn_2_over_turn_1']:.3f}")
    return 0


def at_once(args: argparse.Namespace) -> int:
    from concurrent.futures import ThreadPoolExecutor

    results: dict[str, Any] = {}
    for client in args.client:
        captured = json.loads((FIXTURES / f"{client}-1.json").read_text())
        send = [(args.url, args.key, captured, args.model, args.max_tokens)] * args.at_once
        with ThreadPoolExecutor(args.at_once) as pool:
            runs = list(pool.map(lambda a: turn(*a), send))
        again = turn(args.url, args.key, captured, args.model, args.max_tokens)
        results[client] = {"at_once": runs, "then_alone": again}
        for i, t in enumerate(runs):
            print(f"{client:12} client {i + 1} of {args.at_once}: {t['prompt_tokens']} prompt "
                  f"tokens, {t['cached_tokens']} cached, first token {t['first_token_s']:.2f} s, "
                  f"whole {t['total_s']:.2f} s")  # fmt: skip
        print(f"{client:12} then alone: {again['cached_tokens']} cached, first token "
              f"{again['first_token_s']:.2f} s")  # fmt: skip
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tool calling, Cove against llama.cpp's own ``llama-server --jinja``, same model, same run.

A set of cases of four kinds, each asked of both servers through the same OpenAI-style request
(``tools``, ``tool_choice: auto``, greedy decoding):
  * single    one tool offered, and the question needs it
  * choose    seven tools offered, one of them is needed
  * parallel  the question needs two calls
  * none      seven tools offered, none is needed: the right answer is prose
A case scores when the reply's ``tool_calls`` are exactly the expected ones: the same names, and
arguments that hold the expected values (strings compared without case or surrounding spaces,
numbers by value; other arguments may be present). "Names" scores the names alone.

    python bench/bench_tools.py [--model PATH] [--json out.json]

The model defaults to the tool-trained test model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) that
../shared/tools/fetch-test-models.sh assembles; ``llama-server`` is built once by
../shared/tools/build-llama-bench.sh (cached) unless ``--llama-server PATH`` points at one.
Both servers run one after the other, never at once, with the same threads and context.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.client.local import LocalEngine  # noqa: E402

SHARED_TOOLS = ROOT.parent / "shared" / "tools"
TOOL_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
CTX = 4096
MAX_TOKENS = 256


def fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


S = {"type": "string"}
N = {"type": "number"}
TOOLS: dict[str, Any] = {
    t["function"]["name"]: t
    for t in (
        fn("get_weather", "The current weather in a city", {"city": S}, ["city"]),
        fn(
            "convert_currency",
            "Convert an amount of money from one currency to another (ISO codes)",
            {"amount": N, "source": S, "target": S},
            ["amount", "source", "target"],
        ),
        fn(
            "get_time", "The current local time in an IANA time zone", {"timezone": S}, ["timezone"]
        ),
        fn(
            "send_email",
            "Send an email",
            {"to": S, "subject": S, "body": S},
            ["to", "subject", "body"],
        ),
        fn(
            "search_files",
            "Find files on this computer whose names contain a text",
            {"query": S},
            ["query"],
        ),
        fn(
            "create_reminder",
            "Create a reminder at a time (HH:MM, 24-hour)",
            {"text": S, "time": S},
            ["text", "time"],
        ),
        fn(
            "get_stock_price",
            "The latest price of a stock by its ticker symbol",
            {"ticker": S},
            ["ticker"],
        ),
    )
}
ALL = list(TOOLS)

# (category, question, tools offered, expected calls as (name, arguments that must match))
Case = tuple[str, str, list[str], list[tuple[str, dict[str, Any]]]]
CASES: list[Case] = [
    ("single", "What's the weather like in Paris right now?", ["get_weather"],
     [("get_weather", {"city": "Paris"})]),
    ("single", "How much is 250 US dollars in euros?", ["convert_currency"],
     [("convert_currency", {"amount": 250, "source": "USD", "target": "EUR"})]),
    ("single", "What time is it in Tokyo? Use the Asia/Tokyo zone.", ["get_time"],
     [("get_time", {"timezone": "Asia/Tokyo"})]),
    ("single", "Find the files with 'invoice' in their name.", ["search_files"],
     [("search_files", {"query": "invoice"})]),
    ("single", "Remind me to call mum at 18:30.", ["create_reminder"],
     [("create_reminder", {"time": "18:30"})]),
    ("single", "What is Apple's stock (AAPL) trading at?", ["get_stock_price"],
     [("get_stock_price", {"ticker": "AAPL"})]),
    ("single", "Is it raining in Berlin?", ["get_weather"], [("get_weather", {"city": "Berlin"})]),
    ("single", "Convert 80 British pounds (GBP) to Japanese yen (JPY).", ["convert_currency"],
     [("convert_currency", {"amount": 80, "source": "GBP", "target": "JPY"})]),
    ("choose", "Tell me the weather in Madrid.", ALL, [("get_weather", {"city": "Madrid"})]),
    ("choose", "Change 40 euros (EUR) into Swiss francs (CHF).", ALL,
     [("convert_currency", {"amount": 40, "source": "EUR", "target": "CHF"})]),
    ("choose", "What's the local time in the Europe/London time zone?", ALL,
     [("get_time", {"timezone": "Europe/London"})]),
    ("choose", "Email bob@example.com with the subject 'Lunch' saying 'See you at noon'.", ALL,
     [("send_email", {"to": "bob@example.com", "subject": "Lunch"})]),
    ("choose", "Look for files named like 'budget'.", ALL, [("search_files", {"query": "budget"})]),
    ("choose", "Set a reminder for 07:15 to take my medicine.", ALL,
     [("create_reminder", {"time": "07:15"})]),
    ("choose", "How is Microsoft (MSFT) stock doing today?", ALL,
     [("get_stock_price", {"ticker": "MSFT"})]),
    ("choose", "I'm going to Oslo. What's the weather there?", ALL,
     [("get_weather", {"city": "Oslo"})]),
    ("parallel", "What's the weather in Paris and in London?", ["get_weather"],
     [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})]),
    ("parallel", "Give me the stock prices of AAPL and NVDA.", ALL,
     [("get_stock_price", {"ticker": "AAPL"}), ("get_stock_price", {"ticker": "NVDA"})]),
    ("parallel", "What time is it in Asia/Tokyo, and what's the weather in Tokyo?", ALL,
     [("get_time", {"timezone": "Asia/Tokyo"}), ("get_weather", {"city": "Tokyo"})]),
    ("parallel", "Convert 10 USD to EUR and 10 USD to GBP.", ["convert_currency"],
     [("convert_currency", {"amount": 10, "source": "USD", "target": "EUR"}),
      ("convert_currency", {"amount": 10, "source": "USD", "target": "GBP"})]),
    ("parallel", "Check the weather in Rome and in Athens.", ALL,
     [("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Athens"})]),
    ("none", "What is the capital of Japan?", ALL, []),
    ("none", "Write a haiku about autumn leaves.", ALL, []),
    ("none", "Explain in one sentence what a linked list is.", ALL, []),
    ("none", "Translate 'good morning' into Spanish.", ALL, []),
    ("none", "Hello! How are you?", ALL, []),
    ("none", "Write a Python function that reverses a string.", ALL, []),
]  # fmt: skip
CATEGORIES = ("single", "choose", "parallel", "none")


def matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, int | float) and not isinstance(wanted, bool):
        try:
            return float(value) == float(wanted)
        except (TypeError, ValueError):
            return False
    return str(value).strip().casefold() == str(wanted).strip().casefold()


def score(
    calls: list[tuple[str, dict[str, Any]]], expected: list[tuple[str, dict[str, Any]]]
) -> tuple[bool, bool]:
    """(exact, names): the calls are the expected ones (in any order)."""
    names = sorted(n for n, _ in calls) == sorted(n for n, _ in expected)
    if not names:
        return False, False
    left = list(calls)
    for name, wanted in expected:
        hit = next(
            (c for c in left if c[0] == name
             and all(k in c[1] and matches(c[1][k], v) for k, v in wanted.items())),
            None,
        )  # fmt: skip
        if hit is None:
            return False, True
        left.remove(hit)
    return True, True


def ask(base: str, headers: dict[str, str], model: str, case: Case) -> dict[str, Any]:
    _category, question, offered, _expected = case
    body = {
        "model": model,
        "messages": [{"role": "user", "content": question}],
        "tools": [TOOLS[n] for n in offered],
        "tool_choice": "auto",
        "temperature": 0.0,
        "max_tokens": MAX_TOKENS,
    }
    started = time.perf_counter()
    response = httpx.post(f"{base}/chat/completions", json=body, headers=headers, timeout=600)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    message = response.json()["choices"][0]["message"]
    calls = []
    for call in message.get("tool_calls") or []:
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
        except ValueError:
            arguments = {"<unparsed>": call["function"]["arguments"]}
        calls.append((call["function"]["name"], arguments if isinstance(arguments, dict) else {}))
    return {"calls": calls, "content": message.get("content") or "", "seconds": elapsed}


def run_cases(name: str, base: str, headers: dict[str, str], model: str) -> list[dict[str, Any]]:
    rows = []
    for case in CASES:
        got = ask(base, headers, model, case)
        exact, names = score(got["calls"], case[3])
        rows.append({"server": name, "category": case[0], "question": case[1],
                     "exact": exact, "names": names, **got})  # fmt: skip
        mark = "ok " if exact else ("~  " if names else "no ")
        print(f"  {name:12} {mark}{case[0]:8} {case[1][:50]:50} {got['calls']}", file=sys.stderr)
    return rows


@contextmanager
def llama_server(binary: Path, model: Path, threads: int) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [str(binary), "-m", str(model), "--jinja", "--host", "127.0.0.1", "--port", str(port),
         "-c", str(CTX), "-t", str(threads), "-np", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _healthy(base), process, 300)
        yield base + "/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _healthy(base: str) -> bool:
    try:
        return httpx.get(base + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until(ready: Callable[[], bool], process: subprocess.Popen[bytes], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while not ready():
        if process.poll() is not None:
            raise SystemExit(f"llama-server exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit("llama-server did not start")
        time.sleep(0.5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_model(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    out = subprocess.run(
        ["bash", str(SHARED_TOOLS / "fetch-test-models.sh"), sys.executable],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    for line in out.stdout.splitlines():
        name, _, path = line.partition("\t")
        if name == TOOL_MODEL:
            return Path(path)
    raise SystemExit(f"{TOOL_MODEL} could not be assembled")


def find_server(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    out = subprocess.run(
        ["bash", str(SHARED_TOOLS / "build-llama-bench.sh"), sys.executable],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(out.stdout.strip().splitlines()[-1]) / "llama-server"


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for server in dict.fromkeys(r["server"] for r in rows):
        mine = [r for r in rows if r["server"] == server]
        per = {}
        for category in (*CATEGORIES, "all"):
            some = [r for r in mine if category in ("all", r["category"])]
            per[category] = {
                "cases": len(some),
                "exact": round(sum(r["exact"] for r in some) / len(some), 3),
                "names": round(sum(r["names"] for r in some) / len(some), 3),
            }
        seconds = sorted(r["seconds"] for r in mine)
        per["median_s"] = round(seconds[len(seconds) // 2], 2)
        out[server] = per
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", metavar="PATH", help="a tool-trained GGUF")
    parser.add_argument("--llama-server", metavar="PATH")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", metavar="PATH", help="write the cases and the summary here")
    args = parser.parse_args()
    model = find_model(args.model)
    server = find_server(args.llama_server)
    print(f"model {model.name}, {len(CASES)} cases", file=sys.stderr)

    rows = []
    with llama_server(server, model, args.threads) as base:
        rows += run_cases("llama-server", base, {}, model.name)
    engine = LocalEngine.start(ready_timeout=300)
    try:
        status = engine.client.load(str(model), ctx=CTX)
        assert status.model is not None
        headers = {"Authorization": f"Bearer {engine._token}"}
        rows += run_cases("cove", engine.base_url, headers, status.model)
    finally:
        engine.stop()
        engine.client.close()

    result = summary(rows)
    print(
        f"\n{'category':10} {'cases':>5}  {'llama-server exact/names':>26}  "
        f"{'Cove exact/names':>18}"
    )
    for category in (*CATEGORIES, "all"):
        a, b = result["llama-server"][category], result["cove"][category]
        print(f"{category:10} {a['cases']:5}  {a['exact']:>15.2f} / {a['names']:.2f}"
              f"  {b['exact']:>9.2f} / {b['names']:.2f}")  # fmt: skip
    print(f"median seconds per case: llama-server {result['llama-server']['median_s']}, "
          f"Cove {result['cove']['median_s']}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": result, "cases": rows}, indent=2))


if __name__ == "__main__":
    main()

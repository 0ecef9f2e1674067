"""What an idle Cove costs another program's work on the same computer.

    .venv/bin/python bench/bench_idle_cost.py [--cove serve window] [--work llama-bench python]
        [--rounds 4] [--cove-root PATH] [--json]

For each Cove (``cove serve --model starter`` after one short reply, and the window, each on a
fresh data folder, both measuring in the background as a new user's would), another program does
CPU-bound work while Cove sits idle: llama.cpp's own ``llama-bench`` (2 threads, the starter) and
a plain Python busy loop (one process per core). Rounds are interleaved: in each, the work runs
once with Cove paused (SIGSTOP on its every process: the baseline) and once with Cove running
(SIGCONT), in alternating order. Reported: each work's median rate with Cove paused and running,
and their ratio (1.00x: Cove costs it nothing; the goal is at least 0.97x).

Then the machine is left quiet, and the time until Cove's background measuring has finished is
reported, with what it found and the way then loaded (``/cove/v1/status``).

``--cove-root``: run Cove from another checkout (the same virtual environment), to compare with
an earlier version. llama-bench is built by ../shared/tools/build-llama-bench.sh (cached).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT.parent / "shared" / "tools" / "build-llama-bench.sh"
BUSY_LOOP = "n = 0\nwhile n < {n}:\n    n += 1\n"
LOOP_N = 60_000_000  # about 3-5 s of one core
SETTLE_S = 8.0  # after the reply (the window: after its model loaded), before the first round
QUIET_LIMIT_S = 900.0
AFTER_S = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def llama_bench_path() -> Path:
    out = subprocess.run(
        ["bash", str(BUILD), sys.executable], check=True, capture_output=True, text=True
    )
    return Path(out.stdout.strip().splitlines()[-1]) / "llama-bench"


def starter_path() -> Path:
    from engine.library.names import resolve_model

    return resolve_model("starter")


# -- the other program's work -------------------------------------------------------------------


def run_llama_bench(binary: Path, model: Path) -> float:
    """Tokens/s llama-bench generates with 2 threads (128 tokens, 3 repetitions)."""
    cmd = [str(binary), "-m", str(model), "-t", "2", "-p", "0", "-n", "128", "-r", "3"]
    out = subprocess.run([*cmd, "-o", "json"], check=True, capture_output=True, text=True)
    return float(json.loads(out.stdout)[0]["avg_ts"])


def run_busy_loop() -> float:
    """Iterations per second of a Python busy loop, one process per core, all together."""
    cores = psutil.cpu_count(logical=True) or 1
    code = BUSY_LOOP.format(n=LOOP_N)
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(cores)]
    for proc in procs:
        proc.wait()
    return cores * LOOP_N / (time.perf_counter() - started)


# -- Cove ----------------------------------------------------------------------------------------


def cove_env(data: Path, cove_root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVE_")}
    env.update(
        {
            "COVE_DATA_DIR": str(data),
            "COVE_STATE_DIR": str(data / "state"),
            "PYTHONPATH": str(cove_root),
            "QT_QPA_PLATFORM": "offscreen",
        }
    )
    return env


HEADERS: dict[str, str] = {}  # the window's engine wants the key the window gave it


def get_status(url: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(url + "/cove/v1/status", headers=HEADERS, timeout=10).json()
    return data


def wait_for(url: str, proc: subprocess.Popen[bytes], limit_s: float = 300) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Cove exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if get_status(url).get("model"):
                return
        time.sleep(0.5)
    raise RuntimeError("Cove did not load its model")


@contextlib.contextmanager
def cove_serve(data: Path, cove_root: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    cmd = [sys.executable, "-m", "engine.cli", "serve", "--model", "starter", "--port", str(port)]
    proc = subprocess.Popen(
        cmd, cwd=cove_root, env=cove_env(data, cove_root),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(url, proc)
        body = {"model": "starter", "max_tokens": 16,
                "messages": [{"role": "user", "content": "Say hello."}]}  # fmt: skip
        httpx.post(url + "/v1/chat/completions", json=body, timeout=120).raise_for_status()
        yield proc, url
    finally:
        stop_tree(proc)


@contextlib.contextmanager
def cove_window(data: Path, cove_root: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    cmd = [sys.executable, "-m", "app"]
    proc = subprocess.Popen(
        cmd, cwd=cove_root, env=cove_env(data, cove_root),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = host_url(proc)
        wait_for(url, proc)
        yield proc, url
    finally:
        stop_tree(proc)


def host_url(window: subprocess.Popen[bytes], limit_s: float = 300) -> str:
    """The window's engine host's address: the loopback port its child listens on."""
    deadline = time.monotonic() + limit_s
    me = psutil.Process(window.pid)
    while time.monotonic() < deadline:
        for child in me.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                for conn in child.net_connections("tcp"):
                    if conn.status == psutil.CONN_LISTEN and conn.laddr.ip == "127.0.0.1":
                        from engine.client.protocol import TOKEN_ENV

                        token = child.environ().get(TOKEN_ENV)
                        if token:
                            HEADERS["Authorization"] = f"Bearer {token}"
                        return f"http://127.0.0.1:{conn.laddr.port}"
        time.sleep(0.5)
    raise RuntimeError("the window's engine did not start")


def tree(proc: subprocess.Popen[bytes]) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        me = psutil.Process(proc.pid)
        return [me, *me.children(recursive=True)]
    return []


def signal_tree(proc: subprocess.Popen[bytes], sig: int) -> None:
    for p in tree(proc):
        with contextlib.suppress(psutil.Error):
            p.send_signal(sig)


def stop_tree(proc: subprocess.Popen[bytes]) -> None:
    signal_tree(proc, signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        signal_tree(proc, signal.SIGKILL)
        proc.wait()


def cpu_seconds(proc: subprocess.Popen[bytes]) -> float:
    total = 0.0
    for p in tree(proc):
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


# -- the rounds ----------------------------------------------------------------------------------


def rounds(
    proc: subprocess.Popen[bytes], work: dict[str, Any], n: int
) -> dict[str, dict[str, Any]]:
    rates: dict[str, dict[str, list[float]]] = {
        name: {"paused": [], "running": []} for name in work
    }
    cove_cpu: list[float] = []
    signal_tree(proc, signal.SIGSTOP)
    for run in work.values():
        run()  # once before the rounds: caches, clocks and the model file warm
    signal_tree(proc, signal.SIGCONT)
    for r in range(n):
        order = ["paused", "running"] if r % 2 == 0 else ["running", "paused"]
        for name, run in work.items():
            for how in order:
                signal_tree(proc, signal.SIGSTOP if how == "paused" else signal.SIGCONT)
                before = cpu_seconds(proc)
                started = time.perf_counter()
                rate = run()
                if how == "running":
                    cove_cpu.append((cpu_seconds(proc) - before) / (time.perf_counter() - started))
                rates[name][how].append(rate)
                print(f"  round {r + 1} {name} cove {how}: {rate:,.1f}", file=sys.stderr)
        signal_tree(proc, signal.SIGCONT)
    out: dict[str, dict[str, Any]] = {}
    for name, by in rates.items():
        paused, running = statistics.median(by["paused"]), statistics.median(by["running"])
        out[name] = {
            "paused": round(paused, 1),
            "running": round(running, 1),
            "ratio": round(running / paused, 3),
            "round_ratios": [
                round(b / a, 3) for a, b in zip(by["paused"], by["running"], strict=True)
            ],
        }
    out["cove_cores_while_others_work"] = {"median": round(statistics.median(cove_cpu), 4)}
    return out


def until_measured(url: str) -> dict[str, Any]:
    """Leave the machine quiet until Cove's background measuring has finished."""
    started = time.monotonic()
    status: dict[str, Any] = {}
    while time.monotonic() - started < QUIET_LIMIT_S:
        status = get_status(url)
        if not status.get("measuring") and not status.get("background"):
            break
        time.sleep(1.0)
    finished_s = time.monotonic() - started
    time.sleep(AFTER_S)  # the faster way, or the count measured, is loaded at the next idle moment
    status = get_status(url)
    plan = status.get("plan") or {}
    return {
        "seconds": round(finished_s, 1),
        "finished": not status.get("measuring"),
        "measured": status.get("measured"),
        "background": status.get("background"),
        "flash_attn": plan.get("flash_attn"),
        "parallel": status.get("parallel"),
        "model": status.get("model"),
    }


def first_reply(cove_root: Path) -> dict[str, float]:
    """Seconds from starting ``cove serve --model starter`` on a fresh data folder to its port
    answering, and to a short reply sent then being complete."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "engine.cli", "serve", "--model", "starter", "--port", str(port)]
    with tempfile.TemporaryDirectory(prefix="cove-first-") as data:
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cove_root, env=cove_env(Path(data), cove_root),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(url + "/v1/models", timeout=2).status_code == 200:
                        break
                if proc.poll() is not None or time.perf_counter() - started > 300:
                    raise RuntimeError("cove serve did not start")
                time.sleep(0.05)
            serving = time.perf_counter() - started
            body = {"model": "starter", "max_tokens": 32,
                    "messages": [{"role": "user", "content": "Say hello."}]}  # fmt: skip
            httpx.post(url + "/v1/chat/completions", json=body, timeout=300).raise_for_status()
            return {
                "serving_s": round(serving, 2),
                "reply_s": round(time.perf_counter() - started, 2),
            }
        finally:
            stop_tree(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cove", nargs="+", choices=("serve", "window"),
                        default=["serve", "window"])  # fmt: skip
    parser.add_argument("--work", nargs="+", choices=("llama-bench", "python"),
                        default=["llama-bench", "python"])  # fmt: skip
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--cove-root", type=Path, default=ROOT)
    parser.add_argument("--no-quiet", action="store_true", help="skip the quiet phase")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--first-reply", type=int, metavar="N",
        help="instead: N starts on a fresh data folder, timed to serving and to a first reply",
    )  # fmt: skip
    args = parser.parse_args()
    if args.first_reply:
        runs = [first_reply(args.cove_root) for _ in range(args.first_reply)]
        medians = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(json.dumps({"runs": runs, "median": medians}, indent=2))
        return 0
    model = starter_path()
    work: dict[str, Any] = {}
    if "llama-bench" in args.work:
        binary = llama_bench_path()
        work["llama-bench tg128 (tokens/s)"] = lambda: run_llama_bench(binary, model)
    if "python" in args.work:
        work["python busy loop (iterations/s)"] = run_busy_loop
    results: dict[str, Any] = {"cove_root": str(args.cove_root.resolve())}
    for which in args.cove:
        opener = cove_serve if which == "serve" else cove_window
        print(f"{which}:", file=sys.stderr)
        with (
            tempfile.TemporaryDirectory(prefix="cove-idle-") as data,
            opener(Path(data), args.cove_root) as (proc, url),
        ):
            time.sleep(SETTLE_S)  # idle after the reply or the load, as a person leaves it
            found = rounds(proc, work, args.rounds)
            if not args.no_quiet:
                found["quiet"] = until_measured(url)
            results[which] = found
            print(json.dumps({which: found}), file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for which in args.cove:
        print(f"\n{which} (rounds: {args.rounds})")
        for name, r in results[which].items():
            if "ratio" in r:
                print(f"  {name}: paused {r['paused']:,}  running {r['running']:,}  "
                      f"ratio {r['ratio']:.3f}  rounds {r['round_ratios']}")  # fmt: skip
        print(f"  Cove's own use while the work ran: "
              f"{results[which]['cove_cores_while_others_work']['median']} cores")  # fmt: skip
        if "quiet" in results[which]:
            print(f"  quiet: {json.dumps(results[which]['quiet'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long the guards and the recoveries take: timings that tests used to assert, measured here
instead (a test that says "under 2 s" fails on a loaded machine; a benchmark reports the figure).

- reading the starter's GGUF header (best of 3);
- a chat template stopped by its safety limit (a huge range; nested loops);
- a malformed GGUF refused before llama.cpp sees it (the slowest of 200 fuzzed files);
- a host killed mid-reply: until the client raises EngineCrashed, and the restart with the model
  loaded again; a request to a dead host, until it raises;
- no network: ``cove search`` and ``cove pull`` (whole processes, start-up included) until they
  say the hub cannot be reached, inside a network namespace with only loopback (``unshare -n``,
  where allowed) and against a hub address where nothing listens.

    python bench/bench_faults.py [--json out.json] [--skip-host]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.client.local import LocalEngine  # noqa: E402
from engine.errors import EngineCrashed, ModelLoadError, TemplateError  # noqa: E402
from engine.formats.gguf import read_gguf  # noqa: E402
from engine.library.names import starter_path  # noqa: E402
from engine.templates import ChatTemplate, render  # noqa: E402
from engine.types import ChatMessage, GenerationParams  # noqa: E402

LONG = GenerationParams(temperature=0.8, seed=3, max_tokens=2000, repeat_penalty=1.0)
STORY = [ChatMessage("user", "Write a very long story about a lighthouse keeper.")]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def header_s(model: Path) -> float:
    return min(timed(lambda: read_gguf(model)) for _ in range(3))


def template_limit_s(source: str) -> float:
    template = ChatTemplate("custom", source, "model", (), "bench")

    def run() -> None:
        try:
            render(template, [ChatMessage("user", "Hi")])
        except TemplateError:
            return
        raise AssertionError("the safety limit did not stop the template")

    return timed(run)


def slowest_fuzz_s(model: Path, cases: int = 200) -> float:
    rng = random.Random(7)
    original = model.read_bytes()[: 2 * 1024 * 1024]
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "fuzz.gguf"
        for _ in range(cases):
            data = bytearray(original)
            for _ in range(rng.randrange(1, 5)):
                at = rng.randrange(len(data))
                data[at] = rng.randrange(256)
            target.write_bytes(bytes(data))

            def read() -> None:
                with contextlib.suppress(ModelLoadError):
                    read_gguf(target)

            worst = max(worst, timed(read))
    return worst


def host_faults() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        engine = LocalEngine.start(log_path=Path(folder) / "engine.log")
        try:
            engine.client.load("starter", ctx=2048)
            pid = engine.pid
            assert pid is not None
            killed_at = 0.0
            try:
                for received, _chunk in enumerate(engine.client.chat(STORY, LONG), 1):
                    if received == 3:
                        os.kill(pid, signal.SIGKILL)
                        killed_at = time.perf_counter()
            except EngineCrashed:
                noticed = time.perf_counter() - killed_at
            else:
                raise AssertionError("the stream ended normally after the host was killed")
            restart = timed(engine.restart)
            pid = engine.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            dead_started = time.perf_counter()
            try:
                engine.client.status()
            except EngineCrashed:
                dead = time.perf_counter() - dead_started
            else:
                raise AssertionError("a dead host answered")
        finally:
            engine.stop()
            engine.client.close()
    return {"crash_noticed_s": noticed, "restart_with_model_s": restart, "dead_host_s": dead}


def offline_faults() -> dict[str, float]:
    """Seconds until ``cove search`` / ``cove pull`` report an unreachable hub (median of 3)."""
    import shutil
    import socket
    import statistics
    import subprocess

    from engine.library.catalog import load_catalog

    model_id = next(m.id for m in load_catalog().models if m.kind == "chat")
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "COVE_DATA_DIR": folder, "PYTHONPATH": str(ROOT)}
        env.pop("HF_ENDPOINT", None)
        cove = [sys.executable, "-m", "engine.cli"]
        netns = [shutil.which("unshare") or "unshare", "-n", sys.executable, "-m"]
        netns += ["tests.e2e.netns"]
        cases = {
            "no_route_search_s": ([*cove, "search", "qwen", "--json"], {"HF_ENDPOINT": closed}),
            "no_route_pull_s": ([*cove, "pull", model_id], {"HF_ENDPOINT": closed}),
            "netns_search_s": (netns + cove + ["search", "qwen", "--json"], {}),
            "netns_pull_s": (netns + cove + ["pull", model_id], {}),
            "netns_search_off_catalog_s": (netns + cove + ["search", "zzz-unknown"], {}),
        }
        for name, (cmd, extra) in cases.items():
            runs = []
            for _ in range(3):
                start = time.perf_counter()
                done = subprocess.run(
                    cmd, env={**env, **extra}, cwd=ROOT, capture_output=True, text=True
                )
                runs.append(time.perf_counter() - start)
                said = done.stdout + done.stderr
                if "Cannot reach" not in said:
                    if name.startswith("netns") and "unshare" in said:
                        break  # no namespaces here
                    raise AssertionError(f"{name}: no clear message: {said[-400:]}")
            else:
                results[name] = statistics.median(runs)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--skip-host", action="store_true", help="no engine host runs")
    args = parser.parse_args()
    model = starter_path()
    results: dict[str, float] = {
        "gguf_header_s": header_s(model),
        "template_huge_range_s": template_limit_s("{% for x in range(10**12) %}x{% endfor %}"),
        "template_nested_loops_s": template_limit_s(
            "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
        ),
        "gguf_fuzz_slowest_s": slowest_fuzz_s(model),
    }
    if not args.skip_host:
        results |= host_faults()
    results |= offline_faults()
    for name, value in results.items():
        print(f"{name:28} {value:8.3f}")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The planner's KV and compute terms against llama.cpp's own figures, per architecture.

Writes the tiny models of tests/support/tiny_gguf.py, loads each through Cove's backend with the
plan's context parameters and prints planned vs reported sizes (the table in
docs/MEMORY_PLANNER.md).

    python bench/bench_plan_matrix.py [--ctx 512 4096 32768] [--kv f16]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.backends.llama import single as backend  # noqa: E402
from engine.formats.gguf import read_gguf  # noqa: E402
from engine.native import llama as native_llama  # noqa: E402
from engine.planner.gguf import compute_bytes, kv_cache_bytes, make_plan  # noqa: E402
from engine.planner.plan import MiB  # noqa: E402
from tests.support.plan_matrix import (  # noqa: E402
    _PLENTY,
    VOCAB,
    reported_compute,
    reported_kv,
)
from tests.support.tiny_gguf import MATRIX, write_model  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ctx", type=int, nargs="+", default=[512, 4096, 32768])
    parser.add_argument("--kv", default="f16")
    args = parser.parse_args()
    lib = native_llama.native()
    parts: list[str] = []

    @lib.llama_log_callback  # type: ignore[untyped-decorator]
    def on_log(_level: int, text: bytes, _data: object) -> None:
        parts.append(text.decode("utf-8", "replace"))

    lib.llama_log_set(on_log, None)
    print("| model | context | KV planned | KV llama.cpp | compute planned | compute llama.cpp |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name, shape in MATRIX.items():
            path = write_model(Path(folder) / f"{name}.gguf", replace(shape, vocab=VOCAB))
            g = read_gguf(path)
            for n_ctx in args.ctx:
                plan = make_plan(g, _PLENTY, requested_ctx=n_ctx, kv_type=args.kv)
                parts.clear()
                with backend.LlamaCppModel(path, plan):
                    pass
                log = "".join(parts)
                kv = sum(mib for mib, _c, _n in reported_kv(log))
                compute = reported_compute(log) / MiB
                planned = compute_bytes(g, n_ctx, plan.n_ubatch, plan.flash_attn) / MiB
                error = 100 * (planned - compute) / compute
                print(
                    f"| {name} | {n_ctx:,} | {kv_cache_bytes(g, n_ctx, args.kv) / MiB:.2f} | "
                    f"{kv:.2f} | {planned:.2f} | {compute:.2f} ({error:+.1f} %) |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())

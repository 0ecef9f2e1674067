"""``python -m engine.remote.rpc_server --port P``: llama.cpp's RPC server on this machine's
loopback address, for ``cove worker`` (which starts it, watches it, and is the only way other
machines reach it)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engine.launch import die_with_parent
from engine.native.rpc import start_server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.remote.rpc_server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    # ggml's RPC has no authentication: it must never go on serving once cove worker is gone.
    die_with_parent()
    start_server(f"127.0.0.1:{args.port}", max(1, args.threads))
    return 1  # it returns only when it could not start


if __name__ == "__main__":
    sys.exit(main())

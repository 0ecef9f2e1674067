"""Run inside a network namespace of its own (``tests/e2e/test_lan.py``): a Cove serving with
``--lan`` on every address, reached at a network address (not loopback), as another computer on
the LAN would reach it. Prints one JSON line with what was seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ADDRESS = "10.99.0.1"


def main() -> int:
    # A network address on the namespace's only interface: connections to it come from it, as
    # from another computer on the LAN (not from 127.0.0.1, which is exempt from the limits).
    commands = [
        ["ip", "link", "set", "lo", "up"],
        ["ip", "addr", "add", f"{ADDRESS}/24", "dev", "lo"],
    ]
    for command in commands:
        subprocess.run(command, check=True)
    home = Path(tempfile.mkdtemp(prefix="cove-lan-"))
    os.environ["COVE_DATA_DIR"] = str(home / "client")
    from engine.errors import EngineAuthError, EngineBusy, EngineError
    from engine.remote.connect import connect
    from tests.support.remote_process import CoveProcess, free_port

    port = free_port()
    server = CoveProcess(home / "server", "serve", "--lan", "--port", str(port))
    seen: dict[str, object] = {}
    try:
        key = server.value("key:")
        seen["fingerprint_printed"] = server.value("fingerprint:")
        seen["listening"] = server.wait_for("serving on https://")
        url = f"https://{ADDRESS}:{port}/v1"
        good = connect(url, key)
        assert good.trusted is not None
        seen["fingerprint_pinned"] = good.trusted.fingerprint
        seen["models"] = len(good.client.list_models())
        wrong = connect(url, "cove-guessing").client
        refusals = []
        for _ in range(10):
            try:
                wrong.list_models()
            except EngineError as exc:
                refusals.append(type(exc).__name__)
        seen["refusals"] = refusals
        try:
            good.client.list_models()
            seen["after"] = "served"
        except EngineBusy as exc:
            seen["after"] = f"locked out: {exc}"
        except EngineAuthError as exc:
            seen["after"] = f"refused: {exc}"
    finally:
        server.stop()
    print(json.dumps(seen), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``cove trust``: list the pinned certificates of other computers' engines and workers, or forget
one (after that computer made a new certificate on purpose)."""

from __future__ import annotations

import json

from engine.errors import EngineError
from engine.remote.pins import forget, pinned, pins_path


def trust_command(forget_address: str | None, as_json: bool) -> int:
    if forget_address is not None:
        if not forget(forget_address):
            raise EngineError(f"No certificate is pinned for {forget_address}.")
        print(f"Forgot the certificate of {forget_address}; the next connection pins the new one.")
        return 0
    pins = pinned()
    if as_json:
        print(json.dumps({"pinned": pins, "file": str(pins_path())}, indent=2))
        return 0
    if not pins:
        print("No certificates pinned yet.")
    for where, fp in sorted(pins.items()):
        print(f"{where}  {fp}")
    return 0

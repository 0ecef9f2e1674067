"""This computer's speed probed in a child process at the lowest priority (engine/tuning/child.py):
the engine host's background work for the first speed profile, or for one taken on a busy
machine, so that the window's first start costs another program nothing. The child probes the
devices (and runs the starter to calibrate llama.cpp), keeps the profile in the data folder
(engine/speed/store.py) as ``cove probe --again`` would, and says whether it is provisional."""

from __future__ import annotations

import sys
from typing import Any

MODULE = "engine.speed.child"


def _run(job: dict[str, Any]) -> dict[str, Any]:
    from engine.hardware import probe_hardware
    from engine.speed.machine import profile_for

    profile = profile_for(probe_hardware(), again=bool(job.get("again", True)))
    if profile is None:
        return {"profiled": False, "provisional": False}
    return {"profiled": True, "provisional": profile.provisional}


def main() -> int:
    from engine.tuning.child import child_main

    return child_main(_run)


if __name__ == "__main__":
    sys.exit(main())

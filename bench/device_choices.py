"""What Cove picks on machines this one is not: for each simulated machine (tests/engine/
machines.py) and a 1B, a 7B and a 14B model of the catalog, the runtime, device and build the
recommender chooses, and why. Writes the table into docs/DEVICES.md (between its markers), or
checks that the table there is current.

The command line of tests/support/device_choices.py, which the tests share."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.device_choices import main

if __name__ == "__main__":
    sys.exit(main())

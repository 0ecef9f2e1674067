"""Cove's modules and who imports whom, read from the source (every import: at the top of a
module, inside a function, under ``TYPE_CHECKING``): the circles between modules, and the imports
that run from a lower floor of the engine to a higher one (the floors are the layers contract in
pyproject.toml). import-linter checks the floors between packages; this counts between modules.

The command line of tests/support/import_graph.py, which the tests share."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.import_graph import main

if __name__ == "__main__":
    sys.exit(main())

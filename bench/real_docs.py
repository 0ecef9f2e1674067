"""The real-document evaluation sets: public documents nobody on the project wrote, taken from
Debian's documentation packages and checked by SHA-256, with questions labelled by file and page.

The command line of tests/support/real_docs.py, which the tests share."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.real_docs import main

if __name__ == "__main__":
    sys.exit(main())

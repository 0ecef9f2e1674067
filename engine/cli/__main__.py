"""``python -m engine.cli``: the ``cove`` command (a frozen bundle starts it the same way)."""

import sys

from engine.cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

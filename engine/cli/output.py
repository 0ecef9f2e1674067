"""How every ``cove`` command answers: JSON on stdout, one error line on stderr, exit codes."""

from __future__ import annotations

import json
import sys

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def print_json(data: object) -> None:
    print(json.dumps(data, indent=2, default=str))


def fail(message: str) -> None:
    print(f"cove: error: {message}", file=sys.stderr)

"""How every ``cove`` command answers: JSON on stdout, one error line on stderr, exit codes."""

from __future__ import annotations

import json
import sys

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def print_json(data: object) -> None:
    print(json.dumps(data, indent=2, default=str))


# The commands that help with an error, said after the engine's message (which names none: the
# window shares it, and offers buttons instead).
COMMAND_HINTS = {
    "insufficient_disk": "'cove models' lists the downloaded models; 'cove rm' deletes one.",
}


def command_hint(code: str) -> str:
    """ " " and the commands that help with an error of ``code``; "" when none do."""
    hint = COMMAND_HINTS.get(code)
    return f" {hint}" if hint else ""


def fail(message: str) -> None:
    print(f"cove: error: {message}", file=sys.stderr)

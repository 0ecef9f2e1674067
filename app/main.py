"""``cove``: the desktop window with no arguments, with files to attach (``cove FILE ...``, a
desktop's "Open with Cove") or as ``cove gui``; the terminal CLI otherwise.

Importing this module must stay cheap: ``cove probe`` and friends should not pay for Qt. The GUI and
the CLI are imported only once we know which one runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

# Flags that only make sense for the window; any of them as the first argument means "GUI".
GUI_FLAGS = (
    "--self-test",
    "--screenshot",
    "--prompt",
    "--model",
    "--theme",
    "--language",
    "--exit-after-paint",
    "--timeout",
)


def build_gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cove gui",
        description="Open Cove's desktop window. Run 'cove --help' for the terminal commands.",
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="attach these files to the chat (given to the window already open on this data "
        "folder, when there is one)",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window, send one prompt through the UI, print a JSON report and exit "
        "(0 only if the reply arrived)",
    )
    parser.add_argument(
        "--screenshot", metavar="PATH", help="with --self-test: save the window as a PNG"
    )
    parser.add_argument(
        "--prompt",
        default="What is the capital of France? Answer in one sentence.",
        metavar="TEXT",
        help="with --self-test: the prompt to send",
    )
    parser.add_argument(
        "--model", metavar="MODEL", help="model to load at start (default: the last one used)"
    )
    parser.add_argument(
        "--theme", choices=["system", "light", "dark"], help="override the colour scheme"
    )
    parser.add_argument(
        "--language",
        choices=["system", "en", "de", "fr"],
        help="the window's language for this run (default: the one chosen in Settings)",
    )
    parser.add_argument(
        "--exit-after-paint",
        action="store_true",
        help="print the time from process start to the first painted window as JSON and exit",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=180.0,
        metavar="S",
        help="with --self-test: give up after this many seconds",
    )
    return parser


def is_gui_invocation(args: Sequence[str]) -> bool:
    if not args:
        return True
    first = args[0]
    if first == "gui" or any(first == f or first.startswith(f + "=") for f in GUI_FLAGS):
        return True
    return _names_a_file(first)


def _names_a_file(arg: str) -> bool:
    """A file to open in the window (a desktop passes full paths). A bare word is a command even
    where a file of that name lies in the current folder: ``cove chat`` stays the CLI beside a
    file called ``chat``."""
    separators = [s for s in (os.sep, os.altsep) if s]
    path = Path(arg)
    written_as_path = any(s in arg for s in separators) or bool(path.suffix)
    return written_as_path and path.is_file()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "--run-module":
        # A bundle starting one of its own modules in a new process (engine.launch): the frozen
        # executable stands in for ``python -m MODULE``.
        import runpy

        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    if not is_gui_invocation(args):
        # The terminal CLI loads runtimes in its own process when a command needs one; the window
        # never does (it talks to a separate engine host), so the CLI is looked up by name here
        # rather than imported by the app package.
        cli = importlib.import_module("engine.cli")
        return int(cli.main(args))
    if args and args[0] == "gui":
        args = args[1:]
    options = build_gui_parser().parse_args(args)
    # Before Qt loads its platform plugin: where the desktop lacks a library the plugin needs,
    # Qt aborts naming one of them at best; this names them all, with the packages to install.
    from app.shell.platform_check import problem

    lacking = problem()
    if lacking:
        print(lacking, file=sys.stderr)
        return 1
    from app.shell.application import run_gui

    return run_gui(options)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

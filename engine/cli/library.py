"""``cove models``, ``cove pull`` and ``cove rm``: the library on the terminal. Progress goes to
stderr as a bar when it is a terminal; ``--json`` prints one JSON object on stdout."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

from engine.units import format_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from engine.advice.choose import PullPlan
    from engine.hub.download import Download, DownloadProgress

EXIT_INTERRUPTED = 130
BAR_WIDTH = 30
REDRAW_S = 0.2


def models_command(as_json: bool, out: TextIO = sys.stdout) -> int:
    from engine.library.installed import scan_models
    from engine.library.partial import list_partials
    from engine.paths import models_dir

    installed = scan_models()
    partials = list_partials(models_dir())
    if as_json:
        data = {
            "models_dir": str(models_dir()),
            "installed": [e.to_dict() for e in installed],
            "partial": [p.to_dict() for p in partials],
        }
        print(json.dumps(data, indent=2), file=out)
        return 0
    print(f"Models folder: {models_dir()}", file=out)
    if not installed:
        print("No models installed. 'cove pull owner/repo' downloads one.", file=out)
    for entry in installed:
        name = f"{entry.repo}/{entry.path.name}" if entry.repo else entry.name
        size = format_bytes(entry.size_bytes)
        print(f"  {name:<60} {entry.kind:<5} {size:>10}  {entry.path}", file=out)
        if entry.projector is not None:
            print(f"  {'':<60} vision: reads images with {entry.projector.name}", file=out)
    if partials:
        print("Partial downloads ('cove pull' resumes one, 'cove rm' discards it):", file=out)
    for p in partials:
        done = f"{format_bytes(p.downloaded_bytes)} of {format_bytes(p.total_bytes)}"
        print(f"  {p.repo}/{p.file:<50} {done:>24}  on disk {format_bytes(p.disk_bytes)}", file=out)
    return 0


def rm_command(name: str, as_json: bool, out: TextIO = sys.stdout) -> int:
    from engine.library.installed import remove_model

    removed = remove_model(name)
    if as_json:
        print(json.dumps(removed.to_dict(), indent=2), file=out)
    else:
        what = "Discarded the partial download" if removed.partial else "Deleted"
        if removed.projector is not None:
            what = f"{what} {removed.path.name} and its vision projector"
            print(f"{what} {removed.projector.name}; ", end="", file=out)
            print(f"freed {format_bytes(removed.freed_bytes)}.", file=out)
            return 0
        print(f"{what} {removed.path.name}; freed {format_bytes(removed.freed_bytes)}.", file=out)
    return 0


def pull_command(
    model: str,
    quant: str | None,
    as_json: bool,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    from engine.advice.choose import error_class, plan_pull
    from engine.hub.download import DownloadManager

    manager = DownloadManager()
    results: list[DownloadProgress] = []
    try:
        plan = plan_pull(manager.hub, model, quant)
        if plan.reason and not as_json:
            print(f"{plan.catalog_id}: {plan.reason}", file=out)
        for request in plan.requests:
            download = manager.enqueue(request)
            if not as_json and err.isatty():
                download.add_listener(_Bar(err).draw)
            try:
                result = _wait(download)
            except KeyboardInterrupt:
                download.pause()
                _wait(download)
                print(f"\nPaused {plan.name}; run the same command again to resume.", file=err)
                return EXIT_INTERRUPTED
            results.append(result)
            if result.status != "done":
                break
    finally:
        manager.close()
    done = len(results) == len(plan.requests) and all(r.status == "done" for r in results)
    path = _installed_path(plan, results) if done else None
    if as_json:
        data = {**results[-1].to_dict()} if len(results) == 1 and not plan.catalog_id else {}
        if not data:
            last = results[-1]
            data = {
                "model": plan.name,
                "status": "done" if done else last.status,
                "done_bytes": sum(r.done_bytes for r in results),
                "total_bytes": sum(r.total_bytes for r in results),
                "fetched_bytes": sum(r.fetched_bytes for r in results),
                "resumed_bytes": sum(r.resumed_bytes for r in results),
                "path": str(path) if path else None,
                "error": last.error,
                "error_code": last.error_code,
            }
        data |= {
            "catalog_id": plan.catalog_id,
            "variant": plan.variant,
            "reason": plan.reason,
            "files": [r.to_dict() for r in results],
        }
        print(json.dumps(data, indent=2), file=out)
    if done and path is not None:
        if not as_json:
            if err.isatty():
                print(file=err)
            total = sum(r.total_bytes for r in results)
            print(f"Installed {plan.name} ({format_bytes(total)})", file=out)
            print(f"  {path}", file=out)
            projector = next((r.projector for r in results if r.projector is not None), None)
            if projector is not None:
                print(f"  {projector} (its vision projector: it reads images)", file=out)
            print(f"Use it with: cove chat --model {plan.catalog_id or plan.name}", file=out)
        return 0
    failed = results[-1]
    if as_json:
        print(f"cove: error: {failed.error}", file=err)
        return 1
    why = failed.error or f"The download of {plan.name} did not finish."
    request = plan.requests[len(results) - 1]
    named_file = len(model.strip("/").split("/")) > 2 and request.dest is None
    if failed.error_code == "hub_not_found" and plan.catalog_id is None and named_file:
        why += (
            f" Name the repository alone to let Cove choose its file ('cove pull {request.repo}')."
        )
    raise error_class(failed.error_code or "")(why)


def _installed_path(plan: PullPlan, results: list[DownloadProgress]) -> Path | None:
    """The file, or for a build of several files the folder they went to."""
    paths = [r.path for r in results if r.path is not None]
    if len(paths) == 1:
        return paths[0]
    if plan.requests and plan.requests[0].dest is not None and paths:
        return paths[-1].parent
    return paths[-1] if paths else None


def _wait(download: Download) -> DownloadProgress:
    from engine.hub.download import FINAL

    while True:  # short waits, so Ctrl+C is seen promptly on every platform
        progress = download.wait(0.5)
        if progress.status in FINAL:
            return progress


class _Bar:
    """One line, redrawn in place: bar, percentage, bytes, speed, time left."""

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self._last = 0.0
        self._lock = threading.Lock()

    def draw(self, progress: DownloadProgress) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._last < REDRAW_S and progress.status == "downloading":
                return
            self._last = now
            filled = int(progress.fraction * BAR_WIDTH)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            speed = f"{format_bytes(progress.speed_bps)}/s" if progress.speed_bps else ""
            eta = f"{progress.eta_s:.0f} s left" if progress.eta_s else ""
            line = (
                f"\r[{bar}] {progress.fraction * 100:5.1f}% "
                f"{format_bytes(progress.done_bytes)}/{format_bytes(progress.total_bytes)} "
                f"{speed} {eta} {progress.status}"
            )
            self._err.write(line.ljust(100))
            self._err.flush()

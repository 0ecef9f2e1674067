"""Download throughput and memory: Cove's downloader against ``curl``, from the same loopback hub,
in the same run, interleaved.

A file of random bytes (1 GiB by default) is written to a temporary folder and served by the
loopback hub of the tests (its CDN answers with ``sendfile``). Each round fetches it with, in
turn:

- ``curl -o`` (the main baseline: no hash, nothing flushed to disk);
- ``curl -s URL | tee FILE | sha256sum`` (curl doing the same hashing work);
- ``curl -o`` then ``fdatasync`` of the file (curl with the same durability);
- Cove (parallel ranged parts, SHA-256 verified while the bytes stream, flushed to disk before the
  atomic rename), in a fresh process; its peak memory is that process's maximum RSS (``wait4``).

A second, smaller file shows whether Cove's peak memory grows with the file. Everything is deleted
afterwards. Ratios are Cove's throughput over each baseline's, from the medians of the rounds.

    python bench/bench_download.py [--size-mib 1024] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.fake_hub import FakeHub, write_random_file  # noqa: E402

REPO = "bench/big"


def child(endpoint: str, file: str, models: str, connections: int) -> int:
    """One Cove download in this process; prints its seconds and what the hash read back."""
    from engine.hub.api import HubConfig
    from engine.hub.download import DownloadManager, DownloadRequest
    from engine.hub.transfer import TransferOptions

    manager = DownloadManager(
        HubConfig(endpoint=endpoint),
        models=Path(models),
        options=TransferOptions(connections=connections),
    )
    started = time.perf_counter()
    result = manager.enqueue(DownloadRequest(REPO, file)).wait()
    seconds = time.perf_counter() - started
    manager.close()
    report = {
        "status": result.status,
        "error": result.error,
        "seconds": seconds,
        "bytes": result.total_bytes,
        "reread_bytes": result.reread_bytes,
    }
    print(json.dumps(report))
    return 0 if result.status == "done" else 1


def run_cove(
    endpoint: str, file: str, models: Path, connections: int
) -> tuple[dict[str, object], int]:
    """The child's report and its peak RSS in bytes."""
    argv = [sys.executable, __file__, "--child", endpoint, file, str(models), str(connections)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"cove download failed: {out}")
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    shutil.rmtree(models)
    return json.loads(out.strip().splitlines()[-1]), rss


def run_curl(url: str, dest: Path, *, sync: bool = False) -> float:
    """``curl -o``; with ``sync``, until the file is flushed to disk as well."""
    started = time.perf_counter()
    subprocess.run(["curl", "-sS", "-f", "-L", "-o", str(dest), url], check=True)
    if sync:
        fd = os.open(dest, os.O_RDONLY)
        try:
            getattr(os, "fdatasync", os.fsync)(fd)
        finally:
            os.close(fd)
    seconds = time.perf_counter() - started
    dest.unlink()
    return seconds


def run_curl_sha(url: str, dest: Path) -> float:
    """``curl -s URL | tee FILE | sha256sum``: curl with the same hashing work as Cove."""
    pipeline = f"curl -sS -f -L {shlex.quote(url)} | tee {shlex.quote(str(dest))} | sha256sum"
    started = time.perf_counter()
    subprocess.run(
        ["bash", "-o", "pipefail", "-c", pipeline], check=True, stdout=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - started
    dest.unlink()
    return seconds


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--small-mib", type=int, default=128, help="for the memory comparison")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--json", type=Path, metavar="PATH")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        endpoint, file, models, connections = args.child
        return child(endpoint, file, models, int(connections))
    if shutil.which("curl") is None:
        raise SystemExit("curl is not installed")

    with tempfile.TemporaryDirectory(prefix="cove-bench-dl-") as tmp:
        folder = Path(tmp)
        big, small = folder / "big.bin", folder / "small.bin"
        write_random_file(big, args.size_mib << 20)
        write_random_file(small, args.small_mib << 20)
        with FakeHub() as hub:
            item = hub.add(REPO, "big.gguf", big)
            hub.add(REPO, "small.gguf", small)
            cdn = f"{hub.state.cdn_url}/cdn/{item.sha256}"
            curl_s: list[float] = []
            curl_sha_s: list[float] = []
            curl_sync_s: list[float] = []
            cove_s: list[float] = []
            rss_big: list[int] = []
            reread: list[int] = []
            for _ in range(args.rounds):
                curl_s.append(run_curl(cdn, folder / "curl.out"))
                curl_sha_s.append(run_curl_sha(cdn, folder / "curl.out"))
                curl_sync_s.append(run_curl(cdn, folder / "curl.out", sync=True))
                report, rss = run_cove(hub.endpoint, "big.gguf", folder / "m", args.connections)
                cove_s.append(float(report["seconds"]))  # type: ignore[arg-type]
                reread.append(int(report["reread_bytes"]))  # type: ignore[call-overload]
                rss_big.append(rss)
            _report, rss_small = run_cove(
                hub.endpoint, "small.gguf", folder / "m", args.connections
            )
    size: int = args.size_mib << 20

    def mib_s(seconds: float) -> float:
        return float(size / seconds / (1 << 20))

    result = {
        "file_mib": args.size_mib,
        "connections": args.connections,
        "curl_mib_s": [round(mib_s(s)) for s in curl_s],
        "curl_tee_sha256sum_mib_s": [round(mib_s(s)) for s in curl_sha_s],
        "curl_fdatasync_mib_s": [round(mib_s(s)) for s in curl_sync_s],
        "cove_mib_s": [round(mib_s(s)) for s in cove_s],
        "ratio_per_round": [round(a / b, 2) for a, b in zip(curl_s, cove_s, strict=True)],
        "ratio_median": round(median(curl_s) / median(cove_s), 2),
        "ratio_vs_curl_tee_sha256sum": round(median(curl_sha_s) / median(cove_s), 2),
        "ratio_vs_curl_fdatasync": round(median(curl_sync_s) / median(cove_s), 2),
        "hash_reread_mib": [round(r / (1 << 20), 1) for r in reread],
        "peak_rss_mib": {
            f"{args.size_mib} MiB file": round(max(rss_big) / (1 << 20), 1),
            f"{args.small_mib} MiB file": round(rss_small / (1 << 20), 1),
        },
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

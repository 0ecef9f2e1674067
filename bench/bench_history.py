"""The history's care, timed against the plain way of doing the same in the same run: opening with
the check at start against a bare SQLite open, a backup (SQLite's online backup, checked) against
a plain file copy of the same file, and a repair of 8 KiB of bad bytes; plus how much of a
damaged file's history comes back with no backup at all, over damage at many places.

    .venv/bin/python bench/bench_history.py [--chats 2000] [--rounds 5] [--places 20] [--json]

The history is written through the Store: ``--chats`` chats of six messages of about 80 words
each (2,000 chats: about 12,000 messages, the size of a year of daily use). Rounds alternate
the two ways; medians and their ratio are reported.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.store import Store
from engine.store.backups import Backups
from engine.store.repair import repair
from tests.support.history_files import overwrite_middle, write_chats


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bare_open(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version").fetchone()
    conn.execute("SELECT count(*) FROM conversations").fetchone()
    conn.close()


def checked_open(db: Path) -> None:
    with Store(db) as store:
        store.list_conversations()


def paired(a: Callable[[], Any], b: Callable[[], Any], rounds: int) -> dict[str, float]:
    firsts, seconds = [], []
    for n in range(rounds):  # interleaved: a, b, b, a, ...
        order = (a, b) if n % 2 == 0 else (b, a)
        times = [timed(fn) for fn in order]
        firsts.append(times[0] if n % 2 == 0 else times[1])
        seconds.append(times[1] if n % 2 == 0 else times[0])
    cove, plain = statistics.median(firsts), statistics.median(seconds)
    return {"cove_s": round(cove, 4), "plain_s": round(plain, 4), "ratio": round(cove / plain, 2)}


def salvage_without_backup(source: Path, places: int, work: Path) -> dict[str, float]:
    """Rows kept by a repair with no backup, 8 KiB of bad bytes at ``places`` random places."""
    rng = random.Random(7)
    kept, messages = [], []
    with Store(source) as store:
        total = len(store.list_conversations())
    conn = sqlite3.connect(source)
    total_messages = int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    conn.close()
    for n in range(places):
        folder = work / f"place-{n}"
        folder.mkdir()
        db = folder / "cove.sqlite3"
        shutil.copyfile(source, db)
        size = db.stat().st_size
        with db.open("r+b") as out:
            out.seek(rng.randrange(4096, size - 8192))
            out.write(rng.randbytes(8192))
        with Store(db) as store:
            kept.append(len(store.list_conversations()) / total)
            messages.append(store.repairs[-1].messages / total_messages if store.repairs else 1.0)
    return {
        "places": places,
        "median_chats_kept": round(statistics.median(kept), 3),
        "worst_chats_kept": round(min(kept), 3),
        "median_messages_kept": round(statistics.median(messages), 4),
        "worst_messages_kept": round(min(messages), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--places", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cove-bench-history-") as temp:
        work = Path(temp)
        db = work / "history" / "cove.sqlite3"
        with Store(db) as store:
            write_chats(store, args.chats, words=80)
        size = db.stat().st_size
        backups = Backups(db)
        copy = work / "copy.sqlite3"
        results: dict[str, Any] = {"chats": args.chats, "bytes": size}
        results["open"] = paired(lambda: checked_open(db), lambda: bare_open(db), args.rounds)
        results["backup"] = paired(
            lambda: backups.take("manual"), lambda: shutil.copyfile(db, copy), args.rounds
        )
        damaged = work / "damaged" / "cove.sqlite3"
        damaged.parent.mkdir()
        shutil.copyfile(db, damaged)
        Backups(damaged).take("daily")
        overwrite_middle(damaged)
        started = time.perf_counter()
        done = repair(damaged, Backups(damaged), "part of the file could not be read")
        results["repair"] = {
            "seconds": round(time.perf_counter() - started, 3),
            "chats": done.conversations,
            "rows_salvaged": done.salvaged_rows,
        }
        salvage = work / "salvage"
        salvage.mkdir()
        results["no_backup"] = salvage_without_backup(db, args.places, salvage)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key, value in results.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

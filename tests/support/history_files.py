"""Real chat histories for the backup and repair tests: written through the Store, and damaged
the ways files are damaged in the world (bad bytes, a truncated copy, zeros, a lost journal)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from engine.store import NewImage, Store

PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a2b5d1"
    "b00000000049454e44ae426082"
)


class Clock:
    """A clock the test moves: backups' dates without waiting for days to pass."""

    def __init__(self, start: float = 1_790_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def write_chats(store: Store, count: int, *, start: int = 0, words: int = 60) -> list[int]:
    """``count`` chats of three turns each, long enough to fill many pages; their ids."""
    ids = []
    rng = random.Random(start)
    vocabulary = [
        "river",
        "stone",
        "lantern",
        "copper",
        "meadow",
        "harbour",
        "cedar",
        "violet",
        "ember",
        "quartz",
    ]
    for n in range(start, start + count):
        conv = store.create_conversation(f"Chat {n}")
        for turn in range(3):
            body = " ".join(rng.choice(vocabulary) for _ in range(words))
            store.add_message(conv.id, "user", f"question {n}.{turn} {body}")
            store.add_message(conv.id, "assistant", f"answer {n}.{turn} {body}")
        ids.append(conv.id)
    return ids


def add_image_chat(store: Store) -> int:
    conv = store.create_conversation("With a picture")
    image = NewImage(PNG_1PX, "image/png", 1, 1, "dot.png")
    store.add_message(conv.id, "user", "what is this dot?", images=[image])
    return conv.id


def titles(store: Store) -> set[str]:
    return {c.title for c in store.list_conversations()}


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()


def overwrite_middle(path: Path, size: int = 8192, seed: int = 3) -> bytes:
    """A run of bad bytes in the middle of the file (a bad sector, a sync tool's write);
    returns the file as damaged."""
    length = path.stat().st_size
    with path.open("r+b") as out:
        out.seek(length // 2 - size // 2)
        out.write(random.Random(seed).randbytes(size))
    return path.read_bytes()


def seed_history() -> list[int]:
    """Three conversations written as an earlier session would have."""
    from engine.store import ChatSettings, Store

    ids = []
    with Store() as store:
        for title, question, answer in (
            ("Bread", "How long should bread dough rise?", "About an hour, until doubled."),
            ("Bananas", "Why do bananas turn brown?", "Enzymes oxidise when the peel ages."),
            ("Trains", "How fast is a TGV?", "Up to 320 km/h in service."),
        ):
            conv = store.create_conversation(title, settings=ChatSettings(temperature=0.3))
            store.add_message(conv.id, "user", question)
            store.add_message(conv.id, "assistant", answer)
            ids.append(conv.id)
    return ids

"""A sentence encoder with a disk cache, for the retrieval benchmarks: a passage embedded once
is not embedded again by a later run (vectors keyed by the encoder's identity and the text's
SHA-256), so a change to ranking is measured in seconds and a change to chunking costs only
the passages it changed. Vectors are the encoder's own; nothing about retrieval is cached."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def cache_path() -> Path:
    return Path.home() / ".cache" / "cove-bench" / "embeddings.sqlite3"


class CachedEncoder:
    def __init__(self, encoder: Any, path: Path | None = None) -> None:
        self.encoder = encoder
        path = path or cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec BLOB)")
        self._lock = threading.Lock()
        self.embedded = 0  # texts the encoder itself embedded in this run

    @property
    def name(self) -> str:
        return str(self.encoder.name)

    @property
    def dimensions(self) -> int:
        return int(self.encoder.dimensions)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.encoder, attr)

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\0{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        import numpy as np

        keys = [self._key(t) for t in texts]
        found: dict[str, bytes] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                marks = ",".join("?" * len(part))
                found.update(
                    self._db.execute(f"SELECT key, vec FROM v WHERE key IN ({marks})", part)
                )
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            fresh = self.encoder.embed([texts[i] for i in todo], batch_size=batch_size)
            self.embedded += len(todo)
            rows = [
                (keys[i], np.asarray(v, np.float32).tobytes())
                for i, v in zip(todo, fresh, strict=True)
            ]
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
                self._db.commit()
            found.update(rows)
        return [np.frombuffer(found[k], np.float32).tolist() for k in keys]

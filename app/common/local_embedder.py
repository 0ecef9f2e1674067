"""This computer's engine for document embeddings while the chat engine is another computer's: a
host of its own, started the first time a passage or question needs embedding, so that they never
leave the machine to be searched."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.client import EngineClient, LocalEngine
    from engine.remote import RemoteEngine


class LocalEmbedder:
    def __init__(self) -> None:
        self.host: LocalEngine | None = None
        self._lock = threading.Lock()

    def client(
        self, engine: LocalEngine | RemoteEngine | None, remote: RemoteEngine | None
    ) -> EngineClient:
        """The engine in use when it is this computer's, else the host of its own (started
        here: blocking, so on a worker thread)."""
        with self._lock:
            if remote is None and engine is not None:
                return engine.client
            if self.host is None or not self.host.alive():
                from engine.client import LocalEngine

                self.host = LocalEngine.start()
            return self.host.client

    def stop(self) -> None:
        with self._lock:
            host, self.host = self.host, None
        if host is not None:
            host.stop()
            host.client.close()

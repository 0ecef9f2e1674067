"""Talking to an engine host: ``EngineClient`` speaks the HTTP API (``http_client``) to any host,
``LocalEngine`` starts and watches a private one (``local``), and ``protocol`` holds the values
and their JSON that the host shares. docs/ENGINE_API.md describes them."""

from engine.client.http_client import EngineClient
from engine.client.local import LocalEngine

# What the window uses, from the modules that hold it.
from engine.client.protocol import SPEED_WORK, EngineStatus, ResidentModel, SavedState

__all__ = [
    "SPEED_WORK",
    "EngineClient",
    "EngineStatus",
    "LocalEngine",
    "ResidentModel",
    "SavedState",
]

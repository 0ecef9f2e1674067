"""Talking to an engine host: ``EngineClient`` speaks the HTTP API (``http_client``) to any host,
``LocalEngine`` starts and watches a private one (``local``), and ``protocol`` holds the values
and their JSON that the host shares. docs/ENGINE_API.md describes them."""

from engine.client.http_client import EngineClient
from engine.client.local import LocalEngine

__all__ = ["EngineClient", "LocalEngine"]

"""Cove beyond one machine: serving to the local network behind a key and a pinned certificate
(``cove serve --lan``), using another computer's engine, and one model's layers on several
machines through llama.cpp's RPC backend (``cove worker``). See docs/REMOTE.md."""

# What the window uses, from the modules that hold it.
from engine.remote.certificate import short
from engine.remote.discovery import Found, browse
from engine.remote.keychain import delete_secret, load_secret, save_secret
from engine.remote.remote_engine import RemoteEngine, presented_fingerprint, where

# Where ``cove worker`` listens unless told otherwise: llama.cpp's rpc-server's default port.
DEFAULT_WORKER_PORT = 50052

__all__ = [
    "Found",
    "RemoteEngine",
    "browse",
    "delete_secret",
    "load_secret",
    "presented_fingerprint",
    "save_secret",
    "short",
    "where",
]

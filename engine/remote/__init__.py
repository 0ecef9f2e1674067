"""Cove beyond one machine: serving to the local network behind a key and a pinned certificate
(``cove serve --lan``), using another computer's engine, and one model's layers on several
machines through llama.cpp's RPC backend (``cove worker``). See docs/REMOTE.md."""

# Where ``cove worker`` listens unless told otherwise: llama.cpp's rpc-server's default port.
DEFAULT_WORKER_PORT = 50052

"""Cove beyond one machine: serving to the local network behind a key and a pinned certificate
(``cove serve --lan``), using another computer's engine, and one model's layers on several
machines through llama.cpp's RPC backend (``cove worker``). See docs/REMOTE.md."""

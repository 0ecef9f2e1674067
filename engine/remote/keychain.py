"""Secrets Cove keeps for the person (the key of another computer's engine): in the platform's
keyring (macOS Keychain, Windows Credential Locker, the Secret Service on Linux desktops) where
one works, else in ``secrets.json`` in Cove's data folder, readable by its owner only (0600)."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from engine.json_file import read_json_object, write_json_atomic
from engine.paths import data_dir

SERVICE = "Cove"
log = logging.getLogger("cove.remote")


def secrets_path() -> Path:
    return data_dir() / "secrets.json"


def save_secret(name: str, value: str) -> str:
    """Store ``value`` under ``name``; returns where: ``"keyring"`` or ``"file"``."""
    ring = _keyring()
    if ring is not None:
        try:
            ring.set_password(SERVICE, name, value)
        except Exception as exc:  # a locked or broken keyring: the file still works
            log.info("the keyring refused the secret (%s); keeping it in a private file", exc)
        else:
            _file_drop(name)
            return "keyring"
    data = _file_read()
    data[name] = value
    _file_write(data)
    return "file"


def load_secret(name: str) -> str | None:
    ring = _keyring()
    if ring is not None:
        with contextlib.suppress(Exception):
            value = ring.get_password(SERVICE, name)
            if value is not None:
                return str(value)
    value = _file_read().get(name)
    return value if isinstance(value, str) else None


def delete_secret(name: str) -> None:
    ring = _keyring()
    if ring is not None:
        with contextlib.suppress(Exception):
            ring.delete_password(SERVICE, name)
    _file_drop(name)


def _keyring() -> Any:
    """The platform keyring, when a real one is available (not keyring's "fail" or plain-text
    fallbacks)."""
    if os.environ.get("COVE_NO_KEYRING"):
        return None
    try:
        import keyring
        from keyring.backend import KeyringBackend

        backend = keyring.get_keyring()
    except Exception:
        return None
    if not isinstance(backend, KeyringBackend):
        return None
    try:
        priority = float(backend.priority)
    except (TypeError, ValueError):
        return None
    name = type(backend).__module__ + "." + type(backend).__name__
    if priority < 1 or "fail" in name or "Plaintext" in name or "null" in name:
        return None
    return backend


def _file_read() -> dict[str, object]:
    return read_json_object(secrets_path())


def _file_write(data: dict[str, object]) -> None:
    write_json_atomic(secrets_path(), data)  # 0600, like every file it writes


def _file_drop(name: str) -> None:
    data = _file_read()
    if data.pop(name, None) is not None:
        _file_write(data)

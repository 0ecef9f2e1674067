"""The keys that let another computer use this one: for ``cove serve --lan`` and for
``cove worker``. A key is made once and shown once; only its SHA-256 is kept (in ``tls/`` in
Cove's data folder), so a copy of the data folder does not give the key away. ``--new-key``
makes another, and the old one stops working."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from engine.json_file import write_json_atomic
from engine.remote.certificate import tls_dir

ROLES = ("serve", "worker")


@dataclass(frozen=True, slots=True)
class Key:
    digest: bytes  # SHA-256 of the key
    shown: str | None  # the key itself when it was made (or given) by this call


def make_key() -> str:
    return "cove-" + secrets.token_urlsafe(24)


def digest(key: str | bytes) -> bytes:
    return hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()


def matches(presented: str | bytes, expected: bytes) -> bool:
    """Constant-time comparison of a presented key with a kept digest."""
    return hmac.compare_digest(digest(presented), expected)


def key_path(role: str) -> Path:
    if role not in ROLES:
        raise ValueError(f"unknown key role {role!r}")
    return tls_dir() / f"{role}-key.json"


def ensure_key(role: str, given: str | None = None, *, new: bool = False) -> Key:
    """The key for ``role``: ``given`` (remembered from now on), the one made earlier, or a new
    one (made when there is none, or when ``new``). ``shown`` is set only for a key made now."""
    path = key_path(role)
    if given is not None:
        if len(given) < 8:
            raise ValueError("the key must be at least 8 characters")
        write_json_atomic(path, {"sha256": digest(given).hex()})
        return Key(digest(given), None)
    if not new:
        kept = _read(path)
        if kept is not None:
            return Key(kept, None)
    key = make_key()
    write_json_atomic(path, {"sha256": digest(key).hex()})
    return Key(digest(key), key)


def _read(path: Path) -> bytes | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("sha256")
        return bytes.fromhex(value) if isinstance(value, str) and len(value) == 64 else None
    except (OSError, ValueError, AttributeError):
        return None

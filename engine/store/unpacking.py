"""An archive opened for reading, as untrusted input: every member's name and declared size is
checked when it is opened, and no read goes past the size a member declares.

A member whose path climbs out of the archive (``..``) or starts at a root, a member larger than
anything Cove writes (a zip bomb declares gigabytes that a few kilobytes expand to), an encrypted
or damaged member: each is an ``ArchiveError`` saying which member and what is wrong. Nothing here
writes anything; the caller checks everything it will import before its one transaction.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
import zlib
from pathlib import Path

from engine.errors import ArchiveError, NewerArchive
from engine.images import MAX_BYTES as MAX_IMAGE_BYTES
from engine.store.transfer import FORMAT, IMAGES, MANIFEST, VERSION, ImageRef

# Far above what Cove writes (the largest chat seen was a few megabytes of JSON; an image is at
# most MAX_IMAGE_BYTES), far below what would exhaust memory: every JSON member is parsed before
# anything is written, so their total is bounded too.
MAX_JSON_BYTES = 256 * 1024 * 1024
MAX_TOTAL_JSON_BYTES = 2 * 1024 * 1024 * 1024
MAX_MEMBERS = 1_000_000
_DRIVE = re.compile(r"[A-Za-z]:")


def unsafe_name(name: str) -> bool:
    """A member path that would land outside a folder it is unpacked into."""
    if not name or "\\" in name or "\x00" in name:
        return True
    if name.startswith("/") or _DRIVE.match(name):
        return True
    return ".." in name.split("/")


def _no_constant(name: str) -> object:
    # NaN and Infinity are Python's extension of JSON; the history stores strict JSON only.
    raise ValueError(f"{name} is not a JSON value")


class ArchiveReader:
    """The members of one zip archive, checked; ``close()`` it (or use ``with``)."""

    def __init__(self, path: Path) -> None:
        try:
            self._zip = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            raise ArchiveError(f"it is not a zip archive, or it is cut short ({exc})") from None
        except (OSError, EOFError, ValueError) as exc:  # ValueError: offsets past its end
            reason = getattr(exc, "strerror", None) or exc
            raise ArchiveError(f"it cannot be read ({reason})") from None
        try:
            self._members = self._check_members()
        except BaseException:
            self._zip.close()
            raise

    def _check_members(self) -> dict[str, zipfile.ZipInfo]:
        infos = self._zip.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(f"it holds {len(infos):,} files, more than any Cove archive")
        members: dict[str, zipfile.ZipInfo] = {}
        json_total = 0
        for info in infos:
            name = info.filename
            if unsafe_name(name):
                raise ArchiveError(
                    f"it holds a file whose path leaves the archive ({name!r}); it was not made "
                    "by Cove"
                )
            if name in members:
                raise ArchiveError(f"it holds {name} twice")
            if info.flag_bits & 0x1:
                raise ArchiveError(f"{name} is encrypted")
            if name.endswith("/"):
                continue
            limit = MAX_IMAGE_BYTES if name.startswith(IMAGES) else MAX_JSON_BYTES
            if info.file_size > limit:
                raise ArchiveError(
                    f"{name} declares {info.file_size:,} bytes, far more than Cove writes: the "
                    "archive is damaged or not Cove's"
                )
            if name.endswith(".json"):
                json_total += info.file_size
            members[name] = info
        if json_total > MAX_TOTAL_JSON_BYTES:
            raise ArchiveError("its chats declare more data than Cove can read at once")
        return members

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def has(self, name: str) -> bool:
        return name in self._members

    def names_under(self, prefix: str) -> list[str]:
        """Member names in ``prefix`` (a folder ending in ``/``), in the order they were written."""
        return [n for n in self._members if n.startswith(prefix) and n != prefix]

    def read(self, name: str) -> bytes:
        info = self._members.get(name)
        if info is None:
            raise ArchiveError(f"it has no {name}")
        try:
            with self._zip.open(info) as member:
                # ZipExtFile stops at the declared size, and checks the CRC at the end.
                data = member.read()
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ArchiveError(f"{name} is damaged ({exc})") from None
        except (RuntimeError, NotImplementedError) as exc:  # encrypted, or an unknown method
            raise ArchiveError(f"{name} cannot be read ({exc})") from None
        if len(data) != info.file_size:
            raise ArchiveError(f"{name} is damaged (it is not the size it declares)")
        return data

    def json(self, name: str) -> object:
        data = self.read(name)
        try:
            return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise ArchiveError(f"{name} is not text") from None
        except ValueError as exc:
            raise ArchiveError(f"{name} is not valid JSON ({exc})") from None
        except RecursionError:
            raise ArchiveError(f"{name} is nested too deeply to be Cove's") from None

    def image(self, ref: ImageRef) -> bytes | None:
        """The image's bytes, checked against its digest; None when the archive lacks it."""
        if ref.member not in self._members:
            return None
        data = self.read(ref.member)
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise ArchiveError(f"{ref.member} is damaged (its bytes do not match its name)")
        return data

    def manifest(self) -> dict[str, object]:
        """The manifest, once its format and version are known to be readable here."""
        if MANIFEST not in self._members:
            raise ArchiveError(f"it has no {MANIFEST}, so it is not an archive Cove wrote")
        data = self.json(MANIFEST)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else None
            raise ArchiveError(f"it is not a Cove archive (its format is {found!r})")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ArchiveError(f"its version {version!r} is not a version of the archive format")
        if version > VERSION:
            raise NewerArchive(
                f"it was written by a newer version of Cove (archive version {version}; this "
                f"version reads up to {VERSION}). Update Cove to import it"
            )
        return data

"""Sequential reads of GGUF's little-endian values over a file that is not trusted: every length
and count is checked against the bytes left in the file, and against fixed limits, before anything
is allocated or looped over; a defect is a ``ModelLoadError`` naming the file and what is wrong.

Value types: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (gguf_metadata_value_type).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from engine.errors import ModelLoadError

# Far above anything a real model needs, low enough that a hostile header cannot make us
# allocate or loop for long.
MAX_STRING_BYTES = 1 << 26
MAX_ARRAY_ITEMS = 1 << 24
MAX_HEADER_BYTES = 1 << 27
_CHUNK = 1 << 18
REMEDY = "Download or convert the model again."

# GGUF metadata value types: the fixed-size ones by their struct format, then string and array.
_SCALARS = {
    code: struct.Struct("<" + fmt)
    for code, fmt in {
        0: "B",
        1: "b",
        2: "H",
        3: "h",
        4: "I",
        5: "i",
        6: "f",
        7: "B",
        10: "Q",
        11: "q",
        12: "d",
    }.items()
}
_BOOL, _STRING, _ARRAY = 7, 8, 9
_MIN_VALUE_BYTES = {**{code: s.size for code, s in _SCALARS.items()}, _STRING: 8, _ARRAY: 12}
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


class Cursor:
    """Sequential little-endian reads over a file, refusing to read past its end."""

    def __init__(self, file: BinaryIO, path: Path, size: int) -> None:
        self._file = file
        self._path = path
        self._size = size
        self._buf = b""
        self._pos = 0  # position inside _buf
        self._base = 0  # file offset of _buf[0]

    @property
    def offset(self) -> int:
        return self._base + self._pos

    @property
    def remaining(self) -> int:
        return self._size - self.offset

    def error(self, what: str) -> ModelLoadError:
        return ModelLoadError(f"{self._path}: {what}. {REMEDY}")

    def _ensure(self, n: int, what: str) -> None:
        if len(self._buf) - self._pos >= n:
            return
        if n > self.remaining:
            needs = f"{n} bytes from byte {self.offset}"
            raise self.error(f"truncated at byte {self._size} while reading {what} ({needs})")
        if self.offset + n > MAX_HEADER_BYTES:
            raise self.error(f"the header runs past the {MAX_HEADER_BYTES >> 20} MiB limit")
        kept = self._buf[self._pos :]
        chunk = self._file.read(max(n - len(kept), _CHUNK))
        self._base += self._pos
        self._buf, self._pos = kept + chunk, 0
        if len(self._buf) < n:
            raise self.error(f"the file shrank while reading {what} at byte {self.offset}")

    def unpack(self, fmt: struct.Struct, what: str) -> tuple[Any, ...]:
        self._ensure(fmt.size, what)
        values = fmt.unpack_from(self._buf, self._pos)
        self._pos += fmt.size
        return values

    def u32(self, what: str) -> int:
        return int(self.unpack(_U32, what)[0])

    def u64(self, what: str) -> int:
        return int(self.unpack(_U64, what)[0])

    def raw(self, n: int, what: str) -> bytes:
        self._ensure(n, what)
        data = self._buf[self._pos : self._pos + n]
        self._pos += n
        return data

    def string(self, what: str, *, strict: bool = True) -> str:
        start = self.offset
        n = self.u64(f"the length of {what}")
        if n > MAX_STRING_BYTES:
            raise self.error(f"string length {n} of {what} exceeds {MAX_STRING_BYTES} bytes")
        data = self.raw(n, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            if strict:
                raise self.error(f"invalid UTF-8 in {what} at byte {start}") from None
            # Some converters split multi-byte characters across vocabulary entries; the
            # runtime treats token text as raw bytes, so such a token is not a defect.
            return data.decode("utf-8", errors="replace")

    def strings(self, count: int, what: str) -> list[str]:
        """Vocabularies hold ~10^5 strings: decode the buffered ones in a tight loop."""
        out: list[str] = []
        append, unpack = out.append, _U64.unpack_from
        while len(out) < count:
            buf, pos, limit = self._buf, self._pos, len(self._buf)
            for _ in range(count - len(out)):
                start = pos + 8
                if start > limit:
                    break
                end = start + unpack(buf, pos)[0]
                if end > limit or end - start > MAX_STRING_BYTES:
                    break
                append(buf[start:end].decode("utf-8", errors="replace"))
                pos = end
            self._pos = pos
            if len(out) < count:  # refill the buffer, or report what is wrong
                append(self.string(what, strict=False))
        return out

    def value(self, vtype: int, what: str, nested: bool = False) -> object:
        fmt = _SCALARS.get(vtype)
        if fmt is not None:
            (value,) = self.unpack(fmt, what)
            if vtype == _BOOL:
                return _as_bool(self, value, what)
            return value
        if vtype == _STRING:
            return self.string(what)
        if vtype != _ARRAY:
            raise self.error(f"unknown value type {vtype} for {what}")
        item_type = self.u32(f"the item type of {what}")
        count = self.u64(f"the length of {what}")
        if item_type not in _MIN_VALUE_BYTES:
            raise self.error(f"unknown item type {item_type} in {what}")
        if item_type == _ARRAY and nested:
            raise self.error(f"{what} nests arrays more than one level deep")
        need = count * _MIN_VALUE_BYTES[item_type]
        if count > MAX_ARRAY_ITEMS or need > self.remaining:
            raise self.error(
                f"{what} claims {count} items, which need at least {need} bytes, "
                f"but {self.remaining} remain after byte {self.offset}"
            )
        fmt = _SCALARS.get(item_type)
        if fmt is not None:
            items = list(
                struct.unpack(f"<{count}{fmt.format[1:]}", self.raw(fmt.size * count, what))
            )
            return [_as_bool(self, v, what) for v in items] if item_type == _BOOL else items
        if item_type == _STRING:
            return self.strings(count, what)
        return [self.value(_ARRAY, f"{what}[{i}]", nested=True) for i in range(count)]


def _as_bool(cursor: Cursor, value: object, what: str) -> bool:
    if value not in (0, 1):
        raise cursor.error(f"{what} holds {value!r}, which is not a boolean (0 or 1)")
    return value == 1

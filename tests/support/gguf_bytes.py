"""GGUF files byte by byte, as the format's specification lays them out, written independently
of the reader under test and of the ``gguf`` package: the header reader's tests build well-formed
and damaged files from these, and other tests borrow a small valid header (``synthetic``) or a
sparse file that reads as a huge model (``huge_sparse_model``)."""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from pathlib import Path

# GGUF metadata value types and a few ggml tensor types, spelled out independently of the reader.
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_FORMATS = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f", BOOL: "B"}
_FORMATS |= {U64: "Q", I64: "q", F64: "d"}
T_F32, T_Q4_0, T_Q8_0 = 0, 2, 8

KV = tuple[str | bytes, int, object]
Tensor = tuple[str, tuple[int, ...], int, bytes]


def gguf_string(text: str | bytes) -> bytes:
    """A string as GGUF writes one: its length in eight bytes, then its bytes."""
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def _value(vtype: int, value: object) -> bytes:
    if vtype == STRING:
        assert isinstance(value, str | bytes)
        return gguf_string(value)
    if vtype == ARRAY:
        assert isinstance(value, tuple)
        item_type, items = value
        body = b"".join(_value(item_type, item) for item in items)
        return struct.pack("<IQ", item_type, len(items)) + body
    return struct.pack("<" + _FORMATS[vtype], value)


def build_gguf(
    kvs: Sequence[KV], tensors: Sequence[Tensor] = (), *, version: int = 3, alignment: int = 32
) -> bytes:
    """A GGUF file as the spec lays it out: header, metadata, tensor table, aligned data."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)))
    for key, vtype, value in kvs:
        out += gguf_string(key) + struct.pack("<I", vtype) + _value(vtype, value)
    data = bytearray()
    for name, shape, ggml_type, blob in tensors:
        dims = struct.pack(f"<I{len(shape)}Q", len(shape), *shape)
        out += gguf_string(name) + dims + struct.pack("<IQ", ggml_type, len(data))
        data += blob + bytes(-len(blob) % alignment)
    out += bytes(-len(out) % alignment)
    return bytes(out + data)


def floats(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def model_kvs(arch: str = "llama", layers: int = 2, **extra: tuple[int, object]) -> list[KV]:
    kvs: list[KV] = [
        ("general.architecture", STRING, arch),
        ("general.name", STRING, "tiny"),
        ("general.alignment", U32, 32),
        (f"{arch}.block_count", U32, layers),
        (f"{arch}.context_length", U64, 256),
        (f"{arch}.embedding_length", U32, 8),
        (f"{arch}.attention.head_count", U32, 2),
    ]
    return kvs + [(f"{arch}.{key.replace('__', '.')}", t, v) for key, (t, v) in extra.items()]


def synthetic() -> bytes:
    kvs = model_kvs(attention__head_count_kv=(ARRAY, (I32, [1, 2])), rope__freq_base=(F32, 10000.0))
    kvs += [
        ("x.u8", U8, 255),
        ("x.i8", I8, -128),
        ("x.u16", U16, 65535),
        ("x.i16", I16, -32768),
        ("x.i32", I32, -5),
        ("x.i64", I64, -(1 << 63)),
        ("x.f64", F64, 0.25),
        ("x.bool", BOOL, 1),
        ("x.flags", ARRAY, (BOOL, [1, 0])),
        ("x.nested", ARRAY, (ARRAY, [(U8, [1, 2]), (STRING, ["a", "b"])])),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "a", "é"])),
        ("tokenizer.ggml.scores", ARRAY, (F32, [0.0, 0.5, -1.0, 2.0])),
        ("tokenizer.chat_template", STRING, "{{ messages }}"),
    ]
    tensors: list[Tensor] = [
        ("token_embd.weight", (8, 4), T_F32, floats(*range(32))),
        ("output_norm.weight", (8,), T_F32, floats(*[1.0] * 8)),
    ]
    return build_gguf(kvs, tensors)


def huge_sparse_model(folder: Path, gib: int = 256) -> Path:
    """A well-formed GGUF whose one weight tensor is ``gib`` GiB: a sparse file, so it costs no
    disk, but every size the planner reads is real. No machine here has that much memory free."""
    cols = 1 << 16
    rows = gib * (1 << 30) // (4 * cols)
    kvs = [*model_kvs(layers=2), ("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "a"]))]
    header = build_gguf(kvs, [("token_embd.weight", (cols, rows), T_F32, b"")])
    path = folder / "huge.gguf"
    path.write_bytes(header)
    os.truncate(path, len(header) + rows * cols * 4)
    return path

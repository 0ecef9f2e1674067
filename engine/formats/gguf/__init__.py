"""Read a GGUF model's header, metadata and tensor table without touching its weights.

Model files come from anywhere, so nothing in them is trusted: every count and length is checked
against the bytes actually left in the file before anything is allocated or looped over, and every
defect surfaces as a ``ModelLoadError`` naming the file and what is wrong with it. Only the header
is read, in chunks, so a file of many gigabytes costs a few megabytes of I/O. The values are read
by ``engine.formats.gguf.cursor``.

Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3, little-endian).
"""

from __future__ import annotations

import itertools
import math
import os
import stat
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeGuard

from engine.errors import ModelLoadError, ModelNotFound
from engine.formats.gguf.cursor import REMEDY, Cursor

GGUF_MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32

# Far above anything a real model needs, low enough that a hostile header cannot make us
# allocate or loop for long.
MAX_TENSORS = 1 << 20
MAX_KV_PAIRS = 1 << 16
MAX_DIMS = 8
MAX_TENSOR_NAME_BYTES = 63  # ggml keeps names in char[GGML_MAX_NAME = 64], NUL included
_INT64_MAX = (1 << 63) - 1

# ggml type id -> (name, elements per block, bytes per block). Ids: enum ggml_type in
# ggml/include/ggml.h; sizes: the block_* structs in ggml/src/ggml-common.h, which ggml.c's
# type_traits table takes via sizeof; cross-checked with GGML_QUANT_SIZES in llama.cpp's
# gguf-py/gguf/constants.py, which still lists Q8_1 at its old 40 bytes (ggml asserts 36).
# fmt: off
GGML_TYPES: dict[int, tuple[str, int, int]] = {
    0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22), 7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 36),
    10: ("Q2_K", 256, 84), 11: ("Q3_K", 256, 110), 12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210), 15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50), 20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82), 23: ("IQ4_XS", 256, 136), 24: ("I8", 1, 1), 25: ("I16", 1, 2),
    26: ("I32", 1, 4), 27: ("I64", 1, 8), 28: ("F64", 1, 8), 29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54), 35: ("TQ2_0", 256, 66), 39: ("MXFP4", 32, 17),
}
# general.file_type -> the name quantizers and model pages use: enum llama_ftype in
# include/llama.h, named as llama-quantize names them (Q4_K_M ...). Ids 4-6 and 33-35 were removed.
# fmt: off
FILE_TYPES: dict[int, str] = {
    0: "ALL_F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M",
    30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE", 39: "NVFP4",
    40: "Q1_0",
}
# fmt: on
# Layer period of interleaved sliding-window attention for architectures whose llama.cpp loader
# fixes it in code rather than reading it from the file (src/llama-model.cpp, set_swa_pattern).
_SWA_PERIODS = {"gemma2": 2, "gemma3": 6, "gemma-embedding": 6, "cohere2": 4, "gpt-oss": 2}
_DEFAULT_WINDOWS = {"gemma2": 4096}  # llama.cpp's fallback when a gemma2 file omits the key


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor's entry in the table. ``shape`` is in GGUF order: fastest-varying dim first."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int
    type_name: str
    offset: int  # relative to GGUFFile.data_offset
    n_bytes: int

    @property
    def n_elements(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, slots=True)
class GGUFFile:
    path: Path
    version: int
    file_size: int
    metadata: dict[str, object]
    tensors: tuple[TensorInfo, ...]
    data_offset: int

    def _error(self, what: str) -> ModelLoadError:
        return ModelLoadError(f"{self.path}: {what}. {REMEDY}")

    @property
    def architecture(self) -> str:
        arch = self.metadata.get("general.architecture")
        if not isinstance(arch, str) or not arch:
            raise self._error("the metadata has no general.architecture")
        return arch

    def _text(self, key: str) -> str | None:
        value = self.metadata.get(key)
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        return self._text("general.name")

    def arch_value(self, key: str, default: object = None) -> object:
        return self.metadata.get(f"{self.architecture}.{key}", default)

    def _count(self, key: str, default: Callable[[], int] | None = None) -> int:
        value = self.arch_value(key)
        if value is None:
            if default is None:
                raise self._error(f"the metadata has no {self.architecture}.{key}")
            return default()
        if isinstance(value, list) and value:
            value = value[0]  # per-layer array: llama.cpp's scalar accessors read layer 0
        if not _is_count(value):
            raise self._error(f"{self.architecture}.{key} is {value!r}, not a count")
        return value

    def _per_layer(self, key: str, default: Callable[[], list[int]]) -> list[int]:
        layers = self.block_count
        value = self.arch_value(key)
        if value is None:
            return default()
        if isinstance(value, list):
            counts = [v for v in value if _is_count(v)]
            if len(counts) != len(value) or len(counts) != layers:
                found = f"{len(value)} values"
                raise self._error(f"{self.architecture}.{key} has {found} for {layers} layers")
            return counts
        return [self._count(key)] * layers

    @property
    def block_count(self) -> int:
        return self._count("block_count")

    @property
    def context_length(self) -> int:
        return self._count("context_length")

    @property
    def embedding_length(self) -> int:
        return self._count("embedding_length")

    @property
    def head_count(self) -> int:
        return self._count("attention.head_count")

    @property
    def head_count_kv(self) -> int:
        return self._count("attention.head_count_kv", lambda: self.head_count)

    def heads_per_layer(self) -> list[int]:
        return self._per_layer("attention.head_count", lambda: [self.head_count] * self.block_count)

    def kv_heads_per_layer(self) -> list[int]:
        return self._per_layer("attention.head_count_kv", self.heads_per_layer)

    @property
    def key_length(self) -> int:
        def derived() -> int:  # as llama.cpp does: n_embd / n_head, none without heads
            return self.embedding_length // self.head_count if self.head_count else 0

        return self._count("attention.key_length", derived)

    @property
    def value_length(self) -> int:
        return self._count("attention.value_length", lambda: self.key_length)

    @property
    def sliding_window(self) -> int | None:
        default = _DEFAULT_WINDOWS.get(self.architecture, 0)
        return self._count("attention.sliding_window", lambda: default) or None

    def swa_layers(self) -> list[bool]:
        """Which layers attend through the sliding window, as llama.cpp will run them.

        An explicit ``sliding_window_pattern`` wins: an int N means every Nth layer is global
        (N == 0: none is), a bool array lists the layers. Otherwise the architecture's fixed period
        applies; a window declared by an architecture without one is not used by llama.cpp.
        """
        layers = self.block_count
        if self.sliding_window is None:
            return [False] * layers
        key = "attention.sliding_window_pattern"
        pattern = self.arch_value(key, _SWA_PERIODS.get(self.architecture))
        if pattern is None:
            return [False] * layers
        if isinstance(pattern, list):
            if not all(isinstance(v, bool | int) for v in pattern):
                raise self._error(f"{self.architecture}.{key} is not a list of flags")
            return [bool(pattern[i]) if i < len(pattern) else False for i in range(layers)]
        if not _is_count(pattern):
            raise self._error(f"{self.architecture}.{key} is {pattern!r}, not a layer period")
        return [pattern == 0 or (i + 1) % pattern != 0 for i in range(layers)]

    @property
    def vocab_size(self) -> int:
        tokens = self.metadata.get("tokenizer.ggml.tokens")
        if isinstance(tokens, list):
            return len(tokens)
        return self._count("vocab_size")

    @property
    def chat_template(self) -> str | None:
        return self._text("tokenizer.chat_template")

    @property
    def tokenizer_model(self) -> str | None:
        return self._text("tokenizer.ggml.model")

    @property
    def weights_bytes(self) -> int:
        return sum(t.n_bytes for t in self.tensors)

    def file_type(self) -> str | None:
        """The quantization the file declares (general.file_type), by its usual name."""
        value = self.metadata.get("general.file_type")
        return FILE_TYPES.get(value) if _is_count(value) else None

    def tensor_types(self) -> list[tuple[str, int]]:
        """Weight bytes per tensor type, largest first. A K-quant mix such as Q4_K_M keeps some
        matrices in Q6_K or Q8_0, which may even hold the most bytes (large embeddings)."""
        by_bytes: Counter[str] = Counter()
        for tensor in self.tensors:
            by_bytes[tensor.type_name] += tensor.n_bytes
        return by_bytes.most_common()

    def quantization(self) -> str:
        """What the file says it is (general.file_type); for a file that does not say, the type
        holding most of the weight bytes, norms and biases (1-D) not counted."""
        declared = self.file_type()
        if declared is not None:
            return declared
        matrices = [t for t in self.tensors if len(t.shape) >= 2] or list(self.tensors)
        by_bytes: Counter[str] = Counter()
        for tensor in matrices:
            by_bytes[tensor.type_name] += tensor.n_bytes
        return by_bytes.most_common(1)[0][0] if by_bytes else "none"

    def summary(self) -> dict[str, object]:
        """What a user wants to know about the model; fields the file lacks are None."""

        def get(read: Callable[[], object]) -> object:
            try:
                return read()
            except ModelLoadError:
                return None

        return {
            "name": self.name,
            "architecture": get(lambda: self.architecture),
            "parameters": sum(t.n_elements for t in self.tensors),
            "file_size": self.file_size,
            "weights_bytes": self.weights_bytes,
            "quantization": self.quantization(),
            "tensor_types": dict(self.tensor_types()),
            "layers": get(lambda: self.block_count),
            "context_length": get(lambda: self.context_length),
            "embedding": get(lambda: self.embedding_length),
            "heads": _collapse(get(self.heads_per_layer)),
            "kv_heads": _collapse(get(self.kv_heads_per_layer)),
            "head_dim_k": get(lambda: self.key_length),
            "head_dim_v": get(lambda: self.value_length),
            "sliding_window": get(lambda: self.sliding_window),
            "vocab_size": get(lambda: self.vocab_size),
            "has_chat_template": self.chat_template is not None,
            "tokenizer_model": self.tokenizer_model,
        }


def describe_mix(bytes_by_type: dict[str, int]) -> str:
    """'Q8_0 62 %, Q4_K 30 %, F32 8 %': each tensor type's share of the weight bytes."""
    total = sum(bytes_by_type.values()) or 1

    def share(n: int) -> str:
        pct = 100 * n / total
        return "<1 %" if 0 < pct < 0.5 else f"{pct:.0f} %"

    return ", ".join(f"{name} {share(n)}" for name, n in bytes_by_type.items())


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _collapse(values: object) -> object:
    """A per-layer list that is the same everywhere reads better as one number."""
    if isinstance(values, list) and values and all(v == values[0] for v in values):
        return values[0]
    return values


def read_gguf(path: str | os.PathLike[str]) -> GGUFFile:
    """Parse a GGUF file's header; ``ModelLoadError`` for anything malformed or unsupported."""
    file_path = Path(path)
    try:
        mode = file_path.stat().st_mode
        if not stat.S_ISREG(mode):  # reading a pipe or device could block or never end
            kind = "a folder" if stat.S_ISDIR(mode) else "a special file"
            raise ModelLoadError(f"{file_path} is {kind}, not a GGUF file. Give a .gguf file.")
        with file_path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            return _parse(Cursor(file, file_path, size), file_path, size)
    except FileNotFoundError:
        raise ModelNotFound(f"No model file at {file_path}. Give a path to a .gguf file.") from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ModelLoadError(
            f"{file_path} cannot be read ({reason}). Check its permissions."
        ) from None


def _parse(cur: Cursor, path: Path, size: int) -> GGUFFile:
    if size == 0:
        raise cur.error("the file is empty, not a GGUF model")
    head = cur.raw(min(4, size), "the magic number")
    if head != GGUF_MAGIC[: len(head)]:
        raise cur.error(f"not a GGUF file (magic {head!r})")
    if len(head) < 4:
        raise cur.error(f"truncated at byte {size} while reading the magic number")
    version = cur.u32("the version")
    if version not in (2, 3):
        if version == 1:
            raise cur.error("GGUF version 1 is not supported")
        if int.from_bytes(version.to_bytes(4, "little"), "big") in (1, 2, 3):
            raise cur.error("big-endian GGUF files are not supported")
        raise cur.error(f"unsupported GGUF version {version}")
    tensor_count = cur.u64("the tensor count")
    kv_count = cur.u64("the metadata count")
    if tensor_count > MAX_TENSORS:
        raise cur.error(f"tensor count {tensor_count} exceeds the limit of {MAX_TENSORS}")
    if kv_count > MAX_KV_PAIRS:
        raise cur.error(f"metadata count {kv_count} exceeds the limit of {MAX_KV_PAIRS}")
    # Smallest entries: key (8 + 1), type (4), 1-byte value; name (8 + 1), 1 dim, type, offset.
    if kv_count * 14 + tensor_count * 33 > cur.remaining:
        raise cur.error(
            f"{kv_count} metadata entries and {tensor_count} tensors cannot fit in "
            f"the {cur.remaining} bytes after the header"
        )

    metadata: dict[str, object] = {}
    for index in range(kv_count):
        key = cur.string(f"metadata key #{index}")
        if key in metadata:
            raise cur.error(f"duplicate key {key!r}")
        vtype = cur.u32(f"the type of {key!r}")
        metadata[key] = cur.value(vtype, f"the value of {key!r}")

    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not (_is_count(alignment) and alignment.bit_count() == 1):
        raise cur.error(f"general.alignment is {alignment!r}, not a power of two")

    tensors = [_read_tensor_info(cur, index, alignment) for index in range(tensor_count)]
    data_offset = -(-cur.offset // alignment) * alignment
    _check_layout(cur, tensors, data_offset, size)
    return GGUFFile(path, version, size, metadata, tuple(tensors), data_offset)


def _read_tensor_info(cur: Cursor, index: int, alignment: int) -> TensorInfo:
    name = cur.string(f"the name of tensor #{index}")
    label = f"tensor {name!r}"
    if not name or len(name.encode()) > MAX_TENSOR_NAME_BYTES:
        raise cur.error(f"{label} (#{index}) needs a name of 1 to {MAX_TENSOR_NAME_BYTES} bytes")
    n_dims = cur.u32(f"the dimension count of {label}")
    if not 1 <= n_dims <= MAX_DIMS:
        raise cur.error(f"{label} has {n_dims} dimensions; 1 to {MAX_DIMS} are supported")
    shape = tuple(int(d) for d in cur.unpack(struct.Struct(f"<{n_dims}Q"), f"the shape of {label}"))
    for axis, dim in enumerate(shape):
        if dim == 0:
            raise cur.error(f"dimension {axis} of {label} is 0")
    elements = math.prod(shape)
    if elements > _INT64_MAX:
        raise cur.error(f"{label} has {elements} elements, more than a 64-bit count holds")
    ggml_type = cur.u32(f"the type of {label}")
    if ggml_type not in GGML_TYPES:
        raise cur.error(f"unknown ggml type {ggml_type} for {label}")
    type_name, block_size, type_size = GGML_TYPES[ggml_type]
    if shape[0] % block_size:
        blocks = f"{type_name} blocks of {block_size}"
        raise cur.error(f"{label} has a first dimension of {shape[0]}, not a multiple of {blocks}")
    offset = cur.u64(f"the data offset of {label}")
    if offset % alignment:
        raise cur.error(f"{label} data offset {offset} is not a multiple of {alignment}")
    n_bytes = elements // block_size * type_size
    return TensorInfo(name, shape, ggml_type, type_name, offset, n_bytes)


def _check_layout(cur: Cursor, tensors: list[TensorInfo], data_offset: int, size: int) -> None:
    seen: set[str] = set()
    for tensor in tensors:
        if tensor.name in seen:
            raise cur.error(f"duplicate tensor name {tensor.name!r}")
        seen.add(tensor.name)
        end = data_offset + tensor.offset + tensor.n_bytes
        if end > size:
            where = f"byte {end} of {size}"
            raise cur.error(f"tensor {tensor.name!r} data ends past the end of the file ({where})")
    ordered = sorted(tensors, key=lambda t: t.offset)
    for before, after in itertools.pairwise(ordered):
        if after.offset < before.offset + before.n_bytes:
            raise cur.error(f"tensors {before.name!r} and {after.name!r} overlap")


def read_gguf_from(file: BinaryIO, name: str, size: int) -> GGUFFile:
    """Parse a GGUF header from any sequential reader of a file of ``size`` bytes (a remote file
    read by HTTP Range); ``name`` stands for its path in errors. The same checks apply."""
    path = Path(name)
    return _parse(Cursor(file, path, size), path, size)

"""The GGUF header reader: real values from the starter model, synthetic files, hostile input."""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from engine.errors import ModelLoadError, ModelNotFound
from engine.formats.gguf import FILE_TYPES, GGML_TYPES, GGUFFile, read_gguf
from engine.library.names import starter_path
from tests.support.gguf_bytes import (
    ARRAY,
    BOOL,
    STRING,
    T_F32,
    T_Q4_0,
    T_Q8_0,
    U8,
    U32,
    U64,
    Tensor,
    build_gguf,
    floats,
    gguf_string,
    huge_sparse_model,
    model_kvs,
    synthetic,
)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[bytes], Path]:
    def _write(data: bytes, name: str = "model.gguf") -> Path:
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return _write


@pytest.fixture(scope="module")
def starter() -> Path:
    try:
        path = starter_path()
    except ModelNotFound as exc:
        pytest.skip(f"starter model not installed: {exc}")
    if not path.is_file():
        pytest.skip(f"starter model not found at {path}")
    return path


# --- the real starter model -------------------------------------------------------------------


def test_starter_model_header(starter: Path) -> None:
    model = read_gguf(starter)
    assert model.version == 3
    assert model.architecture == "llama"
    assert model.block_count == 30
    assert model.head_count == 9
    assert model.head_count_kv == 3
    assert model.heads_per_layer() == [9] * 30
    assert model.kv_heads_per_layer() == [3] * 30
    assert model.embedding_length == 576
    assert model.context_length == 8192
    assert (model.key_length, model.value_length) == (64, 64)
    assert model.vocab_size == 49152
    assert model.sliding_window is None
    assert model.swa_layers() == [False] * 30
    assert model.quantization() == "Q4_1"
    assert model.tokenizer_model == "gpt2"
    assert model.chat_template is not None and "<|im_start|>" in model.chat_template
    assert model.metadata["tokenizer.ggml.bos_token_id"] == 1
    assert model.metadata["tokenizer.ggml.eos_token_id"] == 2
    assert len(model.tensors) == 272
    assert model.file_size == starter.stat().st_size
    assert model.data_offset % 32 == 0
    assert model.weights_bytes <= model.file_size
    assert model.data_offset + model.weights_bytes <= model.file_size
    # The weights fill the file exactly up to its last byte.
    last_end = max(t.offset + t.n_bytes for t in model.tensors)
    assert model.data_offset + last_end == model.file_size

    summary = model.summary()
    json.dumps(summary)
    assert summary["layers"] == 30 and summary["kv_heads"] == 3 and summary["heads"] == 9
    assert summary["parameters"] == sum(t.n_elements for t in model.tensors)
    assert summary["has_chat_template"] is True


# --- synthetic files ---------------------------------------------------------------------------


def test_synthetic_file_round_trips(write: Callable[[bytes], Path]) -> None:
    path = write(synthetic())
    model = read_gguf(path)
    meta = model.metadata
    assert meta["x.u8"] == 255 and meta["x.i8"] == -128
    assert meta["x.u16"] == 65535 and meta["x.i16"] == -32768
    assert meta["x.i32"] == -5 and meta["x.i64"] == -(1 << 63)
    assert meta["x.f64"] == 0.25 and meta["x.bool"] is True
    assert meta["x.flags"] == [True, False]
    assert meta["x.nested"] == [[1, 2], ["a", "b"]]
    assert meta["tokenizer.ggml.scores"] == [0.0, 0.5, -1.0, 2.0]
    assert meta["llama.rope.freq_base"] == 10000.0
    assert model.name == "tiny" and model.vocab_size == 4
    assert model.heads_per_layer() == [2, 2]
    assert model.kv_heads_per_layer() == [1, 2]
    assert model.head_count_kv == 1
    assert model.key_length == 4 and model.value_length == 4
    embd, norm = model.tensors
    assert (embd.name, embd.shape, embd.type_name, embd.offset, embd.n_bytes) == (
        "token_embd.weight",
        (8, 4),
        "F32",
        0,
        128,
    )
    assert (norm.offset, norm.n_bytes, norm.n_elements) == (128, 32, 8)
    assert model.data_offset % 32 == 0
    raw = path.read_bytes()
    start = model.data_offset + embd.offset
    assert struct.unpack("<32f", raw[start : start + embd.n_bytes]) == tuple(range(32))
    assert model.quantization() == "F32" and model.weights_bytes == 160
    summary = model.summary()
    json.dumps(summary)
    assert summary["kv_heads"] == [1, 2] and summary["heads"] == 2
    assert summary["parameters"] == 40 and summary["vocab_size"] == 4


def test_quantization_counts_bytes_of_matrices_only(write: Callable[[bytes], Path]) -> None:
    q4 = bytes(18 * 2)  # two Q4_0 blocks of 32 values
    tensors: list[Tensor] = [
        ("a.weight", (64, 1), T_Q4_0, q4),
        ("norm1", (64,), T_F32, bytes(256)),
        ("norm2", (64,), T_F32, bytes(256)),
    ]
    model = read_gguf(write(build_gguf(model_kvs(), tensors)))
    assert model.tensors[0].n_bytes == 36
    assert model.quantization() == "Q4_0"


def test_the_declared_file_type_wins_over_the_largest_tensor_type(
    write: Callable[[bytes], Path],
) -> None:
    # A Q4_K_M file whose embedding, the largest matrix, was kept at higher precision.
    tensors: list[Tensor] = [
        ("token_embd.weight", (64, 4), T_Q8_0, bytes(34 * 8)),
        ("blk.0.attn_q.weight", (64, 1), T_Q4_0, bytes(18 * 2)),
    ]
    kvs = [*model_kvs(), ("general.file_type", U32, 15)]
    model = read_gguf(write(build_gguf(kvs, tensors)))
    assert model.file_type() == "Q4_K_M" and model.quantization() == "Q4_K_M"
    assert model.tensor_types() == [("Q8_0", 272), ("Q4_0", 36)]
    assert model.summary()["tensor_types"] == {"Q8_0": 272, "Q4_0": 36}
    unknown = read_gguf(write(build_gguf([*model_kvs(), ("general.file_type", U32, 999)], tensors)))
    assert unknown.file_type() is None and unknown.quantization() == "Q8_0"


def test_file_type_names_match_llama_cpp() -> None:
    gguf = pytest.importorskip("gguf")
    names = {int(t): t.name.removeprefix("MOSTLY_") for t in gguf.LlamaFileType if t < 1024}
    assert names == FILE_TYPES


def test_missing_metadata_is_reported_when_asked(write: Callable[[bytes], Path]) -> None:
    model = read_gguf(write(build_gguf([("general.name", STRING, "x")])))
    with pytest.raises(ModelLoadError, match=r"general\.architecture"):
        _ = model.architecture
    assert model.summary()["layers"] is None and model.quantization() == "none"


@pytest.mark.parametrize(
    ("arch", "layers", "extra", "window", "expected"),
    [
        ("llama", 4, {}, None, [False] * 4),
        ("llama", 4, {"attention__sliding_window": (U32, 4096)}, 4096, [False] * 4),
        ("gemma2", 4, {}, 4096, [True, False, True, False]),
        (
            "gemma3",
            12,
            {"attention__sliding_window": (U32, 512)},
            512,
            [(i + 1) % 6 != 0 for i in range(12)],
        ),
        ("gemma3", 6, {"attention__sliding_window": (U32, 0)}, None, [False] * 6),
        (
            "custom",
            6,
            {
                "attention__sliding_window": (U32, 128),
                "attention__sliding_window_pattern": (U32, 3),
            },
            128,
            [True, True, False, True, True, False],
        ),
        (
            "custom",
            3,
            {
                "attention__sliding_window": (U32, 128),
                "attention__sliding_window_pattern": (ARRAY, (BOOL, [0, 1, 1])),
            },
            128,
            [False, True, True],
        ),
        (
            "gpt-oss",
            3,
            {
                "attention__sliding_window": (U32, 128),
                "attention__sliding_window_pattern": (U32, 0),
            },
            128,
            [True, True, True],
        ),
    ],
)
def test_sliding_window_layers(
    write: Callable[[bytes], Path],
    arch: str,
    layers: int,
    extra: dict[str, tuple[int, object]],
    window: int | None,
    expected: list[bool],
) -> None:
    model = read_gguf(write(build_gguf(model_kvs(arch, layers, **extra))))
    assert model.sliding_window == window
    assert model.swa_layers() == expected


def test_per_layer_head_counts_must_match_the_layer_count(write: Callable[[bytes], Path]) -> None:
    kvs = model_kvs(layers=3, attention__head_count_kv=(ARRAY, (U32, [1, 2])))
    model = read_gguf(write(build_gguf(kvs)))
    with pytest.raises(ModelLoadError, match="2 values for 3 layers"):
        model.kv_heads_per_layer()


# --- malformed input ---------------------------------------------------------------------------

_HEADER = b"GGUF" + struct.pack("<I", 3)


def _tensor_file(shape: tuple[int, ...], ggml_type: int, blob: bytes, offset: int = 0) -> bytes:
    entry = gguf_string("w") + struct.pack(
        f"<I{len(shape)}QIQ", len(shape), *shape, ggml_type, offset
    )
    header = _HEADER + struct.pack("<QQ", 1, 0) + entry
    return header + bytes(-len(header) % 32) + blob


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04" + bytes(100), r"not a GGUF file \(magic b'PK\\x03\\x04'\)"),
        (b"", "empty"),
        (b"hello, this is a text file\n" * 4, "not a GGUF file"),
        (b"GG", "truncated at byte 2"),
        (b"GGUF" + struct.pack("<IQQ", 1, 0, 0), "version 1 is not supported"),
        (b"GGUF" + struct.pack("<IQQ", 99, 0, 0), "unsupported GGUF version 99"),
        (b"GGUF" + struct.pack(">IQQ", 3, 0, 0), "big-endian"),
        (_HEADER + struct.pack("<QQ", 1 << 63, 0), f"tensor count {1 << 63} exceeds"),
        (_HEADER + struct.pack("<QQ", 0, 1 << 40), "metadata count"),
        (_HEADER + struct.pack("<QQ", 0, 10) + bytes(100), "cannot fit"),
        (_HEADER + struct.pack("<QQQ", 0, 1, 1 << 60) + bytes(64), f"string length {1 << 60}"),
        (_HEADER + struct.pack("<QQ", 0, 1) + gguf_string(b"bad\xff") + bytes(8), "invalid UTF-8"),
        (build_gguf([("k", U8, 1), ("k", U8, 2)]), "duplicate key 'k'"),
        (
            _HEADER
            + struct.pack("<QQ", 0, 1)
            + gguf_string("k")
            + struct.pack("<I", 13)
            + bytes(8),
            "unknown value type 13",
        ),
        (build_gguf([("k", BOOL, 2)]), "not a boolean"),
        (build_gguf([("k", ARRAY, (77, []))]), "unknown item type 77"),
        (build_gguf([("k", ARRAY, (ARRAY, [(ARRAY, [(U8, [])])]))]), "more than one level"),
        (build_gguf([("general.alignment", U32, 24)]), "not a power of two"),
        (
            _HEADER
            + struct.pack("<QQ", 0, 1)
            + gguf_string("k")
            + struct.pack("<IIQ", ARRAY, U32, 1 << 40),
            "claims",
        ),
        (
            _HEADER + struct.pack("<QQ", 0, 1) + gguf_string("k") + struct.pack("<I", U64) + b"\0",
            "truncated at byte",
        ),
        (_tensor_file((8, 4), T_F32, floats(*range(31))), "'w' data ends past the end of the file"),
        (_tensor_file((8,), 999, bytes(32)), "unknown ggml type 999 for tensor 'w'"),
        (_tensor_file((8, 0), T_F32, bytes(32)), "dimension 1 of tensor 'w' is 0"),
        (
            _tensor_file((16,), T_Q4_0, bytes(32)),
            "first dimension of 16, not a multiple of Q4_0 blocks of 32",
        ),
        (_tensor_file((8,), T_F32, bytes(64), offset=8), "not a multiple of 32"),
        (_tensor_file((1,) * 9, T_F32, bytes(32)), "9 dimensions"),
        (_tensor_file((1 << 32, 1 << 32), T_F32, bytes(32)), "more than a 64-bit count"),
    ],
    ids=lambda value: value if isinstance(value, str) else "data",
)
def test_malformed_files_are_rejected(
    write: Callable[[bytes], Path], data: bytes, message: str
) -> None:
    path = write(data)
    with pytest.raises(ModelLoadError, match=message) as caught:
        read_gguf(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("tensors", "message"),
    [
        ([("w", (8,), T_F32, bytes(32)), ("w", (8,), T_F32, bytes(32))], "duplicate tensor name"),
        ([("x" * 64, (8,), T_F32, bytes(32))], "needs a name of 1 to 63 bytes"),
    ],
)
def test_bad_tensor_tables_are_rejected(
    write: Callable[[bytes], Path], tensors: list[Tensor], message: str
) -> None:
    with pytest.raises(ModelLoadError, match=message):
        read_gguf(write(build_gguf([], tensors)))


def test_overlapping_tensors_are_rejected(write: Callable[[bytes], Path]) -> None:
    entries = b"".join(
        gguf_string(name) + struct.pack("<IQIQ", 1, 16, T_F32, 0) for name in ("a", "b")
    )
    header = _HEADER + struct.pack("<QQ", 2, 0) + entries
    data = header + bytes(-len(header) % 32) + bytes(64)
    with pytest.raises(ModelLoadError, match="overlap"):
        read_gguf(write(data))


def test_folder_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="folder"):
        read_gguf(tmp_path)
    with pytest.raises(ModelNotFound):
        read_gguf(tmp_path / "absent.gguf")


def test_type_table_matches_ggml() -> None:
    expected = {"F32": (0, 1, 4), "Q4_1": (3, 32, 20), "Q8_0": (8, 32, 34), "Q6_K": (14, 256, 210)}
    expected |= {"IQ4_XS": (23, 256, 136), "BF16": (30, 1, 2), "MXFP4": (39, 32, 17)}
    by_name = {name: (code, block, size) for code, (name, block, size) in GGML_TYPES.items()}
    assert {name: by_name[name] for name in expected} == expected
    assert len(GGML_TYPES) == 32


# --- fuzzing -----------------------------------------------------------------------------------

_HUGE = (1 << 64) - 1, 1 << 63, 1 << 60, 1 << 40, 1 << 32, 0xFFFFFFFF


def _mutate(seed: bytes, rng: random.Random, hot: Sequence[range]) -> bytes:
    data = bytearray(seed)
    region = rng.choice(hot)
    at = rng.randrange(region.start, min(region.stop, len(data)))
    kind = rng.randrange(6)
    if kind == 0:
        data[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        data[at] = rng.randrange(256)
    elif kind == 2:
        data[at : at + 8] = struct.pack("<Q", rng.choice(_HUGE))
    elif kind == 3:
        data[at : at + 4] = struct.pack("<I", rng.randrange(1 << 32) if rng.random() < 0.5 else 13)
    elif kind == 4:
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 17)))
    else:
        del data[at : at + rng.randrange(1, 17)]
    return bytes(data)


def _run_fuzz(cases: Sequence[bytes], tmp_path: Path) -> tuple[int, int]:
    target = tmp_path / "fuzz.gguf"
    loaded = rejected = 0
    for index, data in enumerate(cases):
        target.write_bytes(data)
        try:
            result = read_gguf(target)
        except ModelLoadError:
            rejected += 1
        except Exception as exc:
            pytest.fail(f"case {index} raised {exc!r} instead of ModelLoadError")
        else:
            assert isinstance(result, GGUFFile)
            loaded += 1
    return loaded, rejected


@pytest.mark.slow
def test_fuzz_starter_header(starter: Path, tmp_path: Path) -> None:
    model = read_gguf(starter)
    with starter.open("rb") as file:
        seed = file.read(model.data_offset + 4096)
    prefix = tmp_path / "prefix.gguf"
    prefix.write_bytes(seed)
    with pytest.raises(ModelLoadError, match="past the end of the file"):
        read_gguf(prefix)
    # The same header claiming no tensors is a complete file, so its mutants can load.
    bare = seed[:8] + struct.pack("<Q", 0) + seed[16:]
    prefix.write_bytes(bare)
    assert read_gguf(prefix).tensors == ()

    tokens = seed.find(b"tokenizer.ggml.tokens")
    merges = seed.find(b"tokenizer.ggml.merges")
    table = seed.rfind(gguf_string(model.tensors[0].name))
    assert 0 < tokens < merges < table < model.data_offset

    def spread(data: bytes, start: int, stop: int, count: int) -> list[bytes]:
        return [data[: start + i * (stop - start) // count] for i in range(count)]

    # Every byte of the fixed header, then cuts across the small keys, the vocabulary and the
    # tensor table (cuts late in the file are the costly ones: the whole vocabulary is parsed).
    cases = [seed[:cut] for cut in range(64)] + spread(bare, 16, tokens + 64, 100)
    cases += spread(seed, tokens + 64, table, 40) + spread(seed, table, len(seed), 40)
    # Structure lives in the keys before the vocabulary, around the array headers and in the
    # tensor table; the vocabulary's middle is only string bytes.
    rng = random.Random(20240611)
    keys, around_merges = range(0, tokens + 64), range(merges - 32, merges + 64)
    hot = [keys, around_merges, range(table - 512, len(seed)), range(len(seed))]
    cases += [_mutate(seed, rng, hot) for _ in range(150)]
    cases += [_mutate(bare, rng, [keys, around_merges]) for _ in range(120)]
    assert len(cases) >= 500
    loaded, rejected = _run_fuzz(cases, tmp_path)
    assert loaded > 0 and rejected > 0


def test_fuzz_synthetic_file(tmp_path: Path) -> None:
    seed = synthetic()
    rng = random.Random(7)
    truncated = [seed[:cut] for cut in range(len(seed))]
    mutated = [_mutate(seed, rng, [range(len(seed))]) for _ in range(800)]
    loaded, rejected = _run_fuzz(truncated, tmp_path)
    assert loaded == 0 and rejected == len(truncated)
    loaded, rejected = _run_fuzz(mutated, tmp_path)
    # Both outcomes must be exercised for the fuzzing to mean anything.
    assert loaded >= 50 and rejected >= 50


def test_huge_sparse_model_reads_as_huge(tmp_path: Path) -> None:
    info = read_gguf(huge_sparse_model(tmp_path, gib=64))
    assert info.weights_bytes >= 64 * (1 << 30)

"""Write small GGUF models with random weights, shaped like the architectures people download.

The files load and run in llama.cpp (the weights are noise, so the text is too): they are for
checking what the runtime allocates against what the planner predicts, not for what a model says.
Built with the ``gguf`` package's writer (llama.cpp's own), so the layout is the reference one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType, quants

# SentencePiece token types (llama.cpp's llama_token_type).
_NORMAL, _UNKNOWN, _CONTROL, _BYTE = 1, 2, 3, 6
_WORDS = "the quick brown fox jumps over lazy dog and a of to in is it you that he was for on are"


@dataclass(frozen=True, slots=True)
class Shape:
    """One architecture's hyperparameters. Lists in ``extra`` become per-layer arrays."""

    arch: str
    layers: int = 4
    embd: int = 128
    heads: int = 4
    kv_heads: int = 2
    head_dim: int = 32
    ff: int = 256
    vocab: int = 1024
    window: int | None = None
    swa_pattern: int | None = None  # written as {arch}.attention.sliding_window_pattern
    experts: int = 0
    experts_used: int = 0
    expert_ff: int = 0
    context: int = 32768
    # Token strings are padded to this many characters: real vocabularies average 6 to 10.
    token_chars: int = 0
    extra: dict[str, object] = field(default_factory=dict)
    # Control tokens added to the vocabulary (a vision model's image markers).
    specials: tuple[str, ...] = ()


# The architectures Cove plans for, at toy size. gemma3 gets 8 layers so that its fixed period of
# 6 leaves both kinds; mistral (converted as "llama") and phi3 files declare a window that
# llama.cpp does not use.
MATRIX: dict[str, Shape] = {
    "llama": Shape("llama"),
    "mistral-window": Shape("llama", window=4096),
    "qwen2": Shape("qwen2"),
    "qwen3": Shape("qwen3", head_dim=64),
    "gemma": Shape("gemma", kv_heads=1, head_dim=64),
    "gemma2": Shape("gemma2", window=256, head_dim=64),
    "gemma3": Shape("gemma3", layers=8, window=256, kv_heads=1, head_dim=64, vocab=4096),
    "phi3": Shape("phi3", heads=4, kv_heads=4, window=2047),
    "qwen3moe": Shape("qwen3moe", experts=8, experts_used=2, expert_ff=64),
}

# Gemma 3 270M: 18 layers, every 6th global, a 512-token window, a 262,144-token vocabulary.
GEMMA3_270M = Shape(
    "gemma3",
    layers=18,
    embd=640,
    heads=4,
    kv_heads=1,
    head_dim=256,
    ff=2048,
    vocab=262144,
    window=512,
    token_chars=7,
)


# The tiny models' chat format: a turn is the role's token, a newline, the text and a newline.
TINY_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def write_model(
    path: Path,
    shape: Shape,
    *,
    file_type: LlamaFileType = LlamaFileType.MOSTLY_F16,
    seed: int = 0,
    sparse: bool = False,
    chat_template: str = TINY_TEMPLATE,
) -> Path:
    """A loadable GGUF of ``shape``; matrices are F16, or Q8_0 for ``MOSTLY_Q8_0``. Its chat
    template is ``chat_template``.

    ``sparse`` leaves the weights as a hole in the file (zeros that take no disk): enough for
    llama.cpp to lay out a full-size model, with ``no_alloc``, without writing gigabytes.
    """
    rng = np.random.default_rng(seed)
    writer = GGUFWriter(str(path), shape.arch)
    _metadata(writer, shape, file_type, chat_template)
    if sparse:
        return _write_sparse(writer, path, shape)
    quantized = file_type == LlamaFileType.MOSTLY_Q8_0
    for name, dims in _tensors(shape):
        data = rng.standard_normal(dims, dtype=np.float32) * 0.02
        if len(dims) == 1:
            writer.add_tensor(name, np.ones(dims, dtype=np.float32))
        elif quantized and dims[-1] % 32 == 0:
            q8 = GGMLQuantizationType.Q8_0
            writer.add_tensor(name, quants.quantize(data, q8), raw_dtype=q8)
        else:
            writer.add_tensor(name, data.astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _write_sparse(writer: GGUFWriter, path: Path, shape: Shape) -> Path:
    for name, dims in _tensors(shape):
        dtype = np.dtype(np.float32 if len(dims) == 1 else np.float16)
        nbytes = int(np.prod(dims)) * dtype.itemsize
        writer.add_tensor_info(name, dims, dtype, nbytes)
    return finish_sparse(writer, path)


def finish_sparse(writer: GGUFWriter, path: Path) -> Path:
    """Write the header and tensor table declared in ``writer``, and leave the tensors' data
    as a hole of the right size at the end of the file."""
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    align = writer.data_alignment
    data = sum(ti.nbytes + (-ti.nbytes % align) for part in writer.tensors for ti in part.values())
    writer.close()
    header = path.stat().st_size
    end = header + (-header % align) + data
    with path.open("r+b") as f:
        f.truncate(end)
    return path


def with_vocab(shape: Shape, vocab: int, token_chars: int = 7) -> Shape:
    return replace(shape, vocab=vocab, token_chars=token_chars)


def _metadata(w: GGUFWriter, s: Shape, file_type: LlamaFileType, chat_template: str) -> None:
    a = s.arch
    w.add_name(f"tiny {a}")
    w.add_file_type(int(file_type))
    w.add_block_count(s.layers)
    w.add_context_length(s.context)
    w.add_embedding_length(s.embd)
    w.add_feed_forward_length(s.ff)
    w.add_head_count(s.heads)
    w.add_head_count_kv(s.kv_heads)
    w.add_key_length(s.head_dim)
    w.add_value_length(s.head_dim)
    w.add_rope_dimension_count(s.head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    if s.window:
        w.add_sliding_window(s.window)
    if s.swa_pattern is not None:
        w.add_uint32(f"{a}.attention.sliding_window_pattern", s.swa_pattern)
    if s.experts:
        w.add_expert_count(s.experts)
        w.add_expert_used_count(s.experts_used)
        w.add_expert_feed_forward_length(s.expert_ff)
    for key, value in s.extra.items():
        if isinstance(value, float):
            w.add_float32(f"{a}.{key}", value)
        else:
            w.add_uint32(f"{a}.{key}", int(value))  # type: ignore[call-overload]
    tokens, scores, types = _vocabulary(s.vocab, s.token_chars, s.specials)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_chat_template(chat_template)


def _vocabulary(
    size: int, chars: int, extra: tuple[str, ...] = ()
) -> tuple[list[str], list[float], list[int]]:
    """SentencePiece-style: control tokens, the 256 byte tokens, some words, then filler."""
    tokens = ["<unk>", "<s>", "</s>"]
    types = [_UNKNOWN, _CONTROL, _CONTROL]
    specials = ["<|end|>", "<|endoftext|>", "<|user|>", "<|assistant|>", "<|system|>", *extra]
    tokens += specials
    types += [_CONTROL] * len(specials)
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [_BYTE] * 256
    words = ["▁" + w for w in _WORDS.split()] + list("abcdefghijklmnopqrstuvwxyz▁")
    for word in words:
        if len(tokens) < size:
            tokens.append(word)
            types.append(_NORMAL)
    i = 0
    while len(tokens) < size:
        tokens.append(f"▁w{i}".ljust(chars, "x"))
        types.append(_NORMAL)
        i += 1
    scores = [-float(i) for i in range(len(tokens))]
    return tokens[:size], scores[:size], types[:size]


def _tensors(s: Shape) -> Iterator[tuple[str, tuple[int, ...]]]:
    """(name, numpy shape) of each tensor; numpy order is GGUF's reversed (rows, columns)."""
    e, q, kv, ff = s.embd, s.heads * s.head_dim, s.kv_heads * s.head_dim, s.ff
    yield "token_embd.weight", (s.vocab, e)
    yield "output_norm.weight", (e,)
    if not s.arch.startswith("gemma"):
        yield "output.weight", (s.vocab, e)
    for i in range(s.layers):
        b = f"blk.{i}"
        yield f"{b}.attn_norm.weight", (e,)
        if s.arch == "phi3":
            yield f"{b}.attn_qkv.weight", (q + 2 * kv, e)
        else:
            yield f"{b}.attn_q.weight", (q, e)
            yield f"{b}.attn_k.weight", (kv, e)
            yield f"{b}.attn_v.weight", (kv, e)
        yield f"{b}.attn_output.weight", (e, q)
        if s.arch == "qwen2":
            yield f"{b}.attn_q.bias", (q,)
            yield f"{b}.attn_k.bias", (kv,)
            yield f"{b}.attn_v.bias", (kv,)
        if s.arch in ("qwen3", "qwen3moe", "gemma3"):
            yield f"{b}.attn_q_norm.weight", (s.head_dim,)
            yield f"{b}.attn_k_norm.weight", (s.head_dim,)
        if s.arch in ("gemma2", "gemma3"):
            yield f"{b}.post_attention_norm.weight", (e,)
            yield f"{b}.post_ffw_norm.weight", (e,)
        yield f"{b}.ffn_norm.weight", (e,)
        if s.experts:
            n, eff = s.experts, s.expert_ff
            yield f"{b}.ffn_gate_inp.weight", (n, e)
            yield f"{b}.ffn_gate_exps.weight", (n, eff, e)
            yield f"{b}.ffn_up_exps.weight", (n, eff, e)
            yield f"{b}.ffn_down_exps.weight", (n, e, eff)
        elif s.arch == "phi3":
            yield f"{b}.ffn_up.weight", (2 * ff, e)
            yield f"{b}.ffn_down.weight", (e, ff)
        else:
            yield f"{b}.ffn_gate.weight", (ff, e)
            yield f"{b}.ffn_up.weight", (ff, e)
            yield f"{b}.ffn_down.weight", (e, ff)

"""One GGUF model loaded on llama.cpp (CPU, CUDA, Metal, Vulkan — whatever the installed build
offloads to): its weights, its one context, its vocabulary, the KV cache's memory and a vision
model's projector. Exactly one per load; the replies generate on its sequences
(engine/backends/llama/sequence.py), one for a model that answers one at a time, several for one
that batches them (engine/backends/llama/parallel.py).

Built on llama-cpp-python's low-level bindings rather than its ``Llama`` class, for three reasons:
sampling stays in llama.cpp's native sampler chain (no per-token copy of the logits into Python),
cancellation is checked per prompt batch *and* inside a batch through llama.cpp's abort callback,
and the KV cache is reused token-for-token across the turns of a conversation.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.backends.base import LoadProgress
from engine.backends.llama.failures import native_failure
from engine.backends.llama.prompt import text_tokens
from engine.backends.llama.vision import Vision
from engine.capabilities import Capabilities
from engine.errors import (
    EngineBusy,
    EngineError,
    InvalidRequest,
    LoadCancelled,
    ModelLoadError,
    ModelNotFound,
)
from engine.formats.gguf import GGUFFile, read_gguf
from engine.generation.state_cache import state_key
from engine.native import compute
from engine.native.llama import clear_log, has_amx, native, route_mtmd_log
from engine.native.lock import GGML_LOCK
from engine.native.threadpool import ThreadPool, attach_threadpool
from engine.planner.plan import Plan
from engine.templates import ChatTemplate, choose_template

# ggml type ids for the KV cache types the planner may choose.
_KV_GGML_TYPE = {"f16": 1, "q8_0": 8, "q4_0": 2}
# Evaluated at load to compare a batch with single steps (see _batches_match_steps).
_PROBE_TEXT = "def mean(values):\n    return sum(values) / len(values)\n"
_PROBE_TOKENS = 8
# How far the probe's verdict holds. llama.cpp sizes the attention over the cache in blocks of 256
# cells; past the first block, one query and a batch of queries are summed in different orders
# on the CPU, with or without flash attention (logits apart by 0.3 to 1.3 for SmolLM2 135M at 300
# to 2000 cached tokens, measured with this build), so guesses checked there could flip a
# near-tie.
EXACT_CELLS = 256
RUNTIME = "llama.cpp"


class _BuftOverride(ctypes.Structure):
    """``struct llama_model_tensor_buft_override`` (llama.h): tensors whose name matches
    ``pattern`` (std::regex_search) go in buffers of type ``buft``."""

    _fields_ = (("pattern", ctypes.c_char_p), ("buft", ctypes.c_void_p))


# The output head and its norm: llama.cpp assigns them to the last offload device, which for a
# model split across machines would send the logits (4 bytes x the vocabulary, 0.6 MB for Qwen2.5)
# over the network for every token. Kept on this machine's CPU, the hidden state crosses instead
# (4 bytes x the embedding width). A tied head is named after the input embeddings.
HEAD_PATTERN = rb"^(output|output_norm|token_embd)\."


def _head_on_cpu() -> ctypes.Array[_BuftOverride]:
    from engine.native.rpc import cpu_buffer_type

    return (_BuftOverride * 2)(_BuftOverride(HEAD_PATTERN, cpu_buffer_type()), _BuftOverride())


class LlamaModel:
    """A resident GGUF model with one context of ``sequences`` sequences, each with a cache of
    ``plan.n_ctx`` tokens. ``close()`` waits for whoever holds it (``held``), then frees it."""

    def __init__(
        self,
        path: Path,
        plan: Plan,
        *,
        progress: LoadProgress | None = None,
        sequences: int = 1,
    ) -> None:
        # Validate the file in Python first: malformed input never reaches native code. The
        # parsed header (the whole vocabulary as Python objects) is not kept.
        info = read_gguf(path)
        stat = path.stat()
        self.file_id = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        self.name = info.name or path.stem
        self.architecture = info.architecture
        self.template: ChatTemplate = choose_template(
            embedded=info.chat_template,
            architecture=info.architecture,
            tokens=_tokens_of(info),
            model_name=info.name,
        )
        del info
        self.plan = plan
        self.n_batch = plan.n_batch
        # Held by whoever works on the weights (a reply of a model that answers one at a time,
        # a measurement); ``close()`` sets the holder's event and waits for it.
        self.lock = threading.Lock()
        self._holder_cancel = threading.Event()
        self._closed = False
        self.lib = lib = native()
        self.handle: Any = None  # the native model
        self.ctx: Any = None
        self.batch: Any = None
        self._pool: ThreadPool | None = None
        self.projector: Vision | None = None
        self._load(path, plan, progress)
        self.ctx = self._context(plan, sequences)
        # One set of worker threads for the context's life, as llama.cpp's own tools keep:
        # without it ggml starts and joins its threads for every token.
        self._pool = attach_threadpool(lib, self.ctx, plan.threads)
        self.vocab = lib.llama_model_get_vocab(self.handle)
        self.mem = lib.llama_get_memory(self.ctx)
        self.n_ctx = int(lib.llama_n_ctx_seq(self.ctx))
        self.n_vocab = int(lib.llama_vocab_n_tokens(self.vocab))
        self.window = 0 if plan.swa_full else int(lib.llama_model_n_swa(self.handle))
        self.batch = lib.llama_batch_init(plan.n_batch, 0, 1)
        self._pieces: dict[int, bytes] = {}
        # Found on first use, shared by the model's sequences.
        self._ends: frozenset[int] | None = None
        self.bos_text = self._token_text(lib.llama_vocab_bos(self.vocab))
        self.eos_text = self._token_text(lib.llama_vocab_eos(self.vocab))
        self._add_bos = bool(lib.llama_vocab_get_add_bos(self.vocab))
        bos = int(lib.llama_vocab_bos(self.vocab))
        self.bos_token = bos if bos >= 0 else None
        self.stop_tokens = self._template_stop_tokens()
        exact = EXACT_CELLS if self._batches_match_steps() else 0
        if plan.projector is not None:
            self._load_projector(Path(plan.projector.path), plan)
        self.capabilities = Capabilities(
            runtime=RUNTIME,
            constrains=True,
            scores_prompts=True,
            vision=self.projector is not None,
            exact_cells=exact,
            sequences=sequences,
        )

    def _load(self, path: Path, plan: Plan, progress: LoadProgress | None) -> None:
        lib = self.lib
        mparams = lib.llama_model_default_params()
        mparams.n_gpu_layers = plan.gpu_layers
        if plan.tensor_split:
            # Layers per device for a model split across machines (engine/remote/split.py);
            # llama.cpp reads the array while it loads.
            slots = int(lib.llama_max_devices())
            shares = [float(n) for n in plan.tensor_split[:slots]]
            self._tensor_split = (ctypes.c_float * slots)(*shares, *[0.0] * (slots - len(shares)))
            mparams.tensor_split = self._tensor_split
            self._overrides = _head_on_cpu()
            mparams.tensor_buft_overrides = ctypes.addressof(self._overrides)
        mparams.load_mode = lib.LLAMA_LOAD_MODE_MMAP
        # llama.cpp's AMX weight buffers crash in their first matrix product on some Xeon
        # (Sapphire Rapids) machines (ggml-org/llama.cpp#20824); a build with AMX compiled in
        # loads the weights in ordinary buffers instead. Cove's own setup builds without AMX.
        mparams.use_extra_bufts = not has_amx(lib)
        cancelled = False
        if progress is not None:

            def on_progress(fraction: float, _data: Any) -> bool:
                nonlocal cancelled
                cancelled = not progress(float(fraction))
                return not cancelled

            # Referenced until the load returns: llama.cpp calls it from the loading thread.
            callback = lib.llama_progress_callback(on_progress)
            mparams.progress_callback = callback
        clear_log()
        with GGML_LOCK:  # the device registry is read while the model loads
            self.handle = lib.llama_model_load_from_file(str(path).encode(), mparams)
        if not self.handle:
            if cancelled:
                raise LoadCancelled(f"Loading {path.name} was cancelled.")
            raise ModelLoadError(native_failure(f"llama.cpp could not load {path.name}"))

    def _context(self, plan: Plan, sequences: int) -> Any:
        lib = self.lib
        with GGML_LOCK:
            ctx = lib.llama_init_from_model(self.handle, self.context_params(plan.n_ctx, sequences))
        if not ctx:
            lib.llama_model_free(self.handle)
            self.handle = None
            raise ModelLoadError(
                native_failure(f"llama.cpp could not create a {plan.n_ctx}-token context")
            )
        return ctx

    def _load_projector(self, projector: Path, plan: Plan) -> None:
        route_mtmd_log()
        try:
            self.projector = Vision(
                self.lib, self.handle, projector, plan.threads, plan.gpu_layers > 0
            )
        except Exception:
            self.close()
            raise

    @property
    def adds_bos(self) -> bool:
        """Whether a text's tokens start with the beginning-of-sequence token (the model's
        metadata says so)."""
        return self._add_bos

    @property
    def path(self) -> Path:
        """The model's file, resolved."""
        return Path(self.file_id[0])

    @property
    def closed(self) -> bool:
        return self._closed

    def context_params(self, n_ctx: int, sequences: int) -> Any:
        """llama.cpp's parameters for a context of this model as planned: ``sequences`` each
        with a cache of ``n_ctx`` tokens (not one shared cache: attention then reads only a
        sequence's own cells)."""
        lib, plan = self.lib, self.plan
        cparams = lib.llama_context_default_params()
        cparams.n_ctx = n_ctx * sequences
        cparams.n_seq_max = sequences
        cparams.kv_unified = False
        cparams.n_batch = plan.n_batch
        cparams.n_ubatch = plan.n_ubatch
        cparams.n_threads = plan.threads
        cparams.n_threads_batch = plan.threads
        cparams.flash_attn_type = (
            lib.LLAMA_FLASH_ATTN_TYPE_AUTO
            if plan.flash_attn
            else lib.LLAMA_FLASH_ATTN_TYPE_DISABLED
        )
        cparams.type_k = cparams.type_v = _KV_GGML_TYPE[plan.kv_type]
        cparams.swa_full = plan.swa_full  # the planner sized the sliding-window cache for this
        return cparams

    # -- the vocabulary --------------------------------------------------------------------------

    def tokenize(
        self, text: str, *, special: bool = True, add_bos: bool | None = None
    ) -> list[int]:
        """Token ids of ``text``. BOS is added when the model wants it, unless the text (a
        rendered template) already starts with it."""
        self.check_open()
        return text_tokens(self, text, special=special, add_bos=add_bos)

    def tokenize_native(self, data: bytes, add_bos: bool, special: bool) -> list[int]:
        """llama.cpp's tokens of ``data`` as they are."""
        lib = self.lib
        cap = len(data) + 8
        buf = (lib.llama_token * cap)()
        n = lib.llama_tokenize(self.vocab, data, len(data), buf, cap, add_bos, special)
        if n < 0:
            cap = -n
            buf = (lib.llama_token * cap)()
            n = lib.llama_tokenize(self.vocab, data, len(data), buf, cap, add_bos, special)
        return list(buf[:n])

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of token ids (special tokens as nothing, as a reply's text shows them)."""
        self.check_open()
        self.check_tokens(ids)
        return b"".join(self.piece(t) for t in ids).decode("utf-8", "replace")

    def check_tokens(self, ids: Sequence[int]) -> None:
        """Refuse token ids outside the vocabulary."""
        n_vocab = self.n_vocab
        for token in ids:
            if not 0 <= token < n_vocab:
                raise InvalidRequest(
                    f"'prompt': token {token} is not in this model's vocabulary ({n_vocab} "
                    f"tokens, 0 to {n_vocab - 1})."
                )

    def piece(self, token: int) -> bytes:
        """The bytes a token stands for."""
        piece = self._pieces.get(token)
        if piece is None:
            # A buffer of its own: the sequences of a batching model detokenize in their threads.
            buf = ctypes.create_string_buffer(256)
            n = self.lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
            if n < 0:
                buf = ctypes.create_string_buffer(-n)
                n = self.lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
            piece = buf.raw[:n]
            self._pieces[token] = piece
        return piece

    def is_end(self, token: int) -> bool:
        """End of generation: the vocabulary's end tokens and the template's end-of-turn."""
        return bool(self.lib.llama_vocab_is_eog(self.vocab, token)) or token in self.stop_tokens

    def end_tokens(self) -> frozenset[int]:
        """Every token that ends a reply: llama.cpp's end-of-generation tokens and the template's
        own stop tokens."""
        ends = self._ends
        if ends is None:  # found once per model: 150k calls take about 50 ms
            is_eog = self.lib.llama_vocab_is_eog
            ends = frozenset(t for t in range(self.n_vocab) if is_eog(self.vocab, t))
            self._ends = ends
        return ends | self.stop_tokens

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        raw = self.lib.llama_vocab_get_text(self.vocab, token)
        return raw.decode("utf-8", "replace") if raw else ""

    def _template_stop_tokens(self) -> frozenset[int]:
        """End-of-turn markers of the chat template that the vocabulary does not flag as
        end-of-generation (files converted with incomplete metadata)."""
        found = set()
        for marker in self.template.stop:
            ids = self.tokenize(marker, add_bos=False)
            if len(ids) == 1:
                found.add(ids[0])
        return frozenset(found)

    # -- the context -----------------------------------------------------------------------------

    def evaluate(
        self, seq: int, tokens: list[int], pos0: int, *, logits_last: bool, logits_all: bool
    ) -> int:
        """Evaluate ``tokens`` at positions from ``pos0`` in sequence ``seq`` with the model's
        own batch: llama.cpp's return code (0: done; 2: aborted)."""
        batch = self.batch
        n = len(tokens)
        for i, tok in enumerate(tokens):
            batch.token[i] = tok
            batch.pos[i] = pos0 + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = 1 if logits_all else 0
        batch.logits[n - 1] = 1 if logits_last or logits_all else 0
        batch.n_tokens = n
        return int(compute.run(self.lib.llama_decode, self.ctx, batch))

    def logits(self, row: int) -> Any:
        """Row ``row`` of the context's output logits, in place (valid until the next
        evaluation)."""
        import numpy as np

        return np.ctypeslib.as_array(
            self.lib.llama_get_logits_ith(self.ctx, row), shape=(self.n_vocab,)
        )

    def drop(self, seq: int, start: int, end: int = -1) -> bool:
        """Remove sequence ``seq``'s cells from position ``start`` to ``end`` (-1: all on)."""
        return bool(self.lib.llama_memory_seq_rm(self.mem, seq, start, end))

    def oldest(self, seq: int) -> int:
        """The oldest position sequence ``seq`` holds."""
        return int(self.lib.llama_memory_seq_pos_min(self.mem, seq))

    def copy_cells(self, source: int, target: int, length: int) -> None:
        """Put sequence ``source``'s first ``length`` cells in sequence ``target``'s place."""
        lib = self.lib
        lib.llama_memory_seq_cp(self.mem, source, target, -1, -1)
        lib.llama_memory_seq_rm(self.mem, target, length, -1)

    @contextlib.contextmanager
    def aborting(self, cancel: threading.Event) -> Iterator[None]:
        """llama.cpp polls ``cancel`` between graph nodes while this is held (a prompt's
        evaluation): single-token decoding does not pay a Python call per node."""
        lib = self.lib
        callback = lib.ggml_abort_callback(lambda _data: cancel.is_set())
        lib.llama_set_abort_callback(self.ctx, callback, None)
        try:
            yield
        finally:
            lib.llama_set_abort_callback(self.ctx, lib.ggml_abort_callback(), None)

    def state_key(self) -> str:
        """What a saved state of a sequence of this model depends on
        (engine/generation/state_cache.py)."""
        plan = self.plan
        # Cached images are the projector's embeddings: another projector, another state.
        projector = () if plan.projector is None else (plan.projector.path,)
        return state_key(
            RUNTIME,
            getattr(self.lib, "__version__", "?"),
            *self.file_id,
            self.n_ctx,
            plan.kv_type,
            plan.flash_attn,
            plan.swa_full,
            *projector,
        )

    def state_bytes(self, seq: int) -> memoryview:
        """Sequence ``seq``'s saved state."""
        lib = self.lib
        size = int(lib.llama_state_seq_get_size(self.ctx, seq))
        buf = (ctypes.c_uint8 * size)()
        written = int(lib.llama_state_seq_get_data(self.ctx, buf, size, seq))
        return memoryview(buf).cast("B")[:written]

    def restore_state(self, seq: int, data: bytes) -> bool:
        """Replace sequence ``seq``'s cells with a saved state; False (and nothing cached) when
        llama.cpp refuses it."""
        lib = self.lib
        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        self.drop(seq, -1)
        if int(lib.llama_state_seq_set_data(self.ctx, buf, len(data), seq)) == 0:
            self.drop(seq, -1)
            return False
        return True

    def _batches_match_steps(self) -> bool:
        """Whether this build evaluates a short batch bit for bit as it evaluates the same tokens
        one at a time. Kernels for one row and for many may sum in different orders (a repacked
        quantisation, a GPU's batched matrix product): then checking guesses in a batch could
        flip a near-tie, and speculation stays off unless asked for (``speculation: on``)."""
        import numpy as np

        tokens = self.tokenize(_PROBE_TEXT, add_bos=False)[:_PROBE_TOKENS]
        head, tail = tokens[:2], tokens[2:]
        try:
            if self.evaluate(0, head, 0, logits_last=True, logits_all=False) != 0:
                return False
            steps = []
            for i, t in enumerate(tail):
                if self.evaluate(0, [t], len(head) + i, logits_last=True, logits_all=False):
                    return False
                steps.append(self.logits(-1).copy())
            self.drop(0, len(head))
            if self.evaluate(0, tail, len(head), logits_last=True, logits_all=True) != 0:
                return False
            return all(np.array_equal(self.logits(i), row) for i, row in enumerate(steps))
        except EngineError:
            return False
        finally:
            self.drop(0, -1)

    # -- its life --------------------------------------------------------------------------------

    def check_open(self) -> None:
        if self._closed:
            raise ModelNotFound("The model was unloaded. Load it again to continue.")

    @contextlib.contextmanager
    def held(self) -> Iterator[threading.Event]:
        """The model held for other work on its weights (a measurement): ``close()`` sets the
        event it yields and waits for it to let go. EngineBusy when another holds it now (a reply
        of a model that answers one at a time)."""
        if not self.lock.acquire(blocking=False):
            raise EngineBusy("The model is generating.")
        try:
            self.check_open()
            event = self._holder_cancel = threading.Event()
            yield event
        finally:
            self.lock.release()

    def interrupt(self) -> None:
        """Ask whoever holds the model to let go."""
        self._holder_cancel.set()

    def close(self) -> None:
        """Wait for the holder to let go, then free the native memory; idempotent."""
        if self._closed:
            return
        self.interrupt()
        with self.lock:
            self.free()

    def free(self) -> None:
        """Free the native memory now (the caller holds the model); idempotent."""
        self._closed = True
        lib = self.lib
        if self.projector is not None:
            self.projector.close()
            self.projector = None
        if self.batch is not None:
            lib.llama_batch_free(self.batch)
            self.batch = None
        if self.ctx:
            lib.llama_free(self.ctx)
            self.ctx = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self.handle:
            lib.llama_model_free(self.handle)
            self.handle = None


def _tokens_of(g: GGUFFile) -> list[str] | None:
    tokens = g.metadata.get("tokenizer.ggml.tokens")
    return [str(t) for t in tokens] if isinstance(tokens, list) else None

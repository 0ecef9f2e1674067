"""GGUF models on llama.cpp (CPU, CUDA, Metal, Vulkan — whatever the installed build offloads to).

Built on llama-cpp-python's low-level bindings rather than its ``Llama`` class, for three reasons:
sampling stays in llama.cpp's native sampler chain (no per-token copy of the logits into Python),
cancellation is checked per prompt batch *and* inside a batch through llama.cpp's abort callback,
and the KV cache is reused token-for-token across the turns of a conversation.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.backends.base import LoadProgress

# Named as a private part of the backend, so that a test can put the native chain in its place.
from engine.backends.llama_sampling import Argmax as _Argmax
from engine.backends.llama_sampling import NativeSampler, last_logits, logits_at, make_chain
from engine.backends.vision import Vision
from engine.errors import (
    EngineError,
    InvalidRequest,
    LoadCancelled,
    ModelLoadError,
)
from engine.formats.gguf import GGUFFile, read_gguf
from engine.generation.kv_reuse import reusable_prefix
from engine.generation.loop import GenerationLoop, HandedIn, TokenDecoder, TokenSource
from engine.generation.state_cache import state_key
from engine.native import compute
from engine.native.llama import clear_log, has_amx, native, recent_log, route_mtmd_log
from engine.native.lock import GGML_LOCK
from engine.native.threadpool import ThreadPool, attach_threadpool
from engine.planner.plan import Plan
from engine.templates import ChatTemplate, choose_template, render
from engine.tools import Tool
from engine.types import ChatMessage, Chunk, GenerationParams, ImageInput

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


class LlamaCppModel(GenerationLoop):
    """One resident model with one context (one conversation's KV cache), generating through the
    shared loop (engine/generation/loop.py)."""

    runtime = "llama.cpp"
    constrains = True
    scores_prompts = True
    # The sequence this object generates in (engine/backends/llama_parallel.py gives each of a
    # shared context's sequences its own object).
    _seq = 0

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
        self._file_id = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        self.name = info.name or path.stem
        self.architecture = info.architecture
        self.template: ChatTemplate = choose_template(
            embedded=info.chat_template,
            architecture=info.architecture,
            tokens=_tokens_of(info),
            model_name=info.name,
        )
        del info
        super().__init__(plan.n_ctx, plan.n_batch)
        self.plan = plan
        self._lib = lib = native()
        self._model: Any = None
        self._ctx: Any = None
        self._batch: Any = None
        self._pool: ThreadPool | None = None

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
            self._model = lib.llama_model_load_from_file(str(path).encode(), mparams)
        if not self._model:
            if cancelled:
                raise LoadCancelled(f"Loading {path.name} was cancelled.")
            raise ModelLoadError(_native_failure(f"llama.cpp could not load {path.name}"))

        cparams = self.context_params(plan.n_ctx, sequences)
        # Polled by ggml between graph nodes; installed only while a prompt is evaluated (see
        # _prefilling) so that single-token decoding does not pay a Python call per node.
        self._abort_cb = lib.ggml_abort_callback(lambda _data: self._cancel.is_set())
        with GGML_LOCK:
            self._ctx = lib.llama_init_from_model(self._model, cparams)
        if not self._ctx:
            lib.llama_model_free(self._model)
            self._model = None
            raise ModelLoadError(
                _native_failure(f"llama.cpp could not create a {plan.n_ctx}-token context")
            )
        # One set of worker threads for the context's life, as llama.cpp's own tools keep:
        # without it ggml starts and joins its threads for every token.
        self._pool = attach_threadpool(lib, self._ctx, plan.threads)
        self._vocab = lib.llama_model_get_vocab(self._model)
        self._mem = lib.llama_get_memory(self._ctx)
        self._n_ctx = int(lib.llama_n_ctx_seq(self._ctx))
        self._window = 0 if plan.swa_full else int(lib.llama_model_n_swa(self._model))
        self._batch = lib.llama_batch_init(plan.n_batch, 0, 1)
        self._pieces: dict[int, bytes] = {}
        # Found on first use, shared with the model's sequences (backends/llama_parallel.py).
        self._known: dict[str, frozenset[int]] = {}
        self._piece_buf = ctypes.create_string_buffer(256)
        self.bos_text = self._token_text(lib.llama_vocab_bos(self._vocab))
        self.eos_text = self._token_text(lib.llama_vocab_eos(self._vocab))
        self._add_bos = bool(lib.llama_vocab_get_add_bos(self._vocab))
        bos = int(lib.llama_vocab_bos(self._vocab))
        self.bos_token = bos if bos >= 0 else None
        self._stop_tokens = self._template_stop_tokens()
        # A vision model's projector (engine/backends/vision.py), and where M-RoPE images end
        # with how many positions fewer than cells they took: (end index, shift).
        self._vision: Vision | None = None
        self._shifts: list[tuple[int, int]] = []
        self.exact_cells = EXACT_CELLS if self._batches_match_steps() else 0
        if plan.projector is not None:
            self._load_projector(Path(plan.projector.path), plan)

    @property
    def adds_bos(self) -> bool:
        """Whether a text's tokens start with the beginning-of-sequence token (the model's
        metadata says so)."""
        return self._add_bos

    @property
    def path(self) -> Path:
        """The model's file, resolved."""
        return Path(self._file_id[0])

    def _load_projector(self, projector: Path, plan: Plan) -> None:
        from engine.backends.vision import Vision

        route_mtmd_log()
        try:
            self._vision = Vision(
                self._lib, self._model, projector, plan.threads, plan.gpu_layers > 0
            )
        except Exception:
            self.close()
            raise
        self.vision = True
        self.image_marker = self._vision.marker

    def context_params(self, n_ctx: int, sequences: int) -> Any:
        """llama.cpp's parameters for a context of this model as planned: ``sequences`` each
        with a cache of ``n_ctx`` tokens (not one shared cache: attention then reads only a
        sequence's own cells)."""
        lib, plan = self._lib, self.plan
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

    # -- what the loop asks of llama.cpp --------------------------------------------------------

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        return render(
            self.template,
            messages,
            bos_token=self.bos_text,
            eos_token=self.eos_text,
            tools=tools,
            thinking=thinking,
        )

    def tokenize(
        self, text: str, *, special: bool = True, add_bos: bool | None = None
    ) -> list[int]:
        """Token ids of ``text``. BOS is added when the model wants it, unless the text (a
        rendered template) already starts with it."""
        self._check_open()
        if add_bos is None:
            add_bos = self._add_bos and not (self.bos_text and text.startswith(self.bos_text))
        data = text.encode("utf-8")
        cap = len(data) + 8
        buf = (self._lib.llama_token * cap)()
        n = self._lib.llama_tokenize(self._vocab, data, len(data), buf, cap, add_bos, special)
        if n < 0:
            cap = -n
            buf = (self._lib.llama_token * cap)()
            n = self._lib.llama_tokenize(self._vocab, data, len(data), buf, cap, add_bos, special)
        return list(buf[:n])

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of token ids (special tokens as nothing, as a reply's text shows them)."""
        self._check_open()
        self._check_tokens(ids)
        return b"".join(self._piece(t) for t in ids).decode("utf-8", "replace")

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        # A window-sized cache has dropped positions older than the window: a prefix is reusable
        # only while the cache still holds what the next token attends to
        # (engine/generation/kv_reuse.py).
        with self._native():
            oldest = self._lib.llama_memory_seq_pos_min(self._mem, self._seq)
        keep = reusable_prefix(keep, oldest_cached=oldest, window=self._window)
        cached = self._cached
        # Never keep part of an image: back to where its run of cells starts.
        while 0 < keep < len(cached) and cached[keep] < 0 and cached[keep - 1] == cached[keep]:
            keep -= 1
        with self._native():
            kept = self._lib.llama_memory_seq_rm(self._mem, self._seq, self._pos(keep), -1)
        if not kept:
            self._forget()
            return 0
        self._shifts = [(end, shift) for end, shift in self._shifts if end <= keep]
        return keep

    def _pos(self, index: int) -> int:
        """The position of the cell at ``index`` of the cached sequence (fewer than the index
        after an image whose embeddings advance the position less than one a cell)."""
        return index - sum(shift for end, shift in self._shifts if end <= index)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        if self._vision is not None:  # what this request's prompt may need prepared
            self._vision.remember([image for m in messages for image in m.images])
        return super().chat(messages, params, cancel)

    def _prompt_tokens(self, text: str, images: Sequence[ImageInput]) -> list[int]:
        if not images or self._vision is None:
            return self.tokenize(text)
        self._check_open()
        out: list[int] = []
        for i, part in enumerate(self._vision.layout(text, list(images))):
            if isinstance(part, list):
                out += part
            else:  # BOS where the model wants one: before the first part only
                out += self.tokenize(part) if i == 0 else self.tokenize(part, add_bos=False)
        return out

    def _parts(self, todo: list[int]) -> Iterator[list[int]]:
        """Text in batches, each image piece whole."""
        if self._vision is None:
            yield from super()._parts(todo)
            return
        step, i = self.n_batch, 0
        while i < len(todo):
            if todo[i] < 0:
                piece = self._vision.piece(todo[i])
                if piece is None:
                    raise EngineError("The prompt holds an image Cove did not prepare.")
                yield todo[i : i + piece.n_tokens]
                i += piece.n_tokens
                continue
            end = i
            while end < len(todo) and end - i < step and todo[end] >= 0:
                end += 1
            yield todo[i:end]
            i = end

    @contextlib.contextmanager
    def _prefilling(self) -> Iterator[None]:
        lib = self._lib
        lib.llama_set_abort_callback(self._ctx, self._abort_cb, None)
        try:
            yield
        finally:
            lib.llama_set_abort_callback(self._ctx, lib.ggml_abort_callback(), None)

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        if tokens[0] >= 0 or self._vision is None:
            return self._decode(tokens, cancel, logits_last=last)
        piece = self._vision.piece(tokens[0])
        assert piece is not None  # _parts checked
        start = len(self._cached)
        pos0 = self._pos(start)
        try:
            after = compute.run(self._vision.evaluate, piece, self._ctx, pos0, self.n_batch, last)
        except EngineError:
            self._drop_from(pos0)
            if cancel.is_set():
                return False
            raise EngineError(_native_failure("llama.cpp could not evaluate an image")) from None
        if after - pos0 != piece.n_tokens:
            self._shifts.append((start + piece.n_tokens, piece.n_tokens - (after - pos0)))
        return True

    def _feed_scored(self, tokens: list[int], cancel: threading.Event) -> bool:
        return self._decode(tokens, cancel, logits_all=True)

    def _logits_at(self, index: int) -> Any:
        return logits_at(self, index)

    def _check_tokens(self, ids: Sequence[int]) -> None:
        n_vocab = int(self._lib.llama_vocab_n_tokens(self._vocab))
        for token in ids:
            if not 0 <= token < n_vocab:
                raise InvalidRequest(
                    f"'prompt': token {token} is not in this model's vocabulary ({n_vocab} "
                    f"tokens, 0 to {n_vocab - 1})."
                )

    @contextlib.contextmanager
    def _sampler(self, params: GenerationParams) -> Iterator[TokenSource]:
        bias = self._biases(params)
        window = self._penalty_window(params)
        if params.temperature <= 0.0 and params.grammar is None:
            # Greedy: the argmax of the logits, read in place. The native chain would first copy
            # every logit into a candidate array (n_vocab x 12 bytes) on every token, and its
            # repetition penalty looks every candidate up in a table.
            yield _Argmax(self, params.repeat_penalty, window, bias)
            return
        if window:  # the biases and the penalty applied in place, in llama.cpp's order
            chain = make_chain(self._lib, self._vocab, params, 0)
            sampler = NativeSampler(self, chain, params.repeat_penalty, window, bias)
        else:  # no penalty: the biases are the chain's first sampler
            chain = make_chain(self._lib, self._vocab, params, 0, bias)
            sampler = NativeSampler(self, chain)
        try:
            yield sampler
        finally:
            self._lib.llama_sampler_free(chain)

    def _biases(self, params: GenerationParams) -> dict[int, float]:
        """The request's logit biases, and with ``ignore_eos`` every end-of-reply token
        forbidden (llama.cpp's end-of-generation tokens and the template's own stop tokens)."""
        if not params.logit_bias and not params.ignore_eos:
            return {}
        forbids = params.ignore_eos or any(b == float("-inf") for _t, b in params.logit_bias)
        if forbids and params.grammar is not None:
            # A grammar that can only go on with a forbidden token would leave nothing to draw.
            raise InvalidRequest(
                "'ignore_eos' and a 'logit_bias' of -100 cannot be combined with a "
                "response_format or a required tool call: the grammar decides which tokens may "
                "come, the end included."
            )
        n_vocab = int(self._lib.llama_vocab_n_tokens(self._vocab))
        bias: dict[int, float] = {}
        for token, value in params.logit_bias:
            if token >= n_vocab:
                raise InvalidRequest(
                    f"'logit_bias': token {token} is not in this model's vocabulary "
                    f"({n_vocab} tokens, 0 to {n_vocab - 1})."
                )
            bias[token] = value
        if params.ignore_eos:
            ends = self._known.get("ends")
            if ends is None:  # found once per model: 150k calls take about 50 ms
                is_eog = self._lib.llama_vocab_is_eog
                ends = frozenset(t for t in range(n_vocab) if is_eog(self._vocab, t))
                self._known["ends"] = ends
            for token in ends | self._stop_tokens:
                bias[token] = float("-inf")
        return bias

    def _is_end(self, token: int) -> bool:
        return bool(self._lib.llama_vocab_is_eog(self._vocab, token)) or token in self._stop_tokens

    def _decoder(self) -> TokenDecoder:
        return _ByteDecoder(self._piece)

    def _forget(self) -> None:
        self._shifts = []
        if self._ctx:
            with self._native():
                self._lib.llama_memory_seq_rm(self._mem, self._seq, -1, -1)

    def _native(self) -> contextlib.AbstractContextManager[object]:
        """Held around calls that change the KV cache (a shared context's sequences take turns
        with its batch steps)."""
        return contextlib.nullcontext()

    def _drop_from(self, pos: int) -> None:
        """Remove this sequence's cells from position ``pos`` on."""
        with self._native():
            self._lib.llama_memory_seq_rm(self._mem, self._seq, pos, -1)

    def _hand_in(self, tokens: list[int], cancel: threading.Event) -> HandedIn | None:
        """Tokens evaluated while the caller goes on (``HandedIn``): none on a context of its
        own, where evaluating is the caller's own work."""
        return None

    def _row(self, index: int) -> int:
        """Where the logits of position ``index`` of the last evaluated tokens (-1: the last)
        are in the context's output."""
        return index

    def _free(self) -> None:
        lib = self._lib
        vision = getattr(self, "_vision", None)
        if vision is not None:
            vision.close()
            self._vision = None
        if self._batch is not None:
            lib.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx:
            lib.llama_free(self._ctx)
            self._ctx = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._model:
            lib.llama_model_free(self._model)
            self._model = None

    # -- llama.cpp ------------------------------------------------------------------------------

    def _decode(
        self,
        tokens: list[int],
        cancel: threading.Event,
        logits_last: bool = True,
        logits_all: bool = False,
    ) -> bool:
        """Evaluate tokens at the next positions; False when aborted by cancellation."""
        batch = self._batch
        pos0 = self._pos(len(self._cached))
        n = len(tokens)
        for i, tok in enumerate(tokens):
            batch.token[i] = tok
            batch.pos[i] = pos0 + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = 1 if logits_all else 0
        batch.logits[n - 1] = 1 if logits_last or logits_all else 0
        batch.n_tokens = n
        rc = compute.run(self._lib.llama_decode, self._ctx, batch)
        if rc == 0:
            return True
        if rc == 2 or cancel.is_set():
            # Aborted mid-batch: some micro-batches may be in the cache; drop them all.
            self._drop_from(pos0)
            return False
        self._drop_from(pos0)
        raise decode_error(rc)

    def _check_draft(
        self,
        token: int,
        draft: list[int],
        cancel: threading.Event,
        want_logits: bool,
        pick: Callable[[int], int],
    ) -> list[tuple[int, Any]] | None:
        """Evaluate ``token`` and ``draft`` in one batch and sample position by position with
        ``pick`` (the generation's own sampler) until a sample differs from the guess; drop the
        cache's positions after the agreed guesses."""
        pos0 = self._pos(len(self._cached))
        draft = draft[: self.n_batch - 1]
        if not self._decode([token, *draft], cancel, logits_all=True):
            return None
        drawn: list[tuple[int, Any]] = []
        for i in range(len(draft) + 1):
            logits = logits_at(self, i).copy() if want_logits else None
            sampled = pick(i)
            drawn.append((sampled, logits))
            if i == len(draft) or sampled != draft[i]:
                break
        agreed = len(drawn) - 1
        self._drop_from(pos0 + 1 + agreed)
        return drawn

    def _state_key(self) -> str | None:
        if getattr(self, "_shifts", None):
            return None  # positions that the saved tokens alone cannot restore (M-RoPE images)
        plan = self.plan
        # Cached images are the projector's embeddings: another projector, another state.
        projector = () if plan.projector is None else (plan.projector.path,)
        return state_key(
            "llama.cpp",
            getattr(self._lib, "__version__", "?"),
            *self._file_id,
            self._n_ctx,
            plan.kv_type,
            plan.flash_attn,
            plan.swa_full,
            *projector,
        )

    def _state_bytes(self) -> memoryview:
        lib = self._lib
        with self._native():
            size = int(lib.llama_state_seq_get_size(self._ctx, self._seq))
            buf = (ctypes.c_uint8 * size)()
            written = int(lib.llama_state_seq_get_data(self._ctx, buf, size, self._seq))
        return memoryview(buf).cast("B")[:written]

    def _restore_state(self, data: bytes) -> bool:
        lib = self._lib
        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        with self._native():
            lib.llama_memory_seq_rm(self._mem, self._seq, -1, -1)
            if int(lib.llama_state_seq_set_data(self._ctx, buf, len(data), self._seq)) == 0:
                lib.llama_memory_seq_rm(self._mem, self._seq, -1, -1)
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
        never = threading.Event()
        try:
            self._decode(head, never)
            self._cached = list(head)
            steps = []
            for t in tail:
                self._decode([t], never)
                self._cached.append(t)
                steps.append(last_logits(self).copy())
            self._drop_from(len(head))
            del self._cached[len(head) :]
            self._decode(tail, never, logits_all=True)
            return all(np.array_equal(logits_at(self, i), row) for i, row in enumerate(steps))
        except EngineError:
            return False
        finally:
            self._cached.clear()
            self._forget()

    def _penalty_window(self, p: GenerationParams) -> int:
        """How many of the last generated tokens the repetition penalty covers (-1: all)."""
        if p.repeat_penalty == 1.0:
            return 0
        return self._n_ctx if p.repeat_last_n < 0 else p.repeat_last_n

    def _make_sampler(self, p: GenerationParams) -> Any:
        """The whole native chain, its repetition penalty included."""
        return make_chain(self._lib, self._vocab, p, self._penalty_window(p))

    def _piece(self, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            buf = self._piece_buf
            n = self._lib.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, False)
            if n < 0:
                buf = ctypes.create_string_buffer(-n)
                n = self._lib.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, False)
            piece = buf.raw[:n]
            self._pieces[token] = piece
        return piece

    def _token_bytes(self, token: int) -> bytes:
        return self._piece(token)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        raw = self._lib.llama_vocab_get_text(self._vocab, token)
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


class _ByteDecoder:
    """Token pieces are bytes; a character split across tokens waits for its last byte."""

    def __init__(self, piece: Callable[[int], bytes]) -> None:
        self._piece = piece
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, token: int) -> str:
        return self._utf8.decode(self._piece(token))

    def flush(self) -> str:
        return self._utf8.decode(b"", final=True)


def _tokens_of(g: GGUFFile) -> list[str] | None:
    tokens = g.metadata.get("tokenizer.ggml.tokens")
    return [str(t) for t in tokens] if isinstance(tokens, list) else None


def decode_error(rc: int) -> EngineError:
    """What a failed ``llama_decode`` (other than an abort) means for the user."""
    if rc == 1:
        return EngineError("The context is full: no room left in the KV cache.")
    return EngineError(_native_failure(f"llama.cpp failed to evaluate the prompt (code {rc})"))


def _native_failure(what: str) -> str:
    tail = [line for line in recent_log(40) if "error" in line.lower() or "failed" in line.lower()]
    detail = f" llama.cpp said: {' | '.join(tail[-3:])}" if tail else ""
    return f"{what}.{detail} The file may be damaged or need a newer llama.cpp."

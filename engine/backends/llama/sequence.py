"""One sequence of a llama.cpp model's context generating through the shared loop
(engine/generation/loop.py): its cached tokens, the positions its images took, its sampler and
its stop state. The model (engine/backends/llama/model.py) holds the weights, the context and
the vocabulary; a sequence holds only what one reply at a time needs.

A sequence evaluates its tokens with the model's own batch; a sequence of a context that serves
several replies at once hands them to the batcher instead (engine/backends/llama/batched.py).
"""

from __future__ import annotations

import codecs
import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.backends.llama.failures import decode_error, native_failure
from engine.backends.llama.model import RUNTIME, LlamaModel
from engine.backends.llama.prompt import image_parts, prompt_tokens, render_chat, text_tokens

# Named as a private part of the sequence, so that a test can put the native chain in its place.
from engine.backends.llama.sampling import Argmax as _Argmax
from engine.backends.llama.sampling import NativeSampler, logits_at, make_chain
from engine.errors import EngineError, InvalidRequest
from engine.generation.kv_reuse import reusable_prefix
from engine.generation.loop import GenerationLoop, HandedIn, TokenDecoder, TokenSource
from engine.native import compute
from engine.tools import Tool
from engine.types import ChatMessage, Chunk, GenerationParams, ImageInput, Truncation

if TYPE_CHECKING:
    from engine.templates import ChatTemplate

# A prompt computed when the loop calls it: its tokens, and how the conversation was cut to fit.
Prompt = Callable[[], tuple[list[int], Truncation | None]]


class LlamaSequence(GenerationLoop):
    """Sequence ``seq`` of ``model``'s context, generating one reply at a time."""

    runtime = RUNTIME

    def __init__(self, model: LlamaModel, seq: int = 0) -> None:
        super().__init__(model.n_ctx, model.n_batch)
        self.model = model
        self._seq = seq
        # Where M-RoPE images end, with how many positions fewer than cells they took:
        # (end index, shift).
        self._shifts: list[tuple[int, int]] = []
        caps = self.capabilities = model.capabilities
        self.constrains = caps.constrains
        self.scores_prompts = caps.scores_prompts
        self.exact_cells = caps.exact_cells
        self.vision = caps.vision
        self.bos_token = model.bos_token
        self.image_marker = model.projector.marker if model.projector is not None else ""
        self.template: ChatTemplate = model.template
        self.name = model.name
        self.plan = model.plan

    # -- what the batching side reads and calls --------------------------------------------------

    @property
    def seq(self) -> int:
        """The sequence's id in the model's context."""
        return self._seq

    @property
    def cached_ids(self) -> Sequence[int]:
        """The tokens the sequence's cells hold (not to be changed)."""
        return self._cached

    @property
    def shifted(self) -> bool:
        """Whether an image moved the positions of its cells (M-RoPE): its cells cannot be
        copied as plain tokens."""
        return bool(self._shifts)

    def chat_request(
        self, messages: Sequence[ChatMessage], params: GenerationParams
    ) -> tuple[Prompt, tuple[str, ...], Callable[[], str]]:
        """What a chat reply needs before the loop: the prompt (computed when called), the stop
        strings, and how the reply opens; refused at once where the request cannot be met."""
        self._check_grammar(params)
        return self._chat_request(messages, params)

    def complete_request(self, prompt: str | Sequence[int], params: GenerationParams) -> Prompt:
        """A raw completion's prompt (computed when called); refused at once where the request
        cannot be met."""
        self._check_grammar(params)
        return self._complete_request(prompt, params)

    def generate(
        self,
        prompt: Prompt,
        params: GenerationParams,
        cancel: threading.Event | None,
        stop: Sequence[str],
        started: float,
        lead: Callable[[], str] = lambda: "",
    ) -> Iterator[Chunk]:
        """The loop's stream on this sequence, for a prompt computed elsewhere."""
        return self._generate(prompt, params, cancel, stop, started, lead)

    def row(self, index: int) -> int:
        """Where the logits of position ``index`` of the last evaluated tokens (-1: the last)
        are in the context's output."""
        return index

    def drop_from(self, pos: int) -> None:
        """Remove this sequence's cells from position ``pos`` on."""
        with self._native():
            self.model.drop(self._seq, pos)

    def hand_in(self, tokens: list[int], cancel: threading.Event) -> HandedIn | None:
        """Tokens evaluated while the caller goes on (``HandedIn``): none on a context of its
        own, where evaluating is the caller's own work."""
        return None

    def decode(
        self,
        tokens: list[int],
        cancel: threading.Event,
        logits_last: bool = True,
        logits_all: bool = False,
    ) -> bool:
        """Evaluate tokens at the next positions; False when aborted by cancellation."""
        pos0 = self._pos(len(self._cached))
        rc = self.model.evaluate(
            self._seq, tokens, pos0, logits_last=logits_last, logits_all=logits_all
        )
        if rc == 0:
            return True
        # Aborted mid-batch (or failed): some micro-batches may be in the cache; drop them all.
        self.drop_from(pos0)
        if rc == 2 or cancel.is_set():
            return False
        raise decode_error(rc)

    def check_draft(
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
        if not self.decode([token, *draft], cancel, logits_all=True):
            return None
        drawn: list[tuple[int, Any]] = []
        for i in range(len(draft) + 1):
            logits = logits_at(self, i).copy() if want_logits else None
            sampled = pick(i)
            drawn.append((sampled, logits))
            if i == len(draft) or sampled != draft[i]:
                break
        agreed = len(drawn) - 1
        self.drop_from(pos0 + 1 + agreed)
        return drawn

    # -- what the loop asks of llama.cpp --------------------------------------------------------

    @property
    def path(self) -> Path:
        """The model's file, resolved."""
        return self.model.path

    @property
    def adds_bos(self) -> bool:
        return self.model.adds_bos

    @property
    def bos_text(self) -> str:
        return self.model.bos_text

    @property
    def eos_text(self) -> str:
        return self.model.eos_text

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        return render_chat(self.model, self.template, messages, tools, thinking)

    def tokenize(
        self, text: str, *, special: bool = True, add_bos: bool | None = None
    ) -> list[int]:
        """Token ids of ``text``. BOS is added when the model wants it, unless the text (a
        rendered template) already starts with it."""
        self._check_open()
        return text_tokens(self.model, text, special=special, add_bos=add_bos)

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of token ids (special tokens as nothing, as a reply's text shows them)."""
        self._check_open()
        return self.model.detokenize(ids)

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        # A window-sized cache has dropped positions older than the window: a prefix is reusable
        # only while the cache still holds what the next token attends to
        # (engine/generation/kv_reuse.py).
        with self._native():
            oldest = self.model.oldest(self._seq)
        keep = reusable_prefix(keep, oldest_cached=oldest, window=self.model.window)
        cached = self._cached
        # Never keep part of an image: back to where its run of cells starts.
        while 0 < keep < len(cached) and cached[keep] < 0 and cached[keep - 1] == cached[keep]:
            keep -= 1
        with self._native():
            kept = self.model.drop(self._seq, self._pos(keep))
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
        vision = self.model.projector
        if vision is not None:  # what this request's prompt may need prepared
            vision.remember([image for m in messages for image in m.images])
        return super().chat(messages, params, cancel)

    def _prompt_tokens(self, text: str, images: Sequence[ImageInput]) -> list[int]:
        self._check_open()
        return prompt_tokens(self.model, self.model.projector, text, images)

    def _parts(self, todo: list[int]) -> Iterator[list[int]]:
        """Text in batches, each image piece whole."""
        vision = self.model.projector
        if vision is None:
            return super()._parts(todo)
        return image_parts(vision, todo, self.n_batch)

    @contextlib.contextmanager
    def _prefilling(self) -> Iterator[None]:
        with self.model.aborting(self._cancel):
            yield

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        vision = self.model.projector
        if tokens[0] >= 0 or vision is None:
            return self.decode(tokens, cancel, logits_last=last)
        piece = vision.piece(tokens[0])
        assert piece is not None  # _parts checked
        start = len(self._cached)
        pos0 = self._pos(start)
        try:
            after = compute.run(vision.evaluate, piece, self.model.ctx, pos0, self.n_batch, last)
        except EngineError:
            self.drop_from(pos0)
            if cancel.is_set():
                return False
            raise EngineError(native_failure("llama.cpp could not evaluate an image")) from None
        if after - pos0 != piece.n_tokens:
            self._shifts.append((start + piece.n_tokens, piece.n_tokens - (after - pos0)))
        return True

    def _feed_scored(self, tokens: list[int], cancel: threading.Event) -> bool:
        return self.decode(tokens, cancel, logits_all=True)

    def _logits_at(self, index: int) -> Any:
        return logits_at(self, index)

    def _check_tokens(self, ids: Sequence[int]) -> None:
        self.model.check_tokens(ids)

    @contextlib.contextmanager
    def _sampler(self, params: GenerationParams) -> Iterator[TokenSource]:
        bias = self._biases(params)
        window = self._penalty_window(params)
        lib, vocab = self.model.lib, self.model.vocab
        if params.temperature <= 0.0 and params.grammar is None:
            # Greedy: the argmax of the logits, read in place. The native chain would first copy
            # every logit into a candidate array (n_vocab x 12 bytes) on every token, and its
            # repetition penalty looks every candidate up in a table.
            yield _Argmax(self, params.repeat_penalty, window, bias)
            return
        if window:  # the biases and the penalty applied in place, in llama.cpp's order
            chain = make_chain(lib, vocab, params, 0)
            sampler = NativeSampler(self, chain, params.repeat_penalty, window, bias)
        else:  # no penalty: the biases are the chain's first sampler
            chain = make_chain(lib, vocab, params, 0, bias)
            sampler = NativeSampler(self, chain)
        try:
            yield sampler
        finally:
            lib.llama_sampler_free(chain)

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
        n_vocab = self.model.n_vocab
        bias: dict[int, float] = {}
        for token, value in params.logit_bias:
            if token >= n_vocab:
                raise InvalidRequest(
                    f"'logit_bias': token {token} is not in this model's vocabulary "
                    f"({n_vocab} tokens, 0 to {n_vocab - 1})."
                )
            bias[token] = value
        if params.ignore_eos:
            for token in self.model.end_tokens():
                bias[token] = float("-inf")
        return bias

    def _is_end(self, token: int) -> bool:
        return self.model.is_end(token)

    def _decoder(self) -> TokenDecoder:
        return _ByteDecoder(self.model.piece)

    def _forget(self) -> None:
        self._shifts = []
        if self.model.ctx:
            self.drop_from(-1)

    def _native(self) -> contextlib.AbstractContextManager[object]:
        """Held around calls that change the KV cache (a shared context's sequences take turns
        with its batch steps)."""
        return contextlib.nullcontext()

    def _free(self) -> None:
        """The model's owner frees the context and the weights."""

    def _state_key(self) -> str | None:
        if self._shifts:
            return None  # positions that the saved tokens alone cannot restore (M-RoPE images)
        return self.model.state_key()

    def _state_bytes(self) -> memoryview:
        with self._native():
            return self.model.state_bytes(self._seq)

    def _restore_state(self, data: bytes) -> bool:
        with self._native():
            return self.model.restore_state(self._seq, data)

    def _penalty_window(self, p: GenerationParams) -> int:
        """How many of the last generated tokens the repetition penalty covers (-1: all)."""
        if p.repeat_penalty == 1.0:
            return 0
        return self._n_ctx if p.repeat_last_n < 0 else p.repeat_last_n

    def _make_sampler(self, p: GenerationParams) -> Any:
        """The whole native chain, its repetition penalty included."""
        return make_chain(self.model.lib, self.model.vocab, p, self._penalty_window(p))

    def _token_bytes(self, token: int) -> bytes:
        return self.model.piece(token)


class _ByteDecoder:
    """Token pieces are bytes; a character split across tokens waits for its last byte."""

    def __init__(self, piece: Callable[[int], bytes]) -> None:
        self._piece = piece
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, token: int) -> str:
        return self._utf8.decode(self._piece(token))

    def flush(self) -> str:
        return self._utf8.decode(b"", final=True)

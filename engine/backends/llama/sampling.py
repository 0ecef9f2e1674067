"""Choosing each token of a llama.cpp model's reply, reading the context's logits in place: the
native sampler chain (penalties, grammar, top-k, top-p, min-p, temperature, a seeded draw), and
a greedy choice in numpy with llama.cpp's repetition penalty, which picks what the native greedy
chain picks. Both check a batch of guessed tokens through the model (``verify``).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine.errors import InvalidRequest
from engine.types import GenerationParams

if TYPE_CHECKING:
    from engine.backends.llama.model import LlamaModel
    from engine.generation.loop import HandedIn


class Rows(Protocol):
    """What a sampler asks of the sequence it samples for (engine/backends/llama/sequence.py)."""

    @property
    def model(self) -> LlamaModel: ...

    def row(self, index: int) -> int:
        """Where the logits of position ``index`` of the last evaluated tokens (-1: the last)
        are in the context's output."""
        ...

    def decode(self, tokens: list[int], cancel: threading.Event) -> bool:
        """Evaluate tokens at the sequence's next positions; False when cancelled."""
        ...

    def check_draft(
        self,
        token: int,
        draft: list[int],
        cancel: threading.Event,
        want_logits: bool,
        pick: Callable[[int], int],
    ) -> list[tuple[int, Any]] | None: ...

    def hand_in(self, tokens: list[int], cancel: threading.Event) -> HandedIn | None: ...


def make_chain(
    lib: Any, vocab: Any, p: GenerationParams, window: int, bias: Mapping[int, float] | None = None
) -> Any:
    """llama.cpp's native sampler chain for ``p``: ``bias`` added to the logits, the repetition
    penalty over the last ``window`` tokens, a grammar where the request has one, then greedy,
    or top-k, top-p, min-p, temperature and a seeded draw, in llama.cpp's order."""
    chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
    add = lib.llama_sampler_chain_add
    n_vocab = lib.llama_vocab_n_tokens(vocab)
    if bias:
        # Each bias is added to its token's logit where it stands (the candidates are still in
        # vocabulary order when the chain starts): a few additions, not a pass over the
        # vocabulary.
        pairs = (lib.llama_logit_bias * len(bias))(
            *(lib.llama_logit_bias(t, b) for t, b in bias.items())
        )
        add(chain, lib.llama_sampler_init_logit_bias(n_vocab, len(bias), pairs))
    if window > 0:
        penalties = lib.llama_sampler_init_penalties(n_vocab, window, p.repeat_penalty, 0, 0)
        add(chain, penalties)
    if p.grammar is not None:
        # Every token that would leave the grammar is masked before the choice.
        grammar = lib.llama_sampler_init_grammar(vocab, p.grammar.encode(), b"root")
        if not grammar:
            lib.llama_sampler_free(chain)
            raise InvalidRequest("The grammar for this request could not be parsed.")
        add(chain, grammar)
    if p.temperature <= 0.0:
        add(chain, lib.llama_sampler_init_greedy())
        return chain
    if p.top_k > 0:
        add(chain, lib.llama_sampler_init_top_k(p.top_k))
    if p.top_p < 1.0:
        add(chain, lib.llama_sampler_init_top_p(p.top_p, 1))
    if p.min_p > 0.0:
        add(chain, lib.llama_sampler_init_min_p(p.min_p, 1))
    add(chain, lib.llama_sampler_init_temp(p.temperature))
    seed = lib.LLAMA_DEFAULT_SEED if p.seed is None else p.seed & 0xFFFFFFFF
    add(chain, lib.llama_sampler_init_dist(seed))
    return chain


class _Picker:
    """A sampler that draws a token from one row of the context's logits (``_pick``): the next
    token from the last row, and guessed tokens checked in one batch (speculation) row by row."""

    _seq: Rows

    def _pick(self, index: int) -> int:
        raise NotImplementedError

    def sample(self) -> int:
        return self._pick(-1)

    def verify(
        self, token: int, draft: list[int], cancel: threading.Event, want_logits: bool
    ) -> list[tuple[int, Any]] | None:
        return self._seq.check_draft(token, draft, cancel, want_logits, self._pick)

    def accept(self, token: int, cancel: threading.Event) -> bool:
        return self._seq.decode([token], cancel)

    def hand_in(self, token: int, cancel: threading.Event) -> HandedIn | None:
        """``token`` handed in ahead of ``accept`` where the model can (a shared context's
        sequence beside others; engine/generation/loop.py ``HandsIn``), else None."""
        return self._seq.hand_in([token], cancel)


class NativeSampler(_Picker):
    """llama.cpp's native sampler chain: sampling reads the context's logits in place.

    Logit biases (``bias``) are added in place before the chain reads the row. With
    ``window`` > 0 the repetition penalty is applied here, to the logits of the tokens
    generated within the window, and put back after the draw, instead of by the chain's own
    penalty sampler, which looks every candidate of the vocabulary up in a table on every token
    (0.20 against 0.05 ms a token for the starter's 49k-token vocabulary, 0.62 against 0.15 for
    Qwen2.5's 151k). The chain is then made without it (``make_chain`` with window 0); what is
    drawn is the same, which a test holds it to."""

    def __init__(
        self,
        seq: Rows,
        chain: Any,
        penalty: float = 1.0,
        window: int = 0,
        bias: Mapping[int, float] | None = None,
    ) -> None:
        self._sample = seq.model.lib.llama_sampler_sample
        self._seq = seq
        self._ctx = seq.model.ctx
        self._chain = chain
        self._adjust = in_place(seq, penalty, window, bias)

    def _pick(self, index: int) -> int:
        row = self._seq.row(index)

        def draw() -> int:
            return int(self._sample(self._chain, self._ctx, row))

        return draw() if self._adjust is None else self._adjust.pick(row, draw)

    def logits(self) -> Any:
        return last_logits(self._seq)


class _InPlace:
    """What changes a row of the context's logits before a choice, applied in place and put back
    after the draw: the request's logit biases (added, -inf forbidding a token), then llama.cpp's
    repetition penalty (frequency and presence at 0: a logit above 0 divided by the penalty, one
    at or below 0 multiplied by it) for each token among the last ``window`` generated. The
    order is llama.cpp's own sampler order (logit bias first)."""

    def __init__(
        self, seq: Rows, penalty: float, window: int, bias: Mapping[int, float] | None = None
    ) -> None:
        import numpy as np

        self._np = np
        self._get = seq.model.lib.llama_get_logits_ith
        self._ctx = seq.model.ctx
        self._n_vocab = seq.model.n_vocab
        self._penalty = np.float32(penalty)
        self._window = window
        self._recent: deque[int] = deque(maxlen=max(window, 1))
        bias = bias or {}
        self._bias_set = frozenset(bias)
        self._bias_ids = np.fromiter(bias, dtype=np.int64, count=len(bias))
        self._bias = np.fromiter(bias.values(), dtype=np.float32, count=len(bias))

    def pick(self, row: int, choose: Callable[[], int]) -> int:
        """``choose()`` from ``row``'s logits adjusted, which are put back afterwards; the token
        chosen joins the penalty's window."""
        np = self._np
        biased = self._bias_ids.size > 0
        if self._recent or biased:  # tokens join ``_recent`` only with a penalty window
            logits = np.ctypeslib.as_array(self._get(self._ctx, row), shape=(self._n_vocab,))
            ids = set(self._recent)
            seen = np.fromiter(ids, dtype=np.int64, count=len(ids))
            ids |= self._bias_set
            touched = np.fromiter(ids, dtype=np.int64, count=len(ids))
            saved = logits[touched]  # a copy: indexed by an array
            # float32 throughout, as llama.cpp computes it, so that ties break the same way.
            if biased:
                logits[self._bias_ids] += self._bias
            if seen.size:
                values = logits[seen]
                logits[seen] = np.where(values > 0, values / self._penalty, values * self._penalty)
            try:
                token = choose()
            finally:
                logits[touched] = saved
        else:
            token = choose()
        if self._window:
            self._recent.append(token)
        return token

    @property
    def needed(self) -> bool:
        return bool(self._window) or self._bias_ids.size > 0


def in_place(
    seq: Rows, penalty: float, window: int, bias: Mapping[int, float] | None
) -> _InPlace | None:
    """The changes to make to each row before a choice, or None where there are none."""
    adjust = _InPlace(seq, penalty, window, bias)
    return adjust if adjust.needed else None


class Argmax(_Picker):
    """Greedy decoding, with the request's logit biases and llama.cpp's repetition penalty on the
    tokens generated so far (``_InPlace``), read from the logits in place. Picks exactly what
    the native greedy chain picks; a test holds it to that."""

    def __init__(
        self, seq: Rows, penalty: float, window: int, bias: Mapping[int, float] | None = None
    ) -> None:
        import numpy as np

        self._np = np
        self._get = seq.model.lib.llama_get_logits_ith
        self._ctx = seq.model.ctx
        self._n_vocab = seq.model.n_vocab
        self._seq = seq
        self._adjust = in_place(seq, penalty, window, bias)

    def logits(self) -> Any:
        row = self._seq.row(-1)
        return self._np.ctypeslib.as_array(self._get(self._ctx, row), shape=(self._n_vocab,))

    def _pick(self, index: int) -> int:
        row = self._seq.row(index)
        logits = self._np.ctypeslib.as_array(self._get(self._ctx, row), shape=(self._n_vocab,))

        def argmax() -> int:
            return int(logits.argmax())

        return argmax() if self._adjust is None else self._adjust.pick(row, argmax)


def last_logits(seq: Rows) -> Any:
    """The context's logits for the sequence's last evaluated position, in place (valid until
    the next decode)."""
    return logits_at(seq, -1)


def logits_at(seq: Rows, index: int) -> Any:
    """The logits of the sequence's last batch's position ``index`` (-1: its last), in
    place."""
    return seq.model.logits(seq.row(index))

"""ONNX chat models on onnxruntime-genai: the path to NPUs (QNN, OpenVINO, VitisAI), DirectML and
CUDA builds of ONNX Runtime, and the CPU.

The same streaming contract as the llama.cpp backend: text chunks, then one terminal chunk with
stats; cancellation checked per token and per prompt chunk (the prompt is fed in chunks of
``plan.n_batch`` tokens, which also bounds the attention scratch memory); the conversation's KV
cache is kept across turns with ``Generator.rewind_to``, so a follow-up only processes its new
tokens.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.backends import LoadProgress
from engine.backends.clock import Body, StatsClock, guarded_stream
from engine.context import fit_prompt, prompt_overflow
from engine.errors import BackendUnavailable, EngineError, LoadCancelled, ModelLoadError
from engine.onnx_model import is_onnx_chat_folder, read_onnx_model
from engine.planner import Plan
from engine.stopping import StopMatcher
from engine.templates import ChatTemplate, choose_template, render
from engine.types import ChatMessage, Chunk, FinishReason, GenerationParams, Truncation


def runtime() -> Any:
    try:
        import onnxruntime_genai
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BackendUnavailable(
            f"onnxruntime-genai is not installed ({exc}). Reinstall Cove's dependencies."
        ) from exc
    return onnxruntime_genai


class OrtGenaiBackend:
    name = "onnxruntime-genai"

    def availability(self) -> str | None:
        try:
            runtime()
        except BackendUnavailable as exc:
            return str(exc)
        return None

    def handles(self, path: Path) -> bool:
        return is_onnx_chat_folder(path)

    def load(self, path: Path, plan: Plan, progress: LoadProgress | None = None) -> OrtGenaiModel:
        return OrtGenaiModel(path, plan, progress=progress)


class OrtGenaiModel:
    """One resident ONNX model and one conversation's KV cache. Requests are serialised by the
    engine; a lock turns a concurrent call into a clear error."""

    def __init__(self, path: Path, plan: Plan, *, progress: LoadProgress | None = None) -> None:
        self._closed = False
        self._generator: Any = None
        self._generator_key: tuple[object, ...] | None = None
        self._cached: list[int] = []
        self._lock = threading.Lock()
        info = read_onnx_model(path)
        self.name = info.name
        self.template: ChatTemplate = choose_template(
            embedded=info.chat_template, architecture=info.architecture, model_name=info.name
        )
        self.plan = plan
        self._n_ctx = plan.n_ctx
        og = self._og = runtime()
        if progress is not None and not progress(0.0):
            raise LoadCancelled(f"Loading {path.name} was cancelled.")
        try:
            config = og.Config(str(path))
            self._model = og.Model(config)
            self._tokenizer = og.Tokenizer(self._model)
        except Exception as exc:  # the runtime's own errors are plain RuntimeErrors
            raise ModelLoadError(
                f"onnxruntime-genai could not load {path.name}: {exc}. The folder may be "
                "damaged or built for an execution provider this machine lacks."
            ) from None
        if progress is not None and not progress(1.0):
            self.close()
            raise LoadCancelled(f"Loading {path.name} was cancelled.")
        eos = getattr(self._tokenizer, "eos_token_ids", None)
        self._eos = frozenset(int(t) for t in (eos if eos is not None else ()))
        self._stop_tokens = self._template_stop_tokens()

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return len(self.tokenize(render(self.template, messages)))

    def tokenize(self, text: str) -> list[int]:
        self._check_open()
        return [int(t) for t in self._tokenizer.encode(text)]

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        started = time.perf_counter()
        try:
            tokens, truncation = fit_prompt(
                messages,
                lambda msgs: render(self.template, msgs),
                self.tokenize,
                n_ctx=self._n_ctx,
                max_tokens=params.max_tokens,
            )
        except EngineError as exc:
            yield Chunk(finish_reason="error", error=str(exc))
            return
        stop = (*params.stop, *self.template.stop)
        yield from self._stream(tokens, params, cancel, stop, started, truncation)

    def complete(
        self, prompt: str, params: GenerationParams, cancel: threading.Event | None = None
    ) -> Iterator[Chunk]:
        started = time.perf_counter()
        try:
            tokens = self.tokenize(prompt)
        except EngineError as exc:
            yield Chunk(finish_reason="error", error=str(exc))
            return
        overflow = prompt_overflow(len(tokens), self._n_ctx, params.max_tokens)
        if overflow is not None:
            yield Chunk(finish_reason="error", error=overflow)
            return
        yield from self._stream(tokens, params, cancel, params.stop, started, None)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._generator = None
        self._tokenizer = None
        self._model = None

    def __enter__(self) -> OrtGenaiModel:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- generation ------------------------------------------------------------------------------

    def _stream(
        self,
        tokens: list[int],
        params: GenerationParams,
        cancel: threading.Event | None,
        stop: Sequence[str],
        started: float,
        truncation: Truncation | None,
    ) -> Iterator[Chunk]:
        def body(stats: StatsClock) -> Body:
            self._check_open()
            event = cancel or threading.Event()
            reused = self._prefill(tokens, params, event)
            stats.prompt(len(tokens), reused)
            if reused < 0:
                return "cancelled", False
            return (yield from self._sample(params, event, stop, stats))

        return guarded_stream(self._lock, started, truncation, body, self.reset)

    def _prefill(self, tokens: list[int], params: GenerationParams, cancel: threading.Event) -> int:
        """Bring the generator's sequence to ``tokens``, reusing the common prefix; returns how
        many tokens were reused, or -1 when cancelled."""
        if not tokens:
            raise EngineError("The prompt is empty.")
        key = _search_key(params)
        common = 0
        # A seeded request starts from a fresh generator so that its sampling is reproducible.
        if self._generator is not None and key == self._generator_key and params.seed is None:
            for a, b in zip(self._cached, tokens, strict=False):
                if a != b:
                    break
                common += 1
            # The last prompt token is evaluated again so that there are logits to sample from;
            # and the runtime's own count is the truth (it does not keep a final end-of-turn
            # token it stopped on).
            common = min(common, len(tokens) - 1, int(self._generator.token_count()))
        if common > 0:
            self._generator.rewind_to(common)
            del self._cached[common:]
        else:
            self._new_generator(params, key)
        todo = tokens[common:]
        step = self.plan.n_batch
        for start in range(0, len(todo), step):
            if cancel.is_set():
                self.reset()  # a half-fed prompt cannot be resumed: start clean next time
                return -1
            part = todo[start : start + step]
            self._generator.append_tokens(part)
            self._cached.extend(part)
        return common

    def _sample(
        self,
        params: GenerationParams,
        cancel: threading.Event,
        stop: Sequence[str],
        stats: StatsClock,
    ) -> Generator[Chunk, None, tuple[FinishReason, bool]]:
        gen = self._generator
        matcher = StopMatcher(stop)
        stream = self._tokenizer.create_stream()
        limit = params.max_tokens
        generated = 0
        finish: FinishReason = "stop"
        context_full = False
        while True:
            if cancel.is_set():
                return "cancelled", False
            if len(self._cached) + 1 >= self._n_ctx:
                finish, context_full = "length", True
                break
            gen.generate_next_token()
            token = int(gen.get_next_tokens()[0])
            if generated == 0:
                stats.first_token()
            self._cached.append(token)
            if token in self._eos or token in self._stop_tokens:
                break
            generated += 1
            stats.completion_tokens = generated
            text, hit = matcher.feed(stream.decode(token))
            if text:
                yield Chunk(text=text)
            if hit:
                return "stop", False
            if limit is not None and generated >= limit:
                finish = "length"
                break
        tail = matcher.flush("")
        if tail:
            yield Chunk(text=tail)
        return finish, context_full

    def _new_generator(self, params: GenerationParams, key: tuple[object, ...]) -> None:
        og = self._og
        self._generator = None  # free the old KV cache before allocating the new one
        gp = og.GeneratorParams(self._model)
        options: dict[str, Any] = {"max_length": self._n_ctx, "do_sample": params.temperature > 0}
        if params.temperature > 0:
            options.update(
                temperature=params.temperature,
                top_k=params.top_k or 0,
                top_p=params.top_p,
            )
            if params.seed is not None:
                options["random_seed"] = params.seed & 0x7FFFFFFF
        if params.repeat_penalty != 1.0:
            options["repetition_penalty"] = params.repeat_penalty
        gp.set_search_options(**options)
        self._generator = og.Generator(self._model, gp)
        self._generator_key = key
        self._cached = []

    def _template_stop_tokens(self) -> frozenset[int]:
        found = set()
        for marker in self.template.stop:
            ids = self.tokenize(marker)
            if len(ids) == 1:
                found.add(ids[0])
        return frozenset(found)

    def reset(self) -> None:
        """Forget the cached conversation (the next request evaluates its whole prompt)."""
        self._generator = None
        self._generator_key = None
        self._cached = []

    def _check_open(self) -> None:
        if self._closed:
            raise EngineError("The model was unloaded. Load it again to continue.")


def _search_key(p: GenerationParams) -> tuple[object, ...]:
    """Sampling settings are fixed when a generator is made: a request with other settings gets a
    new generator (and evaluates its whole prompt)."""
    return (p.temperature, p.top_k, p.top_p, p.repeat_penalty, p.seed)

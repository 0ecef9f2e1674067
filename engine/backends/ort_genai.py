"""ONNX chat models on onnxruntime-genai: the path to NPUs (QNN, OpenVINO, VitisAI), DirectML and
CUDA builds of ONNX Runtime, and the CPU.

Generation runs through the shared loop (engine/generation/loop.py): the prompt is fed in parts of
``plan.n_batch`` tokens, which also bounds the attention scratch memory, and the conversation's KV
cache is kept across turns with ``Generator.rewind_to``, so a follow-up only processes its new
tokens. Parameters the runtime cannot honour are reported on the terminal chunk.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.backends.base import LoadProgress
from engine.capabilities import Capabilities
from engine.errors import BackendUnavailable, InvalidRequest, LoadCancelled, ModelLoadError
from engine.formats.onnx import is_onnx_chat_folder, read_onnx_model
from engine.generation.loop import GenerationLoop, TokenDecoder, TokenSource
from engine.planner.plan import Plan
from engine.templates import ChatTemplate, choose_template, render
from engine.tools import Tool
from engine.types import ChatMessage, GenerationParams


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


class OrtGenaiModel(GenerationLoop):
    """One resident ONNX model and one conversation's KV cache, generating through the shared
    loop (engine/generation/loop.py)."""

    runtime = "onnxruntime-genai"
    capabilities = Capabilities(runtime="onnxruntime-genai")

    def __init__(self, path: Path, plan: Plan, *, progress: LoadProgress | None = None) -> None:
        super().__init__(plan.n_ctx, plan.n_batch)
        self._generator: Any = None
        self._generator_key: tuple[object, ...] | None = None
        info = read_onnx_model(path)
        self.name = info.name
        self.template: ChatTemplate = choose_template(
            embedded=info.chat_template, architecture=info.architecture, model_name=info.name
        )
        self.plan = plan
        og = self._og = runtime()
        if progress is not None and not progress(0.0):
            raise LoadCancelled(f"Loading {path.name} was cancelled.")
        try:
            config = og.Config(str(path))
            if plan.device == "CPU" and info.provider != "cpu":
                # The planner found the build's provider missing here and the graph one the
                # CPU can run (its reasons say so): run it there rather than fail.
                config.clear_providers()
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

    # -- what the loop asks of onnxruntime-genai ------------------------------------------------

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        return render(self.template, messages, tools=tools, thinking=thinking)

    def tokenize(self, text: str) -> list[int]:
        self._check_open()
        return [int(t) for t in self._tokenizer.encode(text)]

    def _token_bytes(self, token: int) -> bytes:
        return str(self._tokenizer.decode([token])).encode("utf-8")

    def unsupported(self, params: GenerationParams) -> tuple[str, ...]:
        """onnxruntime-genai's search options have no min-p, and its repetition penalty covers
        the whole sequence rather than the last N tokens."""
        ignored = []
        if params.temperature > 0 and params.min_p > 0:
            ignored.append("min_p")
        if params.repeat_penalty != 1.0 and params.repeat_last_n != 0:
            ignored.append("repeat_last_n")
        return tuple(ignored)

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        key = _search_key(params)
        # Sampling settings are fixed when a generator is made, and a seeded request starts from a
        # fresh one so that its sampling is reproducible. The runtime's own count is the truth:
        # it holds the last token sampled, which the loop may not have accepted.
        if self._generator is not None and key == self._generator_key and params.seed is None:
            keep = min(keep, int(self._generator.token_count()))
            if keep > 0:
                self._generator.rewind_to(keep)
                return keep
        self._new_generator(params, key)
        return 0

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        self._generator.append_tokens(tokens)
        return True

    @contextlib.contextmanager
    def _sampler(self, params: GenerationParams) -> Iterator[TokenSource]:
        if params.logit_bias or params.ignore_eos:
            raise InvalidRequest(
                "This model runs on ONNX Runtime GenAI, which chooses each token itself: "
                "'logit_bias' and 'ignore_eos' need a GGUF or Core ML model."
            )
        yield _OrtSampler(self._generator)

    def _is_end(self, token: int) -> bool:
        return token in self._eos or token in self._stop_tokens

    def _decoder(self) -> TokenDecoder:
        return _StreamDecoder(self._tokenizer.create_stream())

    def _forget(self) -> None:
        self._generator = None
        self._generator_key = None

    def _free(self) -> None:
        self._generator = None
        self._tokenizer = None
        self._model = None

    # -- onnxruntime-genai ----------------------------------------------------------------------

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

    def _template_stop_tokens(self) -> frozenset[int]:
        found = set()
        for marker in self.template.stop:
            ids = self.tokenize(marker)
            if len(ids) == 1:
                found.add(ids[0])
        return frozenset(found)


class _OrtSampler:
    """onnxruntime-genai samples and appends in one step: the sampled token is already part of
    the sequence, so accepting it costs nothing."""

    def __init__(self, generator: Any) -> None:
        self._generator = generator

    def logits(self) -> Any:
        # The logits of the position the next token follows: read before generate_next_token,
        # which samples from them and computes the next position's.
        import numpy as np

        return np.asarray(self._generator.get_logits()).reshape(-1).copy()

    def sample(self) -> int:
        self._generator.generate_next_token()
        return int(self._generator.get_next_tokens()[0])

    def accept(self, token: int, cancel: threading.Event) -> bool:
        return True


class _StreamDecoder:
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def feed(self, token: int) -> str:
        return str(self._stream.decode(token))

    def flush(self) -> str:
        return ""


def _search_key(p: GenerationParams) -> tuple[object, ...]:
    """Sampling settings are fixed when a generator is made: a request with other settings gets a
    new generator (and evaluates its whole prompt)."""
    return (p.temperature, p.top_k, p.top_p, p.repeat_penalty, p.seed)

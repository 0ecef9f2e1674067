"""Core ML language models (macOS): a stateful ``.mlpackage`` run by Core ML on the Neural
Engine, the GPU and the CPU (``ComputeUnit.ALL``: Core ML places each part), through the shared
generation loop (engine/generation/loop.py).

The package keeps its KV cache as Core ML state, written at the positions the causal mask
covers: the mask of a step is as wide as everything in the cache plus the step's tokens. So the
conversation's cache is kept across turns by keeping the state and the position, and a rewind
only moves the position back (later positions are written over, and masked until they are).
The tokenizer is the package's ``tokenizer.json`` (the ``tokenizers`` package); the chat
template is rendered in the sandbox like every other model's; sampling is Cove's own
(engine/generation/sampling.py), since Core ML returns logits.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.backends.base import LoadProgress
from engine.capabilities import Capabilities
from engine.errors import BackendUnavailable, LoadCancelled, ModelLoadError
from engine.formats.coreml import CoreMLModelInfo, is_coreml_model, read_coreml_model
from engine.generation.loop import GenerationLoop, TokenDecoder, TokenSource
from engine.generation.sampling import LogitSampler
from engine.planner.plan import Plan
from engine.templates import ChatTemplate, choose_template, render
from engine.tools import Tool
from engine.types import ChatMessage, GenerationParams

MASKED = -65504.0  # float16's lowest: a position the step must not attend to


def availability() -> str | None:
    if sys.platform != "darwin":
        return f"Core ML runs only on macOS (this is {sys.platform})."
    try:
        import coremltools  # noqa: F401
    except ImportError as exc:
        return f"coremltools is not installed ({exc}). Reinstall Cove's dependencies."
    return None


class CoreMLBackend:
    name = "coreml"

    def availability(self) -> str | None:
        return availability()

    def handles(self, path: Path) -> bool:
        return is_coreml_model(path)

    def load(self, path: Path, plan: Plan, progress: LoadProgress | None = None) -> CoreMLModel:
        why = availability()
        if why is not None:
            raise BackendUnavailable(why)
        info = read_coreml_model(path)
        if progress is not None and not progress(0.0):
            raise LoadCancelled(f"Loading {path.name} was cancelled.")
        import coremltools as ct

        try:
            runtime = ct.models.MLModel(str(info.package), compute_units=ct.ComputeUnit.ALL)
        except Exception as exc:  # Core ML's own errors
            raise ModelLoadError(f"Core ML could not load {info.package.name}: {exc}") from None
        model = CoreMLModel(info, plan, runtime)
        if progress is not None and not progress(1.0):
            model.close()
            raise LoadCancelled(f"Loading {path.name} was cancelled.")
        return model


class CoreMLModel(GenerationLoop):
    """One resident package and one conversation's KV-cache state. ``runtime`` is anything with
    Core ML's ``make_state()`` and ``predict(inputs, state=...)``."""

    runtime = "Core ML"
    capabilities = Capabilities(runtime="Core ML")

    def __init__(self, info: CoreMLModelInfo, plan: Plan, runtime: Any) -> None:
        super().__init__(min(plan.n_ctx, info.context_length), plan.n_batch)
        from tokenizers import Tokenizer

        self.info = info
        self.name = info.name
        self.template: ChatTemplate = choose_template(
            embedded=info.chat_template, architecture=info.architecture, model_name=info.name
        )
        folder = info.package.parent
        try:
            self._tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # the tokenizers library's errors
            raise ModelLoadError(f"{folder.name}/tokenizer.json cannot be read: {exc}") from None
        self._runtime: Any = runtime
        self._state: Any = runtime.make_state()
        self._position = 0  # tokens in the state's cache
        self._logits: Any = None
        self._end = self._end_tokens(folder)

    # -- what the loop asks of Core ML ----------------------------------------------------------

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        return render(self.template, messages, tools=tools, thinking=thinking)

    def _token_bytes(self, token: int) -> bytes:
        return str(self._tokenizer.decode([token], skip_special_tokens=False)).encode("utf-8")

    def tokenize(self, text: str) -> list[int]:
        self._check_open()
        return [int(t) for t in self._tokenizer.encode(text, add_special_tokens=False).ids]

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        keep = min(keep, self._position)
        self._position = keep
        return keep

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        import numpy as np

        if cancel.is_set():
            return False
        n, start = len(tokens), self._position
        inputs: dict[str, Any] = {self.info.ids_input: np.asarray([tokens], dtype=np.int32)}
        if self.info.mask_input is not None:
            # Row i (position start + i) sees every cached position and its own and earlier ones.
            columns = np.arange(start + n)[None, :]
            rows = (start + np.arange(n))[:, None]
            mask = np.where(columns <= rows, 0.0, MASKED).astype(np.float16)
            inputs[self.info.mask_input] = mask[None, None, :, :]
        out = self._runtime.predict(inputs, state=self._state)
        logits = np.asarray(out[self.info.logits_output])
        self._logits = logits.reshape(-1, logits.shape[-1])[-1]
        self._position = start + n
        return True

    @contextlib.contextmanager
    def _sampler(self, params: GenerationParams) -> Iterator[TokenSource]:
        yield _Sampler(self, LogitSampler(params, self._end))

    def _is_end(self, token: int) -> bool:
        return token in self._end

    def _decoder(self) -> TokenDecoder:
        return _StreamDecoder(self._tokenizer)

    def _forget(self) -> None:
        if self._runtime is not None:
            self._state = self._runtime.make_state()
        self._position = 0
        self._logits = None

    def _free(self) -> None:
        self._state = None
        self._runtime = None
        self._tokenizer = None

    # -- the package's end tokens ---------------------------------------------------------------

    def _end_tokens(self, folder: Path) -> frozenset[int]:
        names: list[str] = list(self.template.stop)
        try:
            config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            config = {}
        eos = config.get("eos_token") if isinstance(config, dict) else None
        if isinstance(eos, dict):
            eos = eos.get("content")
        if isinstance(eos, str):
            names.append(eos)
        found = {self._tokenizer.token_to_id(name) for name in names}
        return frozenset(int(t) for t in found if t is not None)


class _Sampler:
    """Core ML returns logits: Cove samples, and a token accepted is fed back in, so that the
    next logits follow it."""

    def __init__(self, model: CoreMLModel, sampler: LogitSampler) -> None:
        self._model = model
        self._sampler = sampler

    def sample(self) -> int:
        return self._sampler.choose(self._model._logits, self._model._cached)

    def logits(self) -> Any:
        return self._model._logits

    def accept(self, token: int, cancel: threading.Event) -> bool:
        return self._model._feed([token], cancel, last=True)


class _StreamDecoder:
    """Token ids to text with the tokenizers library's stream decoder, which holds back the
    bytes of a character split across tokens."""

    def __init__(self, tokenizer: Any) -> None:
        from tokenizers.decoders import DecodeStream

        self._tokenizer = tokenizer
        self._stream = DecodeStream(skip_special_tokens=True)

    def feed(self, token: int) -> str:
        return self._stream.step(self._tokenizer, token) or ""

    def flush(self) -> str:
        return ""

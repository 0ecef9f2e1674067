"""Core ML, as far as it runs off a Mac: a real stateful .mlpackage built with coremltools' MIL
builder (a KV-cache state, token ids, a causal mask, logits), read and planned by Cove; the
backend saying why it cannot run here; and the generation loop on a stand-in with Core ML's own
``make_state()`` / ``predict(inputs, state=...)`` interface, whose next token depends on every
token in its cache, so that a cache kept wrongly across turns shows in the text.

Not run here (no Mac): Core ML's prediction itself, the Neural Engine, and speed.
"""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.backends import backend_for, get_backend
from engine.backends.coreml import CoreMLModel
from engine.errors import BackendUnavailable, ModelLoadError
from engine.formats.coreml import CoreMLModelInfo, is_coreml_model, read_coreml_model
from engine.hardware import probe_hardware
from engine.planner.coreml import plan_coreml
from engine.planner.plan import resources_from
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

ct = pytest.importorskip("coremltools", reason="coremltools is not installed")

LAYERS, KV_HEADS, CONTEXT, HEAD, VOCAB = 2, 2, 256, 8, 64
ONNX_STARTER = "smollm2-135m-instruct-onnx-int4-cpu"


def build_package(path: Path, *, stateful: bool = True) -> None:
    """A tiny stateful language model in Core ML's own format: it reads and writes its key and
    value caches as state, as Apple's stateful Llama conversion does."""
    from coremltools.converters.mil import Builder as mb
    from coremltools.converters.mil.mil import types

    cache = (LAYERS, 1, KV_HEADS, CONTEXT, HEAD)
    specs = [
        mb.TensorSpec((1, 4), dtype=types.int32),
        mb.TensorSpec((1, 1, 4, 8), dtype=types.fp16),
    ]
    if stateful:
        specs += [mb.StateTensorSpec(cache, dtype=types.fp16) for _ in range(2)]

    if stateful:

        @mb.program(input_specs=specs, opset_version=ct.target.iOS18)  # type: ignore[untyped-decorator]
        def program(inputIds: Any, causalMask: Any, keyCache: Any, valueCache: Any) -> Any:
            for state in (keyCache, valueCache):
                mb.coreml_update_state(
                    state=state, value=mb.add(x=mb.read_state(input=state), y=np.float16(1))
                )
            hidden = mb.cast(x=inputIds, dtype="fp16")
            logits = mb.matmul(x=hidden, y=np.ones((4, VOCAB), dtype=np.float16))
            return mb.expand_dims(x=logits, axes=[0], name="logits")

    else:

        @mb.program(input_specs=specs, opset_version=ct.target.iOS18)  # type: ignore[untyped-decorator]
        def program(inputIds: Any, causalMask: Any) -> Any:
            hidden = mb.cast(x=inputIds, dtype="fp16")
            logits = mb.matmul(x=hidden, y=np.ones((4, VOCAB), dtype=np.float16))
            return mb.expand_dims(x=logits, axes=[0], name="logits")

    model = ct.convert(program, minimum_deployment_target=ct.target.iOS18, skip_model_load=True)
    model.save(str(path))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, shared_models: Path) -> Path:
    root = tmp_path_factory.mktemp("coreml") / "tiny-lm-coreml"
    root.mkdir()
    build_package(root / "TinyLM.mlpackage")
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        shutil.copy(shared_models / ONNX_STARTER / name, root / name)
    (root / "config.json").write_text('{"model_type": "llama"}')
    return root


def test_a_stateful_package_is_read_from_its_own_description(folder: Path) -> None:
    assert is_coreml_model(folder) and is_coreml_model(folder / "TinyLM.mlpackage")
    info = read_coreml_model(folder)
    assert (info.ids_input, info.mask_input, info.logits_output) == (
        "inputIds",
        "causalMask",
        "logits",
    )
    assert [s.name for s in info.states] == ["keyCache", "valueCache"]
    assert (info.layers, info.kv_heads, info.context_length, info.head_size) == (
        LAYERS,
        KV_HEADS,
        CONTEXT,
        HEAD,
    )
    assert info.vocab_size == VOCAB and info.architecture == "llama"
    assert info.weights_bytes > 0 and info.chat_template is not None
    assert info.state_bytes == 2 * LAYERS * KV_HEADS * CONTEXT * HEAD * 2  # two fp16 caches


def test_its_plan_counts_weights_state_and_scratch(folder: Path) -> None:
    info = read_coreml_model(folder)
    plan = plan_coreml(info, resources_from(probe_hardware()), requested_ctx=512)
    assert plan.backend == "coreml" and plan.verdict == "fits"
    assert plan.n_ctx == CONTEXT and plan.kv_type == "f16"
    (budget,) = plan.budgets
    assert budget.kv_cache == info.state_bytes and budget.weights == info.weights_bytes
    assert any("holds 256 tokens" in r for r in plan.reasons)


def test_a_package_without_a_kv_cache_state_is_refused(tmp_path: Path, shared_models: Path) -> None:
    build_package(tmp_path / "Stateless.mlpackage", stateful=False)
    shutil.copy(shared_models / ONNX_STARTER / "tokenizer.json", tmp_path / "tokenizer.json")
    with pytest.raises(ModelLoadError, match="keeps no KV cache as state"):
        read_coreml_model(tmp_path)


@pytest.mark.skipif(sys.platform == "darwin", reason="this machine runs Core ML")
def test_off_a_mac_the_backend_says_why(folder: Path) -> None:
    backend = get_backend("coreml")
    assert backend_for(folder) is backend
    reason = backend.availability()
    assert reason is not None and reason.startswith("Core ML runs only on macOS")
    plan = plan_coreml(read_coreml_model(folder), resources_from(probe_hardware()))
    with pytest.raises(BackendUnavailable, match="only on macOS"):
        backend.load(folder, plan)


class StandIn:
    """Core ML's runtime interface over a cache of token ids: the state holds what was written
    at each position, a step writes its tokens where the causal mask says they go, and the next
    token is a function of the whole cache. Every call checks the mask."""

    def __init__(self, words: list[int], vocab: int) -> None:
        self.words = words
        self.vocab = vocab
        self.calls = 0

    def make_state(self) -> dict[str, Any]:
        return {"cache": np.full(CONTEXT, -1, dtype=np.int64)}

    def predict(self, inputs: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        ids = inputs["inputIds"][0]
        mask = inputs["causalMask"][0, 0]
        n, total = mask.shape
        assert n == len(ids) and inputs["inputIds"].dtype == np.int32
        start = total - n
        for i in range(n):  # row i sees positions up to start + i, and no later one
            assert (mask[i, : start + i + 1] == 0).all() and (mask[i, start + i + 1 :] < -1e4).all()
        cache = state["cache"]
        cache[start:total] = ids
        logits = np.zeros((1, n, self.vocab), dtype=np.float16)
        for i in range(n):
            seen = cache[: start + i + 1]
            assert (seen >= 0).all(), "a position read before it was written"
            nxt = self.words[int(seen.sum() * 7 + seen.size) % len(self.words)]
            logits[0, i, nxt] = 10.0
        return {"logits": logits}


@pytest.fixture
def model(folder: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    found = [
        tokenizer.token_to_id(w)
        for w in ("Ġthe", "Ġharbour", "Ġferry", "Ġleaves", "Ġat", "Ġnine", "Ġand", "Ġtide")
    ]
    words = [w for w in found if w is not None]
    assert len(words) == len(found)
    info = read_coreml_model(folder)
    vocab = tokenizer.get_vocab_size()

    def make() -> CoreMLModel:
        plan = plan_coreml(info, resources_from(probe_hardware()))
        return CoreMLModel(_with_vocab(info, vocab), plan, StandIn(words, vocab))

    return make


def _with_vocab(info: CoreMLModelInfo, vocab: int) -> CoreMLModelInfo:
    from dataclasses import replace

    return replace(info, vocab_size=vocab)


GREEDY = GenerationParams(temperature=0.0, max_tokens=12, repeat_penalty=1.0)


def test_the_loop_generates_and_streams_from_logits(model: Any) -> None:
    m = model()
    text, final = collect(m.complete("The harbour", GREEDY))
    assert text.strip() and final.finish_reason == "length"
    assert final.stats is not None and final.stats.completion_tokens == 12


def test_the_cache_is_kept_across_turns_and_matches_a_fresh_start(model: Any) -> None:
    first = [ChatMessage("user", "When does the ferry leave?")]
    kept = model()
    reply, final = collect(kept.chat(first, GREEDY))
    follow = [*first, ChatMessage("assistant", reply), ChatMessage("user", "And on Sundays?")]
    again, final = collect(kept.chat(follow, GREEDY))
    assert final.stats is not None and final.stats.cached_tokens > 0  # only the new part ran
    fresh_text, _final = collect(model().chat(follow, GREEDY))
    assert again == fresh_text  # the kept cache gave what a fresh one gives


def test_a_rewound_cache_is_written_over(model: Any) -> None:
    """Two different follow-ups to one conversation: the second rewinds past the first's tail,
    and its text is what a fresh model writes."""
    m = model()
    base = [ChatMessage("user", "Tides today?")]
    collect(
        m.chat([*base, ChatMessage("assistant", "High at noon."), ChatMessage("user", "A")], GREEDY)
    )
    other = [*base, ChatMessage("assistant", "Low at six."), ChatMessage("user", "B")]
    text, _final = collect(m.chat(other, GREEDY))
    assert text == collect(model().chat(other, GREEDY))[0]


def test_stop_strings_cancel_and_reset(model: Any) -> None:
    m = model()
    full, _final = collect(m.complete("The harbour", GREEDY))
    stop = full.split()[2]
    text, final = collect(m.complete("The harbour", GenerationParams(
        temperature=0.0, max_tokens=12, repeat_penalty=1.0, stop=(stop,)
    )))  # fmt: skip
    assert final.finish_reason == "stop" and stop not in text and full.startswith(text)
    cancel = threading.Event()
    cancel.set()
    _text, final = collect(m.complete("The ferry", GREEDY, cancel))
    assert final.finish_reason == "cancelled"
    m.reset()
    assert collect(m.complete("The harbour", GREEDY))[0] == full
    m.close()


def test_sampling_is_reproducible_with_a_seed(model: Any) -> None:
    params = GenerationParams(temperature=0.8, max_tokens=8, seed=7)
    assert (
        collect(model().complete("The tide", params))[0]
        == collect(model().complete("The tide", params))[0]
    )

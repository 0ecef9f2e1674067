"""Core ML language models: a stateful ``.mlpackage`` (its KV cache kept as Core ML state, as
Apple's conversion of Llama-style models makes them, macOS 15 / iOS 18 and later) with the
model's ``tokenizer.json`` beside it; read from the package's own description (planned against
free memory by ``engine/planner/coreml.py``).

Cove takes a folder holding one ``.mlpackage``, ``tokenizer.json``, and optionally
``tokenizer_config.json`` (its ``chat_template``) and ``config.json`` (``model_type``), or the
``.mlpackage`` itself with those files beside it. The package must have an int32 token-ids input,
optionally a float16 causal-mask input, a logits output, and key and value cache states shaped
(layers, batch, kv heads, context, head size): the context length is the states' fourth size.

Reading needs coremltools (it reads the package's protobuf description) but no Mac; running it
needs macOS.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ModelLoadError, ModelNotFound

PACKAGE_SUFFIX = ".mlpackage"
WEIGHTS = Path("Data") / "com.apple.CoreML" / "weights"
PREFILL_CHUNK = 64  # tokens a prompt is fed in: the mask and logits scratch are sized by it

# Core ML's ArrayFeatureType data types (FeatureTypes.proto): bytes per element.
_DTYPE_BYTES = {65552: 2, 65568: 4, 65600: 8, 131104: 4, 131080: 1}
_INT32 = 131104
_FLOAT16 = 65552


@dataclass(frozen=True, slots=True)
class CoreMLState:
    name: str
    shape: tuple[int, ...]
    element_bytes: int

    @property
    def bytes(self) -> int:
        return math.prod(self.shape) * self.element_bytes


@dataclass(frozen=True, slots=True)
class CoreMLModelInfo:
    path: Path  # the folder Cove was given
    package: Path
    name: str
    architecture: str
    ids_input: str
    mask_input: str | None
    logits_output: str
    states: tuple[CoreMLState, ...]
    context_length: int
    layers: int
    kv_heads: int
    head_size: int
    vocab_size: int
    weights_bytes: int
    chat_template: str | None

    @property
    def state_bytes(self) -> int:
        return sum(s.bytes for s in self.states)

    def summary(self) -> dict[str, object]:
        return {
            "format": "coreml (stateful mlpackage)",
            "name": self.name,
            "architecture": self.architecture,
            "layers": self.layers,
            "kv_heads": self.kv_heads,
            "context_length": self.context_length,
            "vocab_size": self.vocab_size,
            "weights_bytes": self.weights_bytes,
            "state_bytes": self.state_bytes,
            "inputs": [self.ids_input, *([self.mask_input] if self.mask_input else [])],
            "states": [s.name for s in self.states],
        }


def find_package(path: Path) -> Path | None:
    """The ``.mlpackage`` that ``path`` is, or the one folder ``path`` holds."""
    if path.suffix == PACKAGE_SUFFIX and path.is_dir():
        return path
    if not path.is_dir():
        return None
    found = [p for p in path.iterdir() if p.suffix == PACKAGE_SUFFIX and p.is_dir()]
    return found[0] if len(found) == 1 else None


def is_coreml_model(path: Path) -> bool:
    """Cheap: a package and a tokenizer beside it (nothing is parsed)."""
    package = find_package(path)
    return package is not None and (package.parent / "tokenizer.json").is_file()


def read_coreml_model(path: Path) -> CoreMLModelInfo:
    """The package's interface and sizes, checked; a clear ModelLoadError for anything that is
    not a stateful language model Cove can run."""
    if not path.exists():
        raise ModelNotFound(f"No Core ML model at {path}.")
    package = find_package(path)
    if package is None:
        raise ModelLoadError(f"{path.name} holds no single {PACKAGE_SUFFIX}.")
    folder = package.parent
    if not (folder / "tokenizer.json").is_file():
        raise ModelLoadError(f"{package.name} has no tokenizer.json beside it.")
    spec = _load_spec(package)
    description = spec.description
    ids = mask = None
    for feature in description.input:
        array = _array(feature)
        if array is None:
            raise ModelLoadError(f"{package.name}: input {feature.name!r} is not an array.")
        if array.dataType == _INT32 and ids is None:
            ids = feature.name
        elif array.dataType == _FLOAT16 and len(array.shape) == 4 and mask is None:
            mask = feature.name
        else:
            raise ModelLoadError(
                f"{package.name}: unexpected input {feature.name!r}; a language model takes "
                "token ids (int32) and a causal mask (float16)."
            )
    if ids is None:
        raise ModelLoadError(f"{package.name} has no int32 token-ids input: not a language model.")
    outputs = [(f.name, _array(f)) for f in description.output]
    logits = [(name, a) for name, a in outputs if a is not None and len(a.shape) >= 2]
    if not logits:
        raise ModelLoadError(f"{package.name} has no logits output.")
    logits_name, logits_array = logits[0]
    states = tuple(
        CoreMLState(
            f.name,
            tuple(int(d) for d in f.type.stateType.arrayType.shape),
            _DTYPE_BYTES.get(int(f.type.stateType.arrayType.dataType), 2),
        )
        for f in getattr(description, "state", ())
    )
    caches = [s for s in states if len(s.shape) == 5]
    if len(caches) < 2:
        raise ModelLoadError(
            f"{package.name} keeps no KV cache as state (a stateful model for macOS 15 or "
            "later, converted with key and value cache states, is needed)."
        )
    layers, _batch, kv_heads, context, head = caches[0].shape
    config = _json(folder / "config.json")
    tokenizer_config = _json(folder / "tokenizer_config.json")
    template = tokenizer_config.get("chat_template")
    if not isinstance(template, str):
        jinja = folder / "chat_template.jinja"
        template = jinja.read_text(encoding="utf-8") if jinja.is_file() else None
    weights = sum(f.stat().st_size for f in (package / WEIGHTS).glob("*") if f.is_file())
    return CoreMLModelInfo(
        path=path,
        package=package,
        name=package.stem,
        architecture=str(config.get("model_type") or "unknown"),
        ids_input=ids,
        mask_input=mask,
        logits_output=logits_name,
        states=states,
        context_length=int(context),
        layers=int(layers),
        kv_heads=int(kv_heads),
        head_size=int(head),
        vocab_size=int(logits_array.shape[-1]),
        weights_bytes=weights,
        chat_template=template,
    )


def _load_spec(package: Path) -> Any:
    try:
        import coremltools as ct
    except ImportError as exc:
        raise ModelLoadError(
            f"Reading Core ML packages needs coremltools ({exc}). On a Mac it comes with Cove; "
            "elsewhere: pip install coremltools."
        ) from None
    try:
        return ct.utils.load_spec(str(package))
    except Exception as exc:  # coremltools' own errors are plain exceptions
        raise ModelLoadError(f"{package.name} is not a readable Core ML package: {exc}") from None


def _array(feature: Any) -> Any:
    kind = feature.type.WhichOneof("Type")
    return feature.type.multiArrayType if kind == "multiArrayType" else None


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file() or path.stat().st_size > 8 << 20:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

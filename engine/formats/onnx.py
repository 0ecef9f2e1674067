"""ONNX chat models (onnxruntime-genai folders): what a folder holds, read without loading it (the
memory plan for it is ``engine/planner/onnx.py``).

A folder is ``genai_config.json`` + the ONNX graph and its weights + ``tokenizer.json``, as
onnxruntime-genai's model builder writes it. The config is untrusted input: every field is checked
here before the runtime sees the folder.

Memory (measured on the test model, see docs/MEMORY_PLANNER.md):
  need = process and runtime baseline + weights (the ONNX files, read into memory)
       + KV cache (the runtime allocates it for the whole context up front: layers x 2 x kv_heads
         x head_size x context x bytes per element, fp32 for CPU builds, fp16 for GPU/NPU ones)
       + one prefill chunk's scratch: its logits (chunk x vocab x 4 bytes) or its attention scores
         (heads x chunk x context x 4 bytes), whichever is larger
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelLoadError, ModelNotFound

CONFIG = "genai_config.json"
MAX_CONFIG_BYTES = 1 << 20
PREFILL_CHUNK = 512
_GPU_PROVIDERS = ("cuda", "dml", "webgpu", "qnn", "openvino", "vitisai")
_EP_CONTEXT = b"EPContext"
_GRAPH_HEAD = 4 << 20  # the graph's nodes come before its weights in the file


@dataclass(frozen=True, slots=True)
class OnnxModelInfo:
    path: Path
    name: str
    architecture: str
    layers: int
    heads: int
    kv_heads: int
    head_size: int
    context_length: int
    vocab_size: int
    weights_bytes: int
    kv_bytes_per_element: int
    providers: tuple[str, ...]
    chat_template: str | None
    compiled: bool = False  # holds precompiled device contexts (EPContext nodes)

    @property
    def provider(self) -> str:
        """The execution provider the build is for ("cpu" when none is named)."""
        return self.providers[0] if self.providers else "cpu"

    def kv_cache_bytes(self, n_ctx: int) -> int:
        per_token = self.layers * 2 * self.kv_heads * self.head_size * self.kv_bytes_per_element
        return per_token * n_ctx

    def summary(self) -> dict[str, object]:
        return {
            "format": "onnx (onnxruntime-genai)",
            "name": self.name,
            "architecture": self.architecture,
            "layers": self.layers,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "context_length": self.context_length,
            "vocab_size": self.vocab_size,
            "weights_bytes": self.weights_bytes,
            "providers": list(self.providers) or ["cpu"],
        }


def is_onnx_chat_folder(path: Path) -> bool:
    return path.is_dir() and (path / CONFIG).is_file()


def read_onnx_model(path: Path) -> OnnxModelInfo:
    """Read and check a model folder's config; a clear ModelLoadError for anything malformed."""
    if not path.is_dir():
        raise ModelNotFound(f"No model folder at {path}.")
    config_path = path / CONFIG
    if not config_path.is_file():
        raise ModelLoadError(f"{path.name} has no {CONFIG}: it is not an ONNX chat model folder.")
    if config_path.stat().st_size > MAX_CONFIG_BYTES:
        raise ModelLoadError(f"{config_path} is implausibly large for a model config.")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelLoadError(f"{config_path} is not valid JSON: {exc}.") from None
    model = _dict(config, "model", config_path)
    decoder = _dict(model, "decoder", config_path)
    graph = decoder.get("filename")
    if not isinstance(graph, str) or "/" in graph or "\\" in graph or graph.startswith("."):
        raise ModelLoadError(f"{config_path}: decoder.filename must name a file in the folder.")
    if not (path / graph).is_file():
        raise ModelLoadError(f"{path.name} is missing its model graph {graph}.")
    if not (path / "tokenizer.json").is_file():
        raise ModelLoadError(f"{path.name} is missing tokenizer.json.")
    heads = _int(decoder, "num_attention_heads", config_path, 1, 1024)
    providers = _providers(decoder)
    template = onnx_chat_template(path)
    weights = sum(
        f.stat().st_size
        for f in path.iterdir()
        if f.is_file() and (f.name.endswith(".onnx") or f.name.endswith(".onnx.data"))
    )
    return OnnxModelInfo(
        path=path,
        name=path.name,
        architecture=str(model.get("type") or "unknown"),
        layers=_int(decoder, "num_hidden_layers", config_path, 1, 1024),
        heads=heads,
        kv_heads=_int(decoder, "num_key_value_heads", config_path, 1, heads, default=heads),
        head_size=_int(decoder, "head_size", config_path, 1, 4096),
        context_length=_int(model, "context_length", config_path, 16, 1 << 22),
        vocab_size=_int(model, "vocab_size", config_path, 1, 1 << 22),
        weights_bytes=weights,
        kv_bytes_per_element=2 if any(p in _GPU_PROVIDERS for p in providers) else 4,
        providers=providers,
        chat_template=template,
        compiled=_has_ep_context(path / graph),
    )


def onnx_chat_template(path: Path) -> str | None:
    """The chat template in a model folder's ``chat_template.jinja`` (None: none, or one too
    large to be a template)."""
    template_file = path / "chat_template.jinja"
    if template_file.is_file() and template_file.stat().st_size <= MAX_CONFIG_BYTES:
        return template_file.read_text(encoding="utf-8", errors="replace")
    return None


def _has_ep_context(graph: Path) -> bool:
    with graph.open("rb") as f:
        return _EP_CONTEXT in f.read(_GRAPH_HEAD)


def _dict(data: object, key: str, where: Path) -> dict[str, object]:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, dict):
        raise ModelLoadError(f"{where}: '{key}' must be an object.")
    return value


def _int(
    data: dict[str, object],
    key: str,
    where: Path,
    low: int,
    high: int,
    default: int | None = None,
) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ModelLoadError(f"{where}: '{key}' must be an integer between {low} and {high}.")
    return value


def _providers(decoder: dict[str, object]) -> tuple[str, ...]:
    options = decoder.get("session_options")
    entries = options.get("provider_options") if isinstance(options, dict) else None
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict):
            found.extend(str(k).lower() for k in entry)
    return tuple(found)

"""What the sentence encoder and the reranker share: a BERT-style ONNX graph opened on ONNX
Runtime's CPU provider (so that it never competes with the chat model for an accelerator's
memory), its ``tokenizers`` tokenizer, and a batch of encodings as the padded integer arrays the
graph is fed.

onnxruntime, tokenizers and numpy are imported inside functions: importing ``engine`` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.errors import BackendUnavailable, ModelLoadError
from engine.native.ort import import_onnxruntime

# The files of an encoder or reranker folder, as the library installs them.
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
FEEDABLE_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
INT_TYPES = {"tensor(int64)": "int64", "tensor(int32)": "int32"}
CPU_PROVIDER = "CPUExecutionProvider"


def read_json(path: Path) -> dict[str, Any]:
    """A model folder's settings file, or a ``ModelLoadError`` that says to download it again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(
            f"Cannot read {path} ({exc}). The file is damaged; download the model again."
        ) from exc
    if not isinstance(data, dict):
        raise ModelLoadError(f"{path} is not a settings object. Download the model again.")
    return data


def physical_cores() -> int:
    import psutil

    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1


def load_tokenizers(path: Path, max_tokens: int) -> tuple[Any, Any]:
    """(the tokenizer, truncating at ``max_tokens``; a copy that neither truncates nor pads, for
    counting a text's whole length). The first keeps its padding settings until its pad id is
    read (``pad_id``); batches are padded by ``batch_feed``."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BackendUnavailable(
            f"The tokenizers package is not installed ({exc}). Reinstall Cove's dependencies."
        ) from exc
    try:
        text = path.read_text(encoding="utf-8")
        tokenizer = Tokenizer.from_str(text)
        counter = Tokenizer.from_str(text)
    except Exception as exc:  # the Rust parser raises plain Exception with a serde message
        raise ModelLoadError(
            f"The tokenizer {path} cannot be read ({exc}). Download the model again."
        ) from exc
    tokenizer.enable_truncation(max_length=max_tokens)
    counter.no_padding()
    counter.no_truncation()
    return tokenizer, counter


def pad_id(tokenizer: Any, pad_token: str | None) -> int:
    """The id the tokenizer pads with: its own padding's, else its ``pad_token``'s, else 0."""
    padding = tokenizer.padding
    if padding and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"])
    if pad_token is not None:
        found = tokenizer.token_to_id(pad_token)
        if found is not None:
            return int(found)
    return 0


def open_session(path: Path, threads: int, *, named: str, kind: str) -> Any:
    """``path``'s graph on the CPU provider, checked to take only BERT-style integer token
    inputs. ``named``: how an error names the model; ``kind``: the kind of model to choose
    instead."""
    try:
        ort = import_onnxruntime()
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BackendUnavailable(
            f"onnxruntime is not installed ({exc}). Reinstall Cove's dependencies."
        ) from exc
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: warnings about unused initialisers are noise
    if CPU_PROVIDER not in ort.get_available_providers():  # pragma: no cover - broken install
        raise BackendUnavailable(
            "This onnxruntime build has no CPU execution provider. Reinstall onnxruntime."
        )
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=[CPU_PROVIDER])
    except Exception as exc:  # native boundary: InvalidProtobuf, Fail, InvalidGraph ...
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ModelLoadError(
            f"ONNX Runtime cannot load {named} ({reason}). The file is damaged or not an ONNX "
            "model; download the model again."
        ) from exc
    inputs = session.get_inputs()
    names = [arg.name for arg in inputs]
    unknown = [name for name in names if name not in FEEDABLE_INPUTS]
    wrong = [arg.name for arg in inputs if arg.type not in INT_TYPES]
    if unknown or "input_ids" not in names or wrong:
        raise ModelLoadError(
            f"{named} expects inputs {names}; Cove feeds integer input_ids, attention_mask and "
            f"token_type_ids. Choose a BERT-style {kind}."
        )
    return session


def input_types(session: Any) -> dict[str, str]:
    """The graph's inputs and the integer type each takes."""
    return {arg.name: INT_TYPES[arg.type] for arg in session.get_inputs()}


def batch_feed(encodings: Sequence[Any], pad: int, inputs: dict[str, str], np: Any) -> Any:
    """(the feed for ``encodings``, padded to the longest with ``pad``: only the inputs the graph
    takes, in its types; the attention mask, for pooling)."""
    length = max(1, max(len(e.ids) for e in encodings))
    ids = np.full((len(encodings), length), pad, dtype=np.int64)
    mask = np.zeros((len(encodings), length), dtype=np.int64)
    types = np.zeros((len(encodings), length), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        n = len(encoding.ids)
        ids[row, :n] = encoding.ids
        mask[row, :n] = encoding.attention_mask
        types[row, :n] = encoding.type_ids
    arrays = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    feed = {name: arrays[name].astype(dtype, copy=False) for name, dtype in inputs.items()}
    return feed, mask

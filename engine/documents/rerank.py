"""A reranking stage: a cross-encoder reads the question and each of the best passages together
and scores how well the passage answers it, which separates pages that share every word of the
question (a section's heading page and the page that holds its answer; option tables that
differ in one row) better than either half of the hybrid search can.

A model folder holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask`` and optionally
``token_type_ids``; output ``logits`` of shape ``[batch, 1]``, or ``[batch, 2]`` whose last
column is "relevant") and ``tokenizer.json`` for the ``tokenizers`` package, with
``tokenizer_config.json`` for the longest input; the catalog's ``ms-marco-minilm-l6-v2``
installs as such a folder (``cove pull ms-marco-minilm-l6-v2``). Reranking changes only the
order of what retrieval found, never the index, so a collection can be asked with or without it.

onnxruntime, tokenizers and numpy are imported inside functions: importing ``engine`` stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.errors import GenerationError, ModelLoadError

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
MAX_TOKENS = 512  # BERT-style cross-encoders have 512 learned positions
BATCH = 16
_INT_TYPES = {"tensor(int64)": "int64", "tensor(int32)": "int32"}
_FEEDABLE = ("input_ids", "attention_mask", "token_type_ids")


def is_reranker_folder(path: Path) -> bool:
    """A cross-encoder folder: a model and its tokenizer, and no pooling settings (an embedding
    model's folder has them)."""
    return (
        path.is_dir()
        and (path / MODEL_FILE).is_file()
        and (path / TOKENIZER_FILE).is_file()
        and not (path / "pooling_config.json").exists()
        and not (path / "genai_config.json").exists()
    )


class CrossEncoder:
    """One loaded cross-encoder on ONNX Runtime's CPU provider (it runs beside the chat model
    without competing for an accelerator's memory)."""

    def __init__(self, folder: Path, session: Any, tokenizer: Any) -> None:
        self._folder = folder
        self._session: Any = session
        self._tokenizer: Any = tokenizer
        self._inputs = {arg.name: _INT_TYPES[arg.type] for arg in session.get_inputs()}
        self._output: str = session.get_outputs()[0].name

    @classmethod
    def load(cls, folder: Path, *, threads: int | None = None) -> CrossEncoder:
        from engine.documents.embeddings import _load_tokenizers, _physical_cores, _read_json
        from engine.native.ort import import_onnxruntime

        folder = Path(folder)
        if not is_reranker_folder(folder):
            raise ModelLoadError(
                f"{folder} is not a reranker folder: it needs {MODEL_FILE} and "
                f"{TOKENIZER_FILE}, and no pooling settings (that is an embedding model)."
            )
        limit = MAX_TOKENS
        if (folder / TOKENIZER_CONFIG_FILE).is_file():
            declared = _read_json(folder / TOKENIZER_CONFIG_FILE).get("model_max_length")
            if isinstance(declared, int | float) and 2 <= declared < MAX_TOKENS:
                limit = int(declared)
        tokenizer, _counter = _load_tokenizers(folder / TOKENIZER_FILE, limit)
        tokenizer.no_padding()
        ort = import_onnxruntime()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or _physical_cores()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(folder / MODEL_FILE), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # native boundary: ONNX Runtime raises its own types
            raise ModelLoadError(
                f"ONNX Runtime cannot load the reranker {folder} ({exc}). Download it again."
            ) from exc
        names = [arg.name for arg in session.get_inputs()]
        wrong = [arg.name for arg in session.get_inputs() if arg.type not in _INT_TYPES]
        if "input_ids" not in names or any(n not in _FEEDABLE for n in names) or wrong:
            raise ModelLoadError(
                f"The reranker {folder} expects inputs {names}; Cove feeds a BERT-style "
                "cross-encoder input_ids, attention_mask and token_type_ids."
            )
        return cls(folder, session, tokenizer)

    @property
    def name(self) -> str:
        return self._folder.name

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """How well each passage answers the question (a logit: higher is better)."""
        if self._session is None:
            raise GenerationError(f"The reranker {self.name} was closed.")
        if not passages:
            return []
        import numpy as np

        encodings = self._tokenizer.encode_batch([(question, p) for p in passages])
        scores: list[float] = []
        for start in range(0, len(encodings), BATCH):
            part = encodings[start : start + BATCH]
            length = max(1, max(len(e.ids) for e in part))
            arrays = {name: np.zeros((len(part), length), dtype=np.int64) for name in _FEEDABLE}
            for row, e in enumerate(part):
                n = len(e.ids)
                arrays["input_ids"][row, :n] = e.ids
                arrays["attention_mask"][row, :n] = e.attention_mask
                arrays["token_type_ids"][row, :n] = e.type_ids
            feed = {n: arrays[n].astype(t, copy=False) for n, t in self._inputs.items()}
            try:
                (logits,) = self._session.run([self._output], feed)
            except Exception as exc:  # native boundary
                raise GenerationError(f"The reranker {self.name} failed ({exc}).") from exc
            logits = np.asarray(logits, dtype=np.float32).reshape(len(part), -1)
            scores += [float(x) for x in logits[:, -1]]
        return scores

    def close(self) -> None:
        self._session = None
        self._tokenizer = None


DEFAULT_RERANKER_ID = "ms-marco-minilm-l6-v2"  # the catalog's reranker


def default_reranker_folder() -> Path | None:
    """The library's reranker, when it is installed (``cove pull ms-marco-minilm-l6-v2``)."""
    from engine.documents.encoder import library_folder

    folder = library_folder(DEFAULT_RERANKER_ID)
    return folder if folder is not None and is_reranker_folder(folder) else None

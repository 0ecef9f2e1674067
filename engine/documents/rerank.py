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

It runs on the same ONNX session set-up as the sentence encoder (``onnx_session``); onnxruntime,
tokenizers and numpy are imported inside functions: importing ``engine`` stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.documents import onnx_session as encoders
from engine.documents.onnx_session import MODEL_FILE, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE
from engine.errors import GenerationError, ModelLoadError

MAX_TOKENS = 512  # BERT-style cross-encoders have 512 learned positions
BATCH = 16


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

    def __init__(self, folder: Path, session: Any, tokenizer: Any, pad: int = 0) -> None:
        self._folder = folder
        self._session: Any = session
        self._tokenizer: Any = tokenizer
        self._pad = pad  # the tokenizer's pad id
        self._inputs = encoders.input_types(session)
        self._output: str = session.get_outputs()[0].name

    @classmethod
    def load(cls, folder: Path, *, threads: int | None = None) -> CrossEncoder:
        folder = Path(folder)
        if not is_reranker_folder(folder):
            raise ModelLoadError(
                f"{folder} is not a reranker folder: it needs {MODEL_FILE} and "
                f"{TOKENIZER_FILE}, and no pooling settings (that is an embedding model)."
            )
        limit, pad_token = MAX_TOKENS, None
        if (folder / TOKENIZER_CONFIG_FILE).is_file():
            settings = encoders.read_json(folder / TOKENIZER_CONFIG_FILE)
            declared = settings.get("model_max_length")
            if isinstance(declared, int | float) and 2 <= declared < MAX_TOKENS:
                limit = int(declared)
            pad_token = (
                settings.get("pad_token") if isinstance(settings.get("pad_token"), str) else None
            )
        tokenizer, _counter = encoders.load_tokenizers(folder / TOKENIZER_FILE, limit)
        pad = encoders.pad_id(tokenizer, pad_token)
        tokenizer.no_padding()
        session = encoders.open_session(
            folder / MODEL_FILE,
            threads or encoders.physical_cores(),
            named=f"the reranker {folder}",
            kind="cross-encoder",
        )
        return cls(folder, session, tokenizer, pad)

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
            feed, _mask = encoders.batch_feed(part, self._pad, self._inputs, np)
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

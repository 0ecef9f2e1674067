"""Sentence embeddings on ONNX Runtime, for document Q&A.

A model folder holds ``model.onnx`` (token-level output ``[batch, seq, dim]``), ``tokenizer.json``
for the ``tokenizers`` package, ``tokenizer_config.json`` (maximum length) and
``pooling_config.json`` (sentence-transformers' pooling settings). Vectors are pooled over the
attention mask and L2-normalised, so a dot product is a cosine similarity.

onnxruntime, tokenizers and numpy are imported inside functions: importing ``engine`` stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from engine.documents.onnx_session import (
    MODEL_FILE,
    TOKENIZER_CONFIG_FILE,
    TOKENIZER_FILE,
    batch_feed,
    input_types,
    load_tokenizers,
    open_session,
    pad_id,
    physical_cores,
    read_json,
)
from engine.errors import GenerationError, ModelLoadError

POOLING_CONFIG_FILE = "pooling_config.json"
REQUIRED_FILES = (MODEL_FILE, TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, POOLING_CONFIG_FILE)
# A chat model exported for onnxruntime-genai also has model.onnx and tokenizer.json.
_GENAI_MARKER = "genai_config.json"

# BERT-style encoders have 512 learned positions; configs often say "unlimited" (1e30).
MAX_TOKENS_CAP = 512
# Attention memory grows with rows x heads x length^2: at 512 tokens a batch of 8 rows needs
# ~100 MB for one layer's scores, so batches are capped by padded tokens as well as by rows.
_TOKENS_PER_BATCH = 4096

Pooling = Literal["mean", "cls"]


@dataclass(frozen=True, slots=True)
class EmbeddingConfig:
    """What the JSON files in a model folder say about tokenising and pooling."""

    max_tokens: int
    pooling: Pooling
    pad_token: str | None
    declared_dimensions: int | None


def is_embedding_folder(path: Path) -> bool:
    """Whether ``path`` is an embedding model folder (not an onnxruntime-genai chat model)."""
    return (
        path.is_dir()
        and all((path / name).is_file() for name in REQUIRED_FILES)
        and not (path / _GENAI_MARKER).exists()
    )


def read_config(folder: Path) -> EmbeddingConfig:
    """Read and check the folder's JSON settings; raise ``ModelLoadError`` on anything unusable."""
    tokenizer_config = read_json(folder / TOKENIZER_CONFIG_FILE)
    pooling_config = read_json(folder / POOLING_CONFIG_FILE)

    declared = tokenizer_config.get("model_max_length", MAX_TOKENS_CAP)
    if not isinstance(declared, int | float) or declared < 2:
        declared = MAX_TOKENS_CAP
    max_tokens = int(min(declared, MAX_TOKENS_CAP))

    modes = {
        key.removeprefix("pooling_mode_").removesuffix("_token").removesuffix("_tokens")
        for key, value in pooling_config.items()
        if key.startswith("pooling_mode_") and value is True
    }
    if modes == {"mean"} or not modes:
        pooling: Pooling = "mean"
    elif modes == {"cls"}:
        pooling = "cls"
    else:
        raise ModelLoadError(
            f"{folder / POOLING_CONFIG_FILE} asks for {' + '.join(sorted(modes))} pooling; Cove "
            "supports mean or CLS pooling. Choose a model that uses one of them."
        )

    pad = tokenizer_config.get("pad_token")
    dims = pooling_config.get("word_embedding_dimension")
    return EmbeddingConfig(
        max_tokens=max_tokens,
        pooling=pooling,
        pad_token=pad if isinstance(pad, str) else None,
        declared_dimensions=dims if isinstance(dims, int) and dims > 0 else None,
    )


class EmbeddingModel:
    """One loaded embedding model. ``embed`` may be called from several threads at once
    (ONNX Runtime sessions and tokenizers are thread-safe); ``close`` frees native memory."""

    def __init__(
        self,
        folder: Path,
        config: EmbeddingConfig,
        session: Any,
        tokenizer: Any,
        counter: Any,
        pad_id: int,
    ) -> None:
        self._folder = folder
        self._config = config
        self._session: Any = session
        self._tokenizer: Any = tokenizer  # truncating, for embedding
        self._counter: Any = counter  # never truncates, for count_tokens
        self._inputs = input_types(session)
        output = _token_output(session)
        self._output_name: str = output.name
        last = output.shape[-1] if output.shape else None
        self._dimensions: int | None = last if isinstance(last, int) and last > 0 else None
        self._pad_id = pad_id

    @classmethod
    def load(cls, folder: Path, *, threads: int | None = None) -> EmbeddingModel:
        """Open a model folder on the CPU execution provider.

        ``threads`` defaults to the number of physical cores: ONNX Runtime's intra-op pool on
        hyper-threads only adds contention for these small matrix products.
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise ModelLoadError(f"No embedding model folder at {folder}.")
        if (folder / _GENAI_MARKER).exists():
            raise ModelLoadError(
                f"{folder} holds a chat model for onnxruntime-genai, not an embedding model."
            )
        missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
        if missing:
            raise ModelLoadError(
                f"The embedding model folder {folder} is missing {', '.join(missing)}. It needs "
                f"{', '.join(REQUIRED_FILES)}; download the model again."
            )
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        config = read_config(folder)
        tokenizer, counter = load_tokenizers(folder / TOKENIZER_FILE, config.max_tokens)
        pad = pad_id(tokenizer, config.pad_token)
        # Padding is done per batch in embed(); the tokenizer only truncates.
        tokenizer.no_padding()
        path = folder / MODEL_FILE
        named, kind = str(path), "sentence embedding model"
        session = open_session(path, threads or physical_cores(), named=named, kind=kind)
        _token_output(session, path)
        model = cls(folder, config, session, tokenizer, counter, pad)
        if model._dimensions is None:
            model._dimensions = len(model.embed([""])[0])
        return model

    @property
    def name(self) -> str:
        return self._folder.name

    @property
    def folder(self) -> Path:
        return self._folder

    @property
    def dimensions(self) -> int:
        assert self._dimensions is not None  # set in load()
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        """Longest input the model sees, special tokens included; longer texts are truncated."""
        return self._config.max_tokens

    @property
    def providers(self) -> list[str]:
        """Execution providers the session runs on, in priority order."""
        self._check_open()
        return list(self._session.get_providers())

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` becomes, special tokens included and before truncation, so a
        chunker can tell whether a passage fits in ``max_tokens``."""
        self._check_open()
        return len(self._counter.encode(text).ids)

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        """One unit-length vector per text, in the order given."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; wrap a single text in a list")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._check_open()
        if not texts:
            return []
        import numpy as np

        encodings = self._tokenizer.encode_batch(list(texts))
        # Sorting by length keeps padding (wasted compute) small within each batch.
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        vectors: list[Any] = [None] * len(encodings)
        start = 0
        while start < len(order):
            longest = max(1, len(encodings[order[start]].ids))
            end = start + 1
            while end < len(order) and end - start < batch_size:
                longest = max(longest, len(encodings[order[end]].ids))
                if (end - start + 1) * longest > _TOKENS_PER_BATCH:
                    break
                end += 1
            batch = order[start:end]
            pooled = self._run([encodings[i] for i in batch], np)
            for row, index in enumerate(batch):
                vectors[index] = pooled[row]
            start = end
        return [vector.tolist() for vector in vectors]

    def close(self) -> None:
        """Release the ONNX Runtime session; the model cannot be used afterwards."""
        self._session = None
        self._tokenizer = None
        self._counter = None

    def __enter__(self) -> EmbeddingModel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._session is None:
            raise GenerationError(
                f"The embedding model {self.name} was closed. Load it again to embed text."
            )

    def _run(self, encodings: list[Any], np: Any) -> Any:
        feed, mask = batch_feed(encodings, self._pad_id, self._inputs, np)
        try:
            (hidden,) = self._session.run([self._output_name], feed)
        except Exception as exc:  # native boundary: ONNX Runtime raises its own exception types
            raise GenerationError(
                f"The embedding model {self.name} failed while embedding text ({exc}). "
                "Try smaller texts or download the model again."
            ) from exc
        hidden = np.asarray(hidden, dtype=np.float32)
        if hidden.ndim == 2:  # the graph already pools
            pooled = hidden
        elif self._config.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask.astype(np.float32)[:, :, None]
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)


def _token_output(session: Any, path: Path | None = None) -> Any:
    """The output to pool: ``last_hidden_state`` by name, else the first 3-D (or 2-D) output."""
    outputs = session.get_outputs()
    for wanted in ("last_hidden_state", "token_embeddings"):
        for arg in outputs:
            if arg.name == wanted:
                return arg
    for rank in (3, 2):
        for arg in outputs:
            if arg.shape is not None and len(arg.shape) == rank:
                return arg
    raise ModelLoadError(
        f"{path or 'The model'} has no token-embedding output (outputs: "
        f"{[arg.name for arg in outputs]}). Choose a sentence embedding model."
    )

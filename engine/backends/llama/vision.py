"""Images into a llama.cpp model through llama.cpp's multimodal library (libmtmd).

The projector turns an image into embeddings that take the place of tokens in the language
model's context. The shared loop keeps one list of token ids for the KV cache's bookkeeping
(prefix reuse, saved states), so each image piece stands in that list as a run of one negative
id (never a real token): the same image at the same place gives the same ids, so a follow-up
reuses a cached image as it reuses cached text, and a changed image is evaluated again.

Images reach this module already checked and decoded by ``engine.images``; only raw RGB pixels
cross into native code.
"""

from __future__ import annotations

import ctypes
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError, ModelLoadError
from engine.native.lock import GGML_LOCK
from engine.types import ImageInput

_CHUNK_TEXT, _CHUNK_IMAGE = 0, 1
# Prepared images kept for evaluation (the current prompt's, and a few before it).
_KEEP_PREPARED = 8


@dataclass(frozen=True, slots=True)
class Piece:
    """One image piece of a prompt (an image, or a tile of one): ``n_tokens`` cells of the KV
    cache that advance the position by ``n_pos`` (fewer with Qwen's M-RoPE)."""

    digest: str
    index: int  # which image piece of that image
    n_tokens: int
    n_pos: int


@dataclass(slots=True)
class _Held:
    """An image tokenized alone by the library."""

    chunks: Any  # the library's chunk list, freed when the image is let go
    pieces: list[Any] = field(default_factory=list)  # its image chunks, in order
    tokens: list[int] = field(default_factory=list)  # with pseudo-token runs for the pieces


class Vision:
    """A projector loaded beside one llama.cpp model."""

    def __init__(self, lib: Any, model: Any, projector: Path, threads: int, use_gpu: bool):
        from llama_cpp import mtmd_cpp

        self._mt = mt = mtmd_cpp
        self._lib = lib
        params = mt.mtmd_context_params_default()
        params.use_gpu = use_gpu
        params.n_threads = threads
        params.print_timings = False
        params.warmup = True
        # A marker nobody can type into a message by accident or on purpose.
        self.marker = f"<__cove_image_{secrets.token_hex(8)}__>"
        self._marker_bytes = self.marker.encode()
        params.media_marker = self._marker_bytes
        with GGML_LOCK:
            self._ctx = mt.mtmd_init_from_file(str(projector).encode(), model, params)
        if not self._ctx:
            raise ModelLoadError(
                f"llama.cpp could not load the projector {projector.name}: it may be damaged, "
                "or belong to another model."
            )
        if not mt.mtmd_support_vision(self._ctx):
            mt.mtmd_free(self._ctx)
            self._ctx = None
            raise ModelLoadError(f"{projector.name} is not an image projector.")
        self.projector = projector
        self.mrope = bool(mt.mtmd_decode_use_mrope(self._ctx))
        self._pieces: dict[int, Piece] = {}  # pseudo-token id -> piece
        self._prepared: OrderedDict[str, _Held] = OrderedDict()
        self._images: dict[str, ImageInput] = {}
        self._lock = threading.Lock()

    # -- prompts ------------------------------------------------------------------------------

    def remember(self, images: list[ImageInput]) -> None:
        """The images of the request being served (what its prompt may need prepared); those
        of earlier requests are let go."""
        self._images = {image.digest: image for image in images}

    def layout(self, text: str, images: list[ImageInput]) -> list[str | list[int]]:
        """A rendered prompt whose images stand at ``marker``s, in order: the text between them
        (for the model's tokenizer), and each image's token ids as the library lays the image
        out alone (its own begin and end tokens, each image piece as a run of its pseudo-token
        id)."""
        parts = text.split(self.marker)
        if len(parts) != len(images) + 1:
            raise EngineError("The prompt's images and their places do not match.")
        for image in images:
            self._images.setdefault(image.digest, image)
        out: list[str | list[int]] = [parts[0]]
        for image, after in zip(images, parts[1:], strict=True):
            out += [self._held(image.digest).tokens, after]
        return out

    def piece(self, token: int) -> Piece | None:
        return self._pieces.get(token)

    def _prepare(self, image: ImageInput) -> _Held:
        """The image tokenized alone: its chunks (kept for evaluation), its image chunks, and
        its token ids with each image piece as a run of a pseudo-token id."""
        mt = self._mt
        chunks = mt.mtmd_input_chunks_init()
        bitmap = _bitmap(mt, image)
        try:
            inp = mt.mtmd_input_text()
            inp.text = self._marker_bytes
            inp.text_len = len(self._marker_bytes)
            inp.add_special = False
            inp.parse_special = True
            array = (mt.mtmd_bitmap_p_ctypes * 1)(bitmap)
            with self._lock:
                rc = mt.mtmd_tokenize(self._ctx, chunks, ctypes.byref(inp), array, 1)
        finally:
            mt.mtmd_bitmap_free(bitmap)
        if rc != 0:
            mt.mtmd_input_chunks_free(chunks)
            raise EngineError(f"llama.cpp could not prepare an image (code {rc}).")
        held = _Held(chunks)
        for i in range(mt.mtmd_input_chunks_size(chunks)):
            chunk = mt.mtmd_input_chunks_get(chunks, i)
            kind = mt.mtmd_input_chunk_get_type(chunk)
            if kind == _CHUNK_TEXT:
                n = ctypes.c_size_t(0)
                ids = mt.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(n))
                held.tokens.extend(ids[j] for j in range(n.value))
            elif kind == _CHUNK_IMAGE:
                piece = Piece(
                    image.digest,
                    len(held.pieces),
                    int(mt.mtmd_input_chunk_get_n_tokens(chunk)),
                    int(mt.mtmd_input_chunk_get_n_pos(chunk)),
                )
                held.pieces.append(chunk)
                held.tokens.extend([self._pseudo(piece)] * piece.n_tokens)
            else:
                mt.mtmd_input_chunks_free(chunks)
                raise EngineError("This projector produced input Cove cannot read (audio).")
        return held

    def _pseudo(self, piece: Piece) -> int:
        key = int(piece.digest[:12], 16) * 64 + piece.index
        pseudo = -1 - key % (2**31 - 2)
        self._pieces[pseudo] = piece
        return pseudo

    # -- evaluation ---------------------------------------------------------------------------

    def evaluate(self, piece: Piece, lctx: Any, n_past: int, n_batch: int, last: bool) -> int:
        """Encode one image piece and put its embeddings in the context at ``n_past``; returns
        the position after it. Raises EngineError when llama.cpp fails (or is aborted)."""
        mt = self._mt
        chunk = self._chunk(piece)
        new_past = self._lib.llama_pos(0)
        rc = mt.mtmd_helper_eval_chunk_single(
            self._ctx, lctx, chunk, n_past, 0, n_batch, last, ctypes.byref(new_past)
        )
        if rc != 0:
            raise EngineError(f"llama.cpp could not evaluate an image (code {rc}).")
        return int(new_past.value)

    def _chunk(self, piece: Piece) -> Any:
        """The piece's chunk, from the image tokenized alone."""
        pieces = self._held(piece.digest).pieces
        if piece.index >= len(pieces):
            raise EngineError("An image was prepared differently the second time.")
        return pieces[piece.index]

    def _held(self, digest: str) -> _Held:
        """An image prepared (kept for the next few images)."""
        held = self._prepared.get(digest)
        if held is None:
            image = self._images.get(digest)
            if image is None:
                raise EngineError("An image of this conversation is no longer available.")
            held = self._prepared[digest] = self._prepare(image)
            while len(self._prepared) > _KEEP_PREPARED:
                _, old = self._prepared.popitem(last=False)
                self._mt.mtmd_input_chunks_free(old.chunks)
        self._prepared.move_to_end(digest)
        return held

    def close(self) -> None:
        mt = self._mt
        for held in self._prepared.values():
            mt.mtmd_input_chunks_free(held.chunks)
        self._prepared.clear()
        if self._ctx:
            mt.mtmd_free(self._ctx)
            self._ctx = None


def _bitmap(mt: Any, image: ImageInput) -> Any:
    data = (ctypes.c_uint8 * len(image.rgb)).from_buffer_copy(image.rgb)
    bitmap = mt.mtmd_bitmap_init(image.width, image.height, data)
    if not bitmap:
        raise EngineError("llama.cpp could not take an image.")
    return bitmap

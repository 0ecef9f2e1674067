"""A tiny chat model installed in a models folder as a download leaves one (its repository's
folder, its file name), for the window's tests that choose between installed models. Skipped
where the ``gguf`` package that writes it is missing."""

from __future__ import annotations

from pathlib import Path

import pytest


def install_tiny_model(folder: Path) -> Path:
    gguf = pytest.importorskip("gguf")
    from tests.support.tiny_gguf import MATRIX, write_model

    path = folder / "acme__Tiny-GGUF" / "tiny-chat-Q8_0.gguf"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_model(path, MATRIX["llama"], file_type=gguf.LlamaFileType.MOSTLY_Q8_0)
    return path

"""The models list reads what each GGUF file declares about itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.library.installed import scan_models


def test_a_gguf_entry_names_its_declared_quantization_and_mix(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    from tests.tiny_gguf import MATRIX, write_model

    write_model(tmp_path / "tiny.gguf", MATRIX["llama"], file_type=gguf.LlamaFileType.MOSTLY_Q4_K_M)
    (tmp_path / "broken.gguf").write_bytes(b"GGUF not really")
    entries = {e.name: e for e in scan_models(tmp_path) if e.source == "folder"}
    tiny = entries["tiny"]
    assert tiny.quantization == "Q4_K_M"
    assert tiny.tensor_types.startswith("F16 ") and "F32" in tiny.tensor_types
    assert entries["broken"].quantization == ""  # listed; its plan will say what is wrong

"""The models list reads what each GGUF file declares about itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.library.installed import scan_models


def test_a_gguf_entry_names_its_declared_quantization_and_mix(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    from tests.support.tiny_gguf import MATRIX, write_model

    write_model(tmp_path / "tiny.gguf", MATRIX["llama"], file_type=gguf.LlamaFileType.MOSTLY_Q4_K_M)
    (tmp_path / "broken.gguf").write_bytes(b"GGUF not really")
    entries = {e.name: e for e in scan_models(tmp_path) if e.source == "folder"}
    tiny = entries["tiny"]
    assert tiny.quantization == "Q4_K_M"
    assert tiny.tensor_types.startswith("F16 ") and "F32" in tiny.tensor_types
    assert entries["broken"].quantization == ""  # listed; its plan will say what is wrong


def test_a_model_with_its_projector_beside_it_is_listed_once_as_vision(tmp_path: Path) -> None:
    pytest.importorskip("gguf")
    from engine.library.installed import remove_model
    from tests.engine.vision_files import write_projector, write_text_model

    models = tmp_path / "models"
    repo = models / "acme__tiny-vision-GGUF"
    q4 = write_text_model(repo / "tiny-vision-Q4_K_M.gguf")
    q8 = write_text_model(repo / "tiny-vision-Q8_0.gguf", seed=1)
    projector = write_projector(repo / "mmproj-tiny-vision-f16.gguf")
    text = write_text_model(models / "plain__text-GGUF" / "plain-Q4_K_M.gguf")
    write_projector(models / "plain__text-GGUF" / "mmproj-narrow.gguf", projection_dim=64)
    entries = {e.path: e for e in scan_models(models) if e.source == "folder"}
    assert set(entries) == {q4, q8, text}  # projectors are not models of their own
    assert entries[q4].vision and entries[q4].projector == projector
    assert entries[q4].to_dict()["vision"] is True
    assert entries[q4].to_dict()["projector"] == str(projector)
    # A projector of another width beside a model is not its projector.
    assert not entries[text].vision and entries[text].to_dict()["projector"] is None
    # owner/repo still names one model when it holds one model and its projector.
    from engine.library.layout import find_installed

    assert find_installed(models, "acme/tiny-vision-GGUF") is None  # two models
    removed = remove_model("acme/tiny-vision-GGUF/tiny-vision-Q4_K_M.gguf", models)
    assert removed.projector is None and projector.is_file()  # the Q8_0 still uses it
    assert find_installed(models, "acme/tiny-vision-GGUF") == q8
    size = q8.stat().st_size + projector.stat().st_size
    removed = remove_model("tiny-vision-Q8_0", models)
    assert removed.projector == projector and not projector.exists()
    assert removed.freed_bytes >= size - 8192 and not repo.exists()
    assert removed.to_dict()["projector"] == str(projector)

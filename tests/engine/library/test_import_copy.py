"""Import by copy: the real starter GGUF and the real ONNX folder copied into the models folder,
found by the library afterwards; a malformed file, a full disk and a second import refused with
nothing left behind."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.errors import InsufficientDisk, ModelLoadError
from engine.library.importing import IMPORTED_FOLDER, import_copy
from engine.library.installed import scan_models


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_gguf_file_is_copied_and_listed(starter: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    target = import_copy(starter, models)
    assert target == models / IMPORTED_FOLDER / starter.name
    assert digest(target) == digest(starter)
    listed = [e for e in scan_models(models) if e.path == target]
    assert listed and listed[0].kind == "GGUF" and listed[0].quantization == "Q4_1"
    with pytest.raises(ModelLoadError, match="already imported"):
        import_copy(starter, models)


def test_an_onnx_folder_is_copied_whole(shared_models: Path, tmp_path: Path) -> None:
    source = shared_models / "smollm2-135m-instruct-onnx-int4-cpu"
    target = import_copy(source, tmp_path / "models")
    assert sorted(p.name for p in target.iterdir()) == sorted(p.name for p in source.iterdir())
    assert digest(target / "model.onnx.data") == digest(source / "model.onnx.data")
    assert any(e.path == target and e.kind == "ONNX" for e in scan_models(tmp_path / "models"))


def test_bad_sources_and_a_full_disk_copy_nothing(starter: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 64)
    with pytest.raises(ModelLoadError):
        import_copy(bad, models)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a model")
    with pytest.raises(ModelLoadError, match="neither"):
        import_copy(notes, models)
    with pytest.raises(InsufficientDisk, match="use the model where it is"):
        import_copy(starter, models, free_space=lambda _p: 1 << 20)
    assert list((models / IMPORTED_FOLDER).iterdir()) == []


def test_a_projector_beside_a_gguf_comes_with_it_and_is_reported(tmp_path: Path) -> None:
    pytest.importorskip("gguf")
    from engine.library.importing import import_model
    from tests.engine.vision_files import write_projector, write_text_model

    source = tmp_path / "Downloads"
    model = write_text_model(source / "tiny-vision-Q4_K_M.gguf")
    projector = write_projector(source / "mmproj-model-f16.gguf")
    write_projector(source / "mmproj-other-width.gguf", projection_dim=64)
    models = tmp_path / "models"
    imported = import_model(model, models)
    # The pair gets a folder of its own: no other import's projector is taken for its.
    folder = models / IMPORTED_FOLDER / model.stem
    assert imported.path == folder / model.name
    assert imported.projector_source == projector
    assert imported.projector == folder / projector.name
    assert digest(imported.projector) == digest(projector)
    assert sorted(p.name for p in folder.iterdir()) == sorted([model.name, projector.name])
    # A text model of the same width imported after it stays text-only.
    alone = write_text_model(tmp_path / "elsewhere" / "plain-Q8_0.gguf")
    assert import_model(alone, models).projector is None
    entries = {e.path.name: e for e in scan_models(models)}
    assert entries[model.name].vision and entries[model.name].projector == imported.projector
    assert not entries[alone.name].vision
    assert projector.name not in entries
    with pytest.raises(ModelLoadError, match="already imported"):
        import_copy(model, models)
    # The projector file itself is not a model to import.
    with pytest.raises(ModelLoadError, match="vision projector"):
        import_copy(projector, models)
    # Deleting the imported model deletes its projector and its folder.
    from engine.library.installed import remove_model

    removed = remove_model(model.stem, models)
    assert removed.projector == imported.projector and not folder.exists()

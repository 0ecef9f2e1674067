"""The shipped catalog (assets/catalog.json) against its schema and what it promises, and the
loader's errors on malformed catalogs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.errors import CatalogError
from engine.hub.gguf_names import quant_of
from engine.library.catalog import catalog_path, load_catalog, parse_catalog

RAW: dict[str, Any] = json.loads(catalog_path().read_text(encoding="utf-8"))


def test_the_catalog_loads_and_covers_what_cove_is_for() -> None:
    catalog = load_catalog()
    chat = [m for m in catalog.models if m.kind == "chat"]
    assert len(chat) >= 15
    sizes = sorted(m.params_b for m in chat)
    assert sizes[0] <= 0.6 and sizes[-1] >= 12
    assert any(m.kind == "embedding" for m in catalog.models)
    assert any(m.kind == "reranker" for m in catalog.models)
    minilm = [m for m in catalog.models if "all-MiniLM-L6-v2" in m.variants[0].repo]
    assert minilm and minilm[0].kind == "embedding"
    # Builds for the devices Cove targets: ONNX folders for the CPU and for at least one GPU/NPU.
    targets = {v.target for m in chat for v in m.variants if v.format == "onnx"}
    assert "cpu-int4" in targets
    assert targets & {"cuda-int4", "cuda-fp16", "directml-int4", "qnn-npu", "openvino-npu"}


def test_every_chat_model_has_the_three_standard_quants_with_matching_names() -> None:
    """Vision builds come from the publisher of their projector, which ships Q4_K_M and Q8_0."""
    for m in load_catalog().models:
        if m.kind != "chat":
            continue
        quants = {v.quant for v in m.variants if v.format == "gguf"}
        standard = {"Q4_K_M", "Q8_0"} if m.vision else {"Q4_K_M", "Q5_K_M", "Q8_0"}
        assert standard <= quants, m.id
        for v in m.variants:
            if v.format == "gguf":
                assert quant_of(str(v.file)) == v.quant, (m.id, v.file)
        assert m.arch is not None
        assert m.arch.head_dim * m.arch.heads >= m.arch.embedding // 2, m.id  # plausible shape


def test_vision_models_ship_their_projector_from_the_same_repository() -> None:
    catalog = load_catalog()
    wanted = {
        "gemma-3-4b-it",
        "gemma-3-12b-it",
        "qwen2.5-vl-3b-instruct",
        "qwen2.5-vl-7b-instruct",
        "smolvlm2-2.2b-instruct",
    }
    vision = {m.id for m in catalog.models if m.vision}
    assert wanted <= vision
    for model_id in vision:
        model = catalog.get(model_id)
        assert model is not None and model.kind == "chat"
        for v in model.variants:
            # Every GGUF build of a vision model reads images: its projector is beside it.
            assert v.format != "gguf" or v.projector is not None, v.key
            if v.projector is not None:
                assert "mmproj" in v.projector.lower() and v.projector.endswith(".gguf")
                assert v.projector != v.file
    assert {m.id for m in catalog.search("vision")} == vision
    assert not any(m.vision for m in catalog.models if m.id.startswith("qwen2.5-7b"))


def test_the_catalog_types_in_no_sizes_or_checksums() -> None:
    """Sizes and SHA-256s come from the hub when the user browses, never from the file."""
    text = catalog_path().read_text(encoding="utf-8")
    for banned in ('"size', '"sha', '"bytes', '"oid'):
        assert banned not in text.lower()


def test_entries_are_one_line_and_ids_are_what_cove_pull_takes() -> None:
    for m in load_catalog().models:
        assert m.id == m.id.lower() and "/" not in m.id
        assert len(m.description) <= 160 and m.description.strip() == m.description
        assert m.license


def _onnx_variant(raw: dict[str, Any]) -> dict[str, Any]:
    variants = (v for m in raw["models"] for v in m["variants"] if v["format"] == "onnx")
    found: dict[str, Any] = next(variants)
    return found


def test_a_projector_naming_the_model_file_itself_is_refused() -> None:
    raw = copy.deepcopy(RAW)
    variant = raw["models"][0]["variants"][0]
    variant["projector"] = variant["file"] = "mmproj-odd-Q4_K_M.gguf"
    with pytest.raises(CatalogError, match="model file itself"):
        parse_catalog(raw)


def _broken(change: Any) -> dict[str, Any]:
    raw = copy.deepcopy(RAW)
    change(raw)
    return raw


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(schema=2), "schema"),
        (lambda r: r["models"].append(copy.deepcopy(r["models"][0])), "twice"),
        (lambda r: r["models"][0].update(id="Has Spaces"), "id"),
        (lambda r: r["models"][0].update(kind="vision"), "kind"),
        (lambda r: r["models"][0].update(params_b="7B"), "params_b"),
        (lambda r: r["models"][0].update(description="two\nlines"), "one line"),
        (lambda r: r["models"][0].pop("arch"), "arch"),
        (lambda r: r["models"][0].update(variants=[]), "variants"),
        (lambda r: r["models"][0]["variants"][0].update(repo="no-owner"), "repo"),
        (lambda r: r["models"][0]["variants"][0].update(file="../escape.gguf"), "file"),
        (lambda r: r["models"][0]["variants"][0].update(quant="q4"), "quant"),
        (lambda r: r["models"][0]["arch"].update(kv_heads=0), "kv_heads"),
        (lambda r: r["models"][0]["variants"][0].update(projector=7), "projector"),
        (lambda r: r["models"][0]["variants"][0].update(projector="vision.gguf"), "mmproj"),
        (lambda r: r["models"][0]["variants"][0].update(projector="mmproj-x.bin"), "projector"),
        (lambda r: r["models"][0]["variants"][0].update(projector="../mmproj.gguf"), "projector"),
        (lambda r: _onnx_variant(r).update(projector="mmproj-x.gguf"), "only for GGUF"),
    ],
)
def test_a_malformed_catalog_is_refused_with_the_entry_named(change: Any, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        parse_catalog(_broken(change))


def test_an_unreadable_catalog_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "catalog.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogError, match="not valid JSON"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match="cannot be read"):
        load_catalog(tmp_path / "missing.json")

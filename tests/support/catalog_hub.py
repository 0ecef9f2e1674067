"""A catalog whose builds live on the loopback hub: a tiny chat model with a GGUF repository (two
quantisations) and an onnxruntime-genai repository with per-device folders, for the tests of
``cove search`` and ``cove pull`` and of the window's Discover tab. The GGUF files start with a
real header; the rest of every file is noise."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.fake_hub import FakeHub, random_bytes
from tests.support.gguf_bytes import synthetic

MIB = 1 << 20
GGUF_REPO = "acme/Tiny-Chat-GGUF"
ONNX_REPO = "acme/Tiny-Chat-onnx"
ARCH = {"layers": 2, "heads": 4, "kv_heads": 2, "head_dim": 32, "embedding": 128, "ffn": 256}
ARCH |= {"vocab": 1024, "checked": True}


def entry(model_id: str, gguf_repo: str, onnx_repo: str, files: dict[str, str]) -> dict[str, Any]:
    """The catalog's entry for the tiny chat model: a GGUF build per quantisation in ``files``,
    and the ONNX folders of ``onnx_repo``."""
    return {
        "id": model_id,
        "name": "Tiny Chat",
        "kind": "chat",
        "publisher": "Acme",
        "params_b": 0.1,
        "context_length": 2048,
        "license": "apache-2.0",
        "description": "A tiny chat model for tests.",
        "arch": ARCH,
        "variants": [
            {"format": "gguf", "repo": gguf_repo, "file": files[q], "quant": q}
            for q in ("Q4_K_M", "Q8_0")
            if q in files
        ]
        + [
            {
                "format": "onnx",
                "repo": onnx_repo,
                "folder": "cpu_and_mobile/cpu-int4",
                "target": "cpu-int4",
                "provider": "cpu",
            },
            {
                "format": "onnx",
                "repo": onnx_repo,
                "folder": "npu/qnn",
                "target": "qnn-npu",
                "provider": "qnn",
            },
        ],
    }


def gguf_blob(size: int, seed: int) -> bytes:
    head = synthetic()
    return head + random_bytes(size - len(head), seed)


@contextmanager
def hub_with_builds() -> Iterator[FakeHub]:
    """The loopback hub serving the tiny chat model's builds, and a repository whose model sits
    at its root."""
    with FakeHub() as fake:
        fake.add(GGUF_REPO, "tiny-chat-Q4_K_M.gguf", gguf_blob(2 * MIB, 1))
        fake.add(GGUF_REPO, "tiny-chat-Q8_0.gguf", gguf_blob(3 * MIB, 2))
        folder = "cpu_and_mobile/cpu-int4"
        fake.add(ONNX_REPO, f"{folder}/genai_config.json", b'{"model": {}}', lfs=False)
        fake.add(ONNX_REPO, f"{folder}/model.onnx", random_bytes(MIB, 3))
        fake.add(ONNX_REPO, f"{folder}/model.onnx.data", random_bytes(2 * MIB, 4))
        fake.add(ONNX_REPO, f"{folder}/tokenizer.json", b'{"version": "1.0"}', lfs=False)
        fake.add(ONNX_REPO, "npu/qnn/genai_config.json", b"{}", lfs=False)
        fake.add(ONNX_REPO, "npu/qnn/model.onnx", random_bytes(MIB, 5))
        fake.add(ONNX_REPO, "README.md", b"# tiny\n", lfs=False)
        fake.add("acme/Root-onnx", "genai_config.json", b'{"model": {}}', lfs=False)
        fake.add("acme/Root-onnx", "model.onnx", random_bytes(MIB, 6))
        fake.state.downloads[GGUF_REPO] = 50
        yield fake


@pytest.fixture
def catalog_hub() -> Iterator[FakeHub]:
    with hub_with_builds() as fake:
        yield fake

"""Fixtures for tests that talk to an engine host: each module supplies its own ``host`` (the
starter, or another model), and gets the official ``openai`` client on it and its model's id."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from engine.client.local import LocalEngine


@pytest.fixture(scope="module")
def oai(host: LocalEngine) -> Iterator[openai.OpenAI]:
    client = openai.OpenAI(base_url=host.base_url, api_key=host._token, max_retries=0)
    yield client
    client.close()


@pytest.fixture(scope="module")
def model_id(host: LocalEngine) -> str:
    status = host.client.status()
    assert status.model is not None
    return status.model


@contextlib.contextmanager
def tool_host(tool_model: Path, embedding_model: Path | None = None) -> Iterator[LocalEngine]:
    """An engine host with the tool-calling test model loaded (4k context)."""
    engine = LocalEngine.start(ready_timeout=120.0, embedding_model=embedding_model)
    try:
        engine.client.load(str(tool_model), ctx=4096)
        yield engine
    finally:
        engine.stop()
        engine.client.close()

"""Fixtures for tests that talk to an engine host: each module supplies its own ``host`` (the
starter, or another model), and gets the official ``openai`` client on it and its model's id."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from engine.local_engine import LocalEngine


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

"""The model names clients send: ``cove serve --alias PATTERN=MODEL`` answers a hosted model's
name with a model of this computer's, ``--any-model-name`` answers every name, and without them
an unknown name is a 404 that lists what is installed and says how to alias."""

from __future__ import annotations

from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from engine.errors import InvalidRequest
from engine.host.models.model_names import NameRules, parse_alias, unknown_model
from tests.support.remote_process import CoveProcess, free_port

KEY = "cove-test-key"
HI = [{"role": "user", "content": "Hi"}]


def test_patterns_match_in_order_and_ignore_case() -> None:
    rules = NameRules((("claude-*", "coder"), ("gpt-4o", "starter"), ("*", "other")))
    assert rules.target("Claude-Sonnet-4-5") == "coder"
    assert rules.target("gpt-4o") == "starter"
    assert rules.target("gpt-4o-mini") == "other"
    assert NameRules().target("gpt-4o") is None


def test_an_alias_is_pattern_equals_model() -> None:
    assert parse_alias(" claude-* = qwen2.5-coder-7b ") == ("claude-*", "qwen2.5-coder-7b")
    for bad in ("claude-*", "=x", "x="):
        with pytest.raises(InvalidRequest, match="PATTERN=MODEL"):
            parse_alias(bad)


def test_the_404_lists_the_installed_and_shows_the_alias() -> None:
    text = unknown_model("claude-sonnet-4-5", "SmolLM2", ["starter", "qwen"])
    assert "'starter', 'qwen'" in text and '--alias "claude-*=SmolLM2"' in text


def serve(tmp_path: Path, *args: str) -> tuple[CoveProcess, str]:
    port = free_port()
    proc = CoveProcess(tmp_path / "data", "serve", "--model", "starter", "--ctx", "1024",
                       "--api-key", KEY, "--port", str(port), *args)  # fmt: skip
    proc.wait_for("serving on http://")
    return proc, f"http://127.0.0.1:{port}"


@pytest.mark.usefixtures("starter")
def test_aliases_answer_hosted_names_and_are_listed(tmp_path: Path) -> None:
    proc, url = serve(tmp_path, "--alias", "claude-*=starter", "--alias", "gpt-4o=starter")
    try:
        claude = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
        reply = claude.messages.create(model="claude-sonnet-5", max_tokens=2,
                                       messages=HI)  # type: ignore[arg-type]  # fmt: skip
        assert reply.type == "message"
        oai = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
        done = oai.chat.completions.create(model="gpt-4o", max_tokens=2, messages=HI)  # type: ignore[arg-type]
        assert done.choices[0].finish_reason in ("stop", "length")
        listed = httpx.get(url + "/v1/models", headers={"Authorization": f"Bearer {KEY}"}).json()
        aliases = {m["id"]: m.get("alias_of") for m in listed["data"]}
        assert aliases["claude-*"] == "starter" and aliases["gpt-4o"] == "starter"
        with pytest.raises(openai.NotFoundError, match="not a model of this engine"):
            oai.chat.completions.create(model="gpt-5", max_tokens=2, messages=HI)  # type: ignore[arg-type]
        claude.close()
        oai.close()
    finally:
        proc.stop()


@pytest.mark.usefixtures("starter")
def test_any_model_name_answers_every_name(tmp_path: Path) -> None:
    proc, url = serve(tmp_path, "--any-model-name")
    try:
        oai = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
        done = oai.chat.completions.create(model="gpt-5-codex", max_tokens=2, messages=HI)  # type: ignore[arg-type]
        assert done.choices[0].finish_reason in ("stop", "length")
        oai.close()
    finally:
        proc.stop()

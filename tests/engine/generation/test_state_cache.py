"""Conversations' model state on disk: restored instead of re-read, after a restart of the
model and of the engine host; refused for another model file, context size or KV type; a
damaged file ignored; the folder kept within its bound; deleted with its conversation."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.generation.state_cache import StateCache
from engine.types import ChatMessage, GenerationStats
from tests.conftest import collect
from tests.engine.cpu_plans import plan
from tests.engine.state_conversations import GREEDY, conversation, reply


@pytest.fixture
def cache(tmp_path: Path) -> StateCache:
    return StateCache(tmp_path / "state")


@pytest.fixture
def saved(starter: Path, cache: StateCache) -> Iterator[list[ChatMessage]]:
    """A conversation answered once by a model that then went away, its state on disk."""
    messages = conversation()
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        reply(model, messages)
    cache.flush()
    assert len(list(cache.folder.glob("*.kvstate"))) == 1
    yield messages


def test_a_restored_state_gives_the_same_next_tokens_as_reading_the_history(
    starter: Path, cache: StateCache, saved: list[ChatMessage]
) -> None:
    follow_up = [*saved, ChatMessage("assistant", "Shipping delays."), ChatMessage("user", "Why?")]
    with LlamaCppModel(starter, plan(starter)) as fresh:
        reread, reread_stats = reply(fresh, follow_up)
    assert reread_stats.cached_tokens == 0
    with LlamaCppModel(starter, plan(starter)) as restarted:
        restarted.keep_states(StateCache(cache.folder))
        restored, stats = reply(restarted, follow_up)
    # The same tokens, where this build evaluates a batch as it evaluates single steps (the
    # saved state holds the first reply's tokens as they were generated, one at a time).
    if restarted.exact_cells:
        assert restored == reread
    # Everything up to the end of the first reply came from disk.
    assert stats.cached_tokens > reread_stats.prompt_tokens // 2


def test_a_cancelled_reply_keeps_the_history_it_read(starter: Path, cache: StateCache) -> None:
    """A client that stops reading after the first token: what the model read is saved, so
    that the conversation's next request, after a restart, does not read it again."""
    import threading

    messages = conversation(tag="cancelled ")
    cancel = threading.Event()
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        long = dataclasses.replace(GREEDY, max_tokens=200)
        stream = model.chat(messages, long, cancel)
        first = next(iter(stream))
        assert not first.is_terminal
        cancel.set()
        _, final = collect(stream)
        assert final.finish_reason == "cancelled"
        read = final.stats.prompt_tokens if final.stats is not None else 0
    cache.flush()
    with LlamaCppModel(starter, plan(starter)) as restarted:
        restarted.keep_states(StateCache(cache.folder))
        _, stats = reply(restarted, messages)
    assert read > 0 and stats.cached_tokens >= read - 1


@pytest.mark.parametrize(
    "other",
    [
        pytest.param({"ctx": 1024}, id="context size"),
        pytest.param({"kv_type": "q8_0"}, id="KV type"),
        pytest.param({"flash_attn": False}, id="attention kernel"),
    ],
)
def test_a_state_for_another_setup_is_never_used(
    starter: Path, cache: StateCache, saved: list[ChatMessage], other: dict[str, Any]
) -> None:
    changes = dict(other)
    ctx = int(str(changes.pop("ctx", 2048)))
    with LlamaCppModel(starter, plan(starter, ctx, **changes)) as model:
        model.keep_states(cache)
        _text, stats = reply(model, saved)
    assert stats.cached_tokens == 0


def test_a_state_for_another_model_file_is_never_used(
    starter: Path, cache: StateCache, saved: list[ChatMessage], tmp_path: Path
) -> None:
    copy = tmp_path / "other.gguf"
    shutil.copyfile(starter, copy)
    with LlamaCppModel(copy, plan(copy)) as model:
        model.keep_states(cache)
        _text, stats = reply(model, saved)
    assert stats.cached_tokens == 0


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_damaged_state_is_ignored_and_the_reply_still_arrives(
    starter: Path, cache: StateCache, saved: list[ChatMessage], damage: str
) -> None:
    (path,) = cache.folder.glob("*.kvstate")
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) - 1000])
    else:
        raw[-5000] ^= 0xFF
        path.write_bytes(bytes(raw))
    with LlamaCppModel(starter, plan(starter)) as fresh:
        expected, _ = reply(fresh, saved)
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(StateCache(cache.folder))
        text, stats = reply(model, saved)
    assert stats.cached_tokens == 0
    assert text == expected
    assert not path.exists()  # a damaged file is removed, not tried again


def test_the_folder_never_grows_past_its_bound(starter: Path, tmp_path: Path) -> None:
    folder = tmp_path / "state"
    with LlamaCppModel(starter, plan(starter)) as model:
        probe = StateCache(folder)
        model.keep_states(probe)
        reply(model, conversation(tag="A "))
        probe.flush()
        one = probe.total_bytes()
        assert one > 0
        limit = int(one * 2.5)
        bounded = StateCache(folder, limit)
        model.keep_states(bounded)
        for tag in "BCDE":
            reply(model, conversation(tag=f"{tag} "))
            bounded.flush()
            assert bounded.total_bytes() <= limit
            on_disk = sum(p.stat().st_size for p in folder.glob("*.kvstate"))
            assert on_disk <= limit
        assert len(list(folder.glob("*.kvstate"))) == 2


def test_a_longer_state_of_a_conversation_replaces_its_shorter_one(
    starter: Path, cache: StateCache
) -> None:
    messages = conversation()
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        text, _ = reply(model, messages)
        reply(model, [*messages, ChatMessage("assistant", text), ChatMessage("user", "Thanks.")])
    cache.flush()
    assert len(list(cache.folder.glob("*.kvstate"))) == 1


def test_forgetting_a_conversation_removes_only_its_state(starter: Path, cache: StateCache) -> None:
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        reply(model, conversation(tag="A "), conversation="chat-a")
        reply(model, conversation(tag="B "), conversation="chat-b")
    cache.flush()
    assert cache.forget("chat-a") == 1
    remaining = StateCache(cache.folder)  # as read back after a restart
    assert [e.conversation for e in remaining._index().values()] == ["chat-b"]
    assert remaining.forget() == 1
    assert not list(cache.folder.glob("*.kvstate"))


def test_a_short_conversation_is_not_saved(starter: Path, cache: StateCache) -> None:
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        reply(model, [ChatMessage("user", "Hello!")])
    cache.flush()
    assert not cache.folder.exists() or not list(cache.folder.glob("*.kvstate"))


@pytest.mark.slow
def test_a_restarted_host_restores_a_long_conversation_sent_again(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An API client resends its history to a restarted engine: the history comes from disk,
    and deleting the conversation's state through the API removes it."""
    from engine.client.local import LocalEngine

    monkeypatch.setenv("COVE_STATE_DIR", str(tmp_path / "state"))
    messages = conversation()
    params = dataclasses.replace(GREEDY, conversation="chat-1")

    def ask(history: list[ChatMessage]) -> tuple[str, GenerationStats]:
        engine = LocalEngine.start(log_path=tmp_path / "engine.log")
        try:
            engine.client.load("starter", ctx=2048)
            text, final = collect(engine.client.chat(history, params))
            state = engine.client.saved_state()
        finally:
            engine.stop()
        assert final.stats is not None
        assert state.enabled is True
        return text, final.stats

    first, first_stats = ask(messages)
    assert first_stats.cached_tokens == 0
    follow_up = [*messages, ChatMessage("assistant", first), ChatMessage("user", "Thanks!")]
    _text, stats = ask(follow_up)
    assert stats.cached_tokens >= first_stats.prompt_tokens
    engine = LocalEngine.start(log_path=tmp_path / "engine.log")
    try:
        assert engine.client.forget_state("chat-1") >= 1
        assert engine.client.saved_state().bytes == 0
    finally:
        engine.stop()


def test_a_host_stopped_right_after_a_reply_finishes_writing_its_state(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM the moment a reply ends: the host frees its model and finishes writing the
    conversation's state before it exits (no partial file is left behind)."""
    from engine.client.local import LocalEngine

    state = tmp_path / "state"
    monkeypatch.setenv("COVE_STATE_DIR", str(state))
    engine = LocalEngine.start(log_path=tmp_path / "engine.log")
    try:
        engine.client.load("starter", ctx=2048)
        _, final = collect(engine.client.chat(conversation(tag="stopped "), GREEDY))
        assert final.finish_reason in ("stop", "length")
    finally:
        engine.stop()  # SIGTERM
        engine.client.close()
    log = (tmp_path / "engine.log").read_text(errors="replace")
    assert "INFO unloaded" in log  # the host's own cleanup ran
    assert not list(state.glob("*.partial"))
    assert len(list(state.glob("*.kvstate"))) == 1


def test_reading_the_folder_leaves_another_process_write_alone(tmp_path: Path) -> None:
    """The app reads the folder while its engine writes: a fresh partial file is not a crash's
    leftover; an old one is."""
    import os
    import time

    folder = tmp_path / "state"
    folder.mkdir()
    fresh, old = folder / "a.partial", folder / "b.partial"
    fresh.write_bytes(b"x")
    old.write_bytes(b"x")
    past = time.time() - 3600
    os.utime(old, (past, past))
    StateCache(folder).total_bytes()
    assert fresh.exists() and not old.exists()

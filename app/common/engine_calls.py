"""Blocking calls to the engine, made on a worker thread: a reply's chat, forgetting a
conversation's saved state, and a fresh host with the same model after a crash."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from engine.errors import EngineError
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from engine.client import EngineClient, LocalEngine
    from engine.remote import RemoteEngine

ChatCall = Callable[[Sequence[ChatMessage], GenerationParams, threading.Event], Iterator[Chunk]]


def chat_call(client: EngineClient, model: str | None, remote: bool) -> ChatCall:
    """A reply's chat through ``client``, asking for ``model`` by name (None: the engine's own).
    Another computer's saved state is not named after this window's conversations: other
    people's windows number theirs the same way."""

    def chat(
        messages: Sequence[ChatMessage], params: GenerationParams, cancel: threading.Event
    ) -> Iterator[Chunk]:
        if remote:
            params = dataclasses.replace(params, conversation=None)
        return client.chat(messages, params, cancel=cancel, model=model)

    return chat


def forget_saved_state(engine: LocalEngine | RemoteEngine | None, conversation: str | None) -> int:
    """Delete a conversation's saved state (all of it, when None): through the engine, which
    first finishes its writes; from the folder itself when no engine runs."""
    if engine is not None:
        with contextlib.suppress(EngineError):
            return engine.client.forget_state(conversation)
    from engine.generation import StateCache
    from engine.paths import state_dir

    return StateCache(state_dir()).forget(conversation)


def restarted_host(
    engine: LocalEngine | RemoteEngine | None, model: str
) -> LocalEngine | RemoteEngine:
    """The host started again (or a first one), with ``model`` loaded if it has none."""
    from engine.client import LocalEngine

    if engine is None:
        fresh = LocalEngine.start()
        fresh.client.load(model)
        return fresh
    engine.restart()
    if engine.client.last_load is None:
        engine.client.load(model)
    return engine

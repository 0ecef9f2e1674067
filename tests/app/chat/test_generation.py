"""The reply worker's decisions on the engine's error codes, with a scripted engine: a busy engine
is asked again, any other error ends the reply. Codes, never message text, decide."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from app.chat.generation import GenerationRequest, GenerationWorker, ReplyOutcome
from engine.errors import EngineBusy, GenerationError
from engine.store import Store
from engine.types import ChatMessage, Chunk, GenerationParams


class ScriptedEngine:
    """Answers each request with the next scripted stream."""

    def __init__(self, *streams: list[Chunk]) -> None:
        self.streams = list(streams)
        self.calls = 0

    def chat(
        self, messages: Sequence[ChatMessage], params: GenerationParams, cancel: threading.Event
    ) -> Iterator[Chunk]:
        self.calls += 1
        return iter(self.streams.pop(0))


def run_reply(tmp_path: Path, engine: ScriptedEngine) -> ReplyOutcome:
    outcomes: list[ReplyOutcome] = []
    with Store(tmp_path / "cove.sqlite3") as store:
        conversation = store.create_conversation("t")
        request = GenerationRequest(conversation.id, "send", GenerationParams(), text="Hi")
        worker = GenerationWorker(store, lambda: engine.chat, request)
        worker.signals.reply_finished.connect(outcomes.append)
        worker.run()  # on this thread: the signals are delivered directly
    (outcome,) = outcomes
    return outcome


def test_a_busy_engine_is_asked_again(qapp: object, tmp_path: Path) -> None:
    # The message says nothing about being busy: the code is what counts.
    busy = Chunk(finish_reason="error", error="Try again.", code=EngineBusy.code)
    engine = ScriptedEngine([busy], [Chunk(text="Hello"), Chunk(finish_reason="stop")])
    outcome = run_reply(tmp_path, engine)
    assert engine.calls == 2
    assert outcome.final is not None and outcome.final.finish_reason == "stop"
    assert outcome.message is not None and outcome.message.content == "Hello"


def test_another_error_ends_the_reply(qapp: object, tmp_path: Path) -> None:
    failed = Chunk(
        finish_reason="error", error="The engine is busy failing.", code=GenerationError.code
    )
    engine = ScriptedEngine([failed], [Chunk(text="never"), Chunk(finish_reason="stop")])
    outcome = run_reply(tmp_path, engine)
    assert engine.calls == 1
    assert outcome.final is not None and outcome.final.finish_reason == "error"
    assert outcome.message is not None and outcome.message.status == "error"


def test_the_history_carries_each_message_s_images_or_leaves_them_out(
    qapp: object, tmp_path: Path
) -> None:
    import io

    from PIL import Image

    from app.chat.model_images import ModelImages
    from engine.images import read_image
    from engine.store import NewImage
    from engine.store.model_messages import history_for

    out = io.BytesIO()
    Image.new("RGB", (64, 48), "navy").save(out, "PNG")
    image = read_image(out.getvalue(), "navy.png")
    with Store(tmp_path / "cove.sqlite3") as store:
        conv = store.create_conversation("t")
        store.add_message(conv.id, "user", "", images=[NewImage.of(image, "navy.png")])
        store.add_message(conv.id, "assistant", "A navy rectangle.")
        store.add_message(conv.id, "user", "Which colour?")
        messages = store.messages(conv.id)
        prepared = ModelImages()
        seen, _chars = history_for(messages, "", lambda i: prepared.load(store, i))
        # A message of an image alone goes, with its image, prepared as the composer would.
        assert [(m.role, m.content, len(m.images)) for m in seen] == [
            ("user", "", 1),
            ("assistant", "A navy rectangle.", 0),
            ("user", "Which colour?", 0),
        ]
        assert seen[0].images[0].rgb == image.rgb
        # For a model that cannot see, the images are left out (and a message of only an
        # image with them).
        blind, _chars = history_for(messages, "", None)
        assert [m.content for m in blind] == ["A navy rectangle.", "Which colour?"]

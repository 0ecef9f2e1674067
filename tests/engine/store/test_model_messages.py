"""A stored conversation as the messages a model is sent: the system prompt, the path shown, a
user's images, and a reply's finished tool calls before it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.images import read_image
from engine.store import Message, NewImage, Store, StoredImage
from engine.store.model_messages import call_messages, history_for
from engine.types import ImageInput


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "cove.sqlite3") as opened:
        yield opened


def call(state: str, call_id: str = "c1", result: str = "3") -> dict[str, object]:
    return {
        "id": call_id,
        "server": "notes",
        "tool": "add",
        "offered": "notes__add",
        "arguments": {"a": 1, "b": 2},
        "state": state,
        "result": result,
    }


def turns(messages: list[Message], system: str = "") -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in history_for(messages, system)[0]]


def test_the_system_prompt_comes_first_and_a_blank_one_is_left_out(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "Hello")
    store.add_message(conv.id, "assistant", "Hi.")
    messages = store.messages(conv.id)
    assert turns(messages, "Be brief.") == [
        ("system", "Be brief."),
        ("user", "Hello"),
        ("assistant", "Hi."),
    ]
    assert turns(messages, "  \n") == [("user", "Hello"), ("assistant", "Hi.")]
    _out, chars = history_for(messages, "Be brief.")
    assert chars == len("Be brief.") + len("Hello") + len("Hi.")


def test_failed_and_empty_replies_are_left_out_and_interrupted_ones_kept(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "one")
    store.add_message(conv.id, "assistant", "half a rep", status="interrupted")
    store.add_message(conv.id, "user", "two")
    store.add_message(conv.id, "assistant", "the engine failed", status="error")
    store.add_message(conv.id, "user", "three")
    store.add_message(conv.id, "assistant", "   ")
    assert turns(store.messages(conv.id)) == [
        ("user", "one"),
        ("assistant", "half a rep"),
        ("user", "two"),
        ("user", "three"),
    ]


def test_a_reply_s_finished_calls_go_before_it_and_unfinished_ones_do_not(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "Add 1 and 2, then 3 and 4.")
    stored = [
        call("done", "c1", "3"),
        call("denied", "c2", "The user declined this call."),
        call("failed", "c3", "the server stopped"),
        call("asking", "c4"),
        call("running", "c5"),
        "not a call",
    ]
    store.add_message(conv.id, "assistant", "1 and 2 make 3.", meta={"tool_calls": stored})
    out, _chars = history_for(store.messages(conv.id), "")
    assert [m.role for m in out] == [
        "user",
        *["assistant", "tool"] * 3,
        "assistant",
    ]
    asked = [m.tool_calls[0] for m in out if m.tool_calls]
    assert [(c.id, c.name, c.arguments) for c in asked] == [
        ("c1", "notes__add", {"a": 1, "b": 2}),
        ("c2", "notes__add", {"a": 1, "b": 2}),
        ("c3", "notes__add", {"a": 1, "b": 2}),
    ]
    answered = [(m.tool_call_id, m.content) for m in out if m.role == "tool"]
    assert answered == [
        ("c1", "3"),
        ("c2", "The user declined this call."),
        ("c3", "the server stopped"),
    ]
    assert out[-1].content == "1 and 2 make 3." and not out[-1].tool_calls


def test_a_call_keeps_its_tool_s_name_when_no_other_was_offered() -> None:
    stored = [{"id": "x", "tool": "add", "arguments": "not a dict", "state": "done"}]
    (asked, answered) = call_messages(stored)
    assert asked.tool_calls[0].name == "add" and asked.tool_calls[0].arguments == {}
    assert answered.role == "tool" and answered.content == "" and answered.tool_call_id == "x"
    assert call_messages(None) == [] and call_messages({"state": "done"}) == []


def test_a_user_s_images_go_with_their_message_when_prepared(store: Store) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (32, 24), "teal").save(out, "PNG")
    image = read_image(out.getvalue(), "teal.png")
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "", images=[NewImage.of(image, "teal.png")])
    store.add_message(conv.id, "assistant", "A teal rectangle.")
    store.add_message(conv.id, "user", "And this?", images=[NewImage.of(image, "again.png")])
    messages = store.messages(conv.id)

    def prepare(stored: StoredImage) -> ImageInput | None:
        return read_image(store.image_bytes(stored), stored.name)

    seen, _chars = history_for(messages, "", prepare)
    assert [(m.role, m.content, len(m.images)) for m in seen] == [
        ("user", "", 1),
        ("assistant", "A teal rectangle.", 0),
        ("user", "And this?", 1),
    ]
    assert seen[0].images[0].rgb == image.rgb
    # An image that no longer reads is left out; the message's text still goes.
    gone, _chars = history_for(messages, "", lambda stored: None)
    assert [(m.content, len(m.images)) for m in gone] == [
        ("A teal rectangle.", 0),
        ("And this?", 0),
    ]
    # Without a way to prepare them (a model that cannot see), images are left out too.
    assert [m.content for m in history_for(messages, "", None)[0]] == [
        "A teal rectangle.",
        "And this?",
    ]


def test_only_the_path_shown_is_sent(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "q1")
    first = store.add_message(conv.id, "assistant", "a1")
    store.add_message(conv.id, "user", "q2 on a1")
    store.add_message(conv.id, "assistant", "a2 on a1")
    store.add_version(first.id, "a1, again")
    store.add_message(conv.id, "user", "q2 on the second version")
    assert turns(store.messages(conv.id), "sys") == [
        ("system", "sys"),
        ("user", "q1"),
        ("assistant", "a1, again"),
        ("user", "q2 on the second version"),
    ]
    store.show_version(first.id)
    assert turns(store.messages(conv.id)) == [
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", "q2 on a1"),
        ("assistant", "a2 on a1"),
    ]

"""The chat history as a tree: versions, the path shown, branches, deletes, export and import,
and the migration of a history written by the schema before versions."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.store import ChatSettings, Store
from engine.store import schema as store_schema

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "history_v3"


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path / "cove.sqlite3") as opened:
        yield opened


def contents(store: Store, conv_id: int) -> list[str]:
    return [m.content for m in store.messages(conv_id)]


def test_regenerating_adds_versions_and_keeps_every_one(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "q")
    first = store.add_message(conv.id, "assistant", "a1")
    second = store.add_version(first.id, "a2")
    third = store.add_version(second.id, "a3", status="streaming")
    shown = store.messages(conv.id)
    assert [m.content for m in shown] == ["q", "a3"]
    assert shown[-1].versions == (first.id, second.id, third.id)
    assert shown[-1].version == (3, 3) and shown[0].version == (1, 1)
    flipped = store.show_version(first.id)
    assert [m.content for m in flipped] == ["q", "a1"] and flipped[-1].version == (1, 3)
    assert contents(store, conv.id) == ["q", "a1"]  # remembered
    # A new turn follows the version shown.
    follow = store.add_message(conv.id, "user", "more")
    assert follow.parent_id == first.id


def test_editing_a_question_keeps_what_followed_with_the_version_it_followed(
    store: Store,
) -> None:
    conv = store.create_conversation()
    q1 = store.add_message(conv.id, "user", "q1")
    store.add_message(conv.id, "assistant", "a1")
    store.add_message(conv.id, "user", "q2")
    store.add_message(conv.id, "assistant", "a2")
    edited = store.add_version(q1.id, "q1 edited")
    assert contents(store, conv.id) == ["q1 edited"]
    store.add_message(conv.id, "assistant", "b1")
    assert contents(store, conv.id) == ["q1 edited", "b1"]
    assert store.messages(conv.id)[0].version == (2, 2)
    assert contents(store, conv.id) == ["q1 edited", "b1"]
    assert [m.content for m in store.show_version(q1.id)] == ["q1", "a1", "q2", "a2"]
    assert [m.content for m in store.show_version(edited.id)] == ["q1 edited", "b1"]
    assert len(store.all_messages(conv.id)) == 6


def test_an_edited_question_keeps_its_images(store: Store) -> None:
    from tests.engine.chat_images import new_image, png

    conv = store.create_conversation()
    asked = store.add_message(conv.id, "user", "what is this?", images=[new_image(png())])
    edited = store.add_version(asked.id, "what colour is this?")
    assert edited.images == asked.images
    assert store.messages(conv.id)[0].images == asked.images
    store.delete_message(asked.id)  # one version goes: the file stays for the other
    assert store.messages(conv.id)[0].images[0].path.exists()


def test_deleting_a_version_shows_a_neighbour_and_takes_what_followed_it(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "q")
    a1 = store.add_message(conv.id, "assistant", "a1")
    store.add_message(conv.id, "user", "follow-up")
    a2 = store.add_version(a1.id, "a2")
    store.delete_message(a2.id)
    assert contents(store, conv.id) == ["q", "a1", "follow-up"]
    assert store.messages(conv.id)[1].versions == ()
    store.delete_message(a1.id)  # no versions left: it goes alone, the follow-up stays
    assert contents(store, conv.id) == ["q", "follow-up"]


def test_deleting_a_version_not_shown_leaves_the_path(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "q")
    a1 = store.add_message(conv.id, "assistant", "a1")
    store.add_version(a1.id, "a2")
    store.delete_message(a1.id)
    assert contents(store, conv.id) == ["q", "a2"]


def test_a_branch_is_a_new_chat_with_the_turns_up_to_its_message(store: Store) -> None:
    from tests.engine.chat_images import new_image, png

    conv = store.create_conversation(
        "Trip", "Be brief.", ChatSettings(temperature=0.2), model="SmolLM2"
    )
    store.add_message(conv.id, "user", "q1", images=[new_image(png())])
    a1 = store.add_message(conv.id, "assistant", "a1", meta={"model": "SmolLM2"})
    store.add_message(conv.id, "user", "q2")
    branch = store.branch(a1.id)
    assert branch.id != conv.id and branch.title == "Trip (branch)"
    assert (branch.system_prompt, branch.settings.temperature, branch.model) == (
        "Be brief.",
        0.2,
        "SmolLM2",
    )
    copied = store.messages(branch.id)
    assert [m.content for m in copied] == ["q1", "a1"]
    assert copied[1].meta == {"model": "SmolLM2"} and copied[0].images
    store.add_message(branch.id, "user", "other way")
    assert contents(store, conv.id) == ["q1", "a1", "q2"]  # the original is untouched
    store.delete_conversation(conv.id)
    assert store.messages(branch.id)[0].images[0].path.exists()


def test_json_export_keeps_every_version_and_imports_back_whole(store: Store) -> None:
    from tests.engine.chat_images import new_image, png

    conv = store.create_conversation("Tree", "sys", ChatSettings(top_k=12), model="m")
    q = store.add_message(conv.id, "user", "q", images=[new_image(png(), "p.png")])
    a1 = store.add_message(conv.id, "assistant", "a1", meta={"model": "m"})
    store.add_message(conv.id, "user", "q2")
    store.add_version(a1.id, "a2")
    store.add_version(q.id, "q edited")
    store.show_version(a1.id)
    exported = json.loads(json.dumps(store.export_json(conv.id)))
    assert exported["version"] == 2 and len(exported["messages"]) == 5
    back = store.import_json(exported)
    assert (back.title, back.system_prompt, back.settings.top_k, back.model) == (
        "Tree",
        "sys",
        12,
        "m",
    )
    assert contents(store, back.id) == ["q", "a1", "q2"]
    shown = store.messages(back.id)
    assert shown[0].version == (1, 2) and shown[1].version == (1, 2)
    assert shown[0].images[0].name == "p.png" and shown[1].meta == {"model": "m"}
    assert len(store.all_messages(back.id)) == 5
    # Markdown holds the path shown.
    text = store.export_markdown(conv.id)
    assert "a1" in text and "a2" not in text and "q edited" not in text


def test_an_openai_messages_list_comes_in_as_a_plain_conversation(store: Store) -> None:
    back = store.import_json(
        {
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": [{"type": "text", "text": "Hi there"}]},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "x"}]},
                {"role": "tool", "content": "42", "tool_call_id": "x"},
                {"role": "assistant", "content": "Hello."},
            ]
        }
    )
    assert back.system_prompt == "You are terse." and back.title == "Hi there"
    assert contents(store, back.id) == ["Hi there", "Hello."]
    plain = store.import_json([{"role": "user", "content": "just a list"}])
    assert contents(store, plain.id) == ["just a list"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("text", "no conversation"),
        ({"format": "cove.presets"}, "not a conversation"),
        ({"messages": "x"}, "no 'messages' list"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "role"),
        ({"messages": [{"role": "user", "content": 3}]}, "content"),
        (
            {
                "format": "cove.conversation",
                "messages": [{"id": 2, "parent": 1, "role": "user", "content": "x"}],
            },
            "follows 1",
        ),
        ({"messages": []}, "no messages"),
    ],
)
def test_a_file_that_is_not_a_conversation_is_refused_and_nothing_is_written(
    store: Store, data: object, says: str
) -> None:
    before = store.list_conversations()
    with pytest.raises(ValueError, match=says):
        store.import_json(data)
    assert store.list_conversations() == before


def table_dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'"
            )
        ]
        return {n: sorted(conn.execute(f"SELECT * FROM {n}").fetchall()) for n in names}
    finally:
        conn.close()


def test_a_history_from_the_schema_before_versions_opens_whole(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(FIXTURE, folder)
    db = folder / "cove.sqlite3"
    before = table_dump(db)
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 3
    with Store(db) as store:
        conversations = {c.title: c for c in store.list_conversations()}
        assert set(conversations) == {
            "Weekend in Lisbon",
            "Quarterly chart",
            "Regex help",
            "Empty chat",
        }
        lisbon = conversations["Weekend in Lisbon"]
        assert lisbon.system_prompt == "You are a concise travel planner."
        assert (lisbon.settings.temperature, lisbon.settings.ctx) == (0.3, 4096)
        shown = store.messages(lisbon.id)
        assert [m.role for m in shown] == ["user", "assistant", "user", "assistant"]
        assert shown[-1].status == "interrupted" and shown[-1].content.startswith("Museums")
        assert shown[1].meta["stats"]["completion_tokens"] == 41
        chart = store.messages(conversations["Quarterly chart"].id)
        assert [m.content for m in chart][2] == "Which quarter was best?"
        image = chart[0].images[0]
        assert image.name == "q3.png" and image.path.read_bytes()[:4] == b"\x89PNG"
        assert len(store.messages(conversations["Regex help"].id)) == 3
        assert store.messages(conversations["Empty chat"].id) == []
        assert store.get_setting("theme") == "dark"
        assert store.get_setting("last_conversation") == lisbon.id
        # Every message and row is there, with the same ids (the saved model state is named by
        # the conversation's id), and each follows the one written before it.
        for conv in conversations.values():
            every = store.all_messages(conv.id)
            assert [m.id for m in every] == [m.id for m in store.messages(conv.id)]
            assert [m.parent_id for m in every] == [None, *[m.id for m in every]][: len(every)]
        assert store.search("bakeries")[0].conversation_id == lisbon.id
    after = table_dump(db)
    assert [row[:8] for row in after["messages"]] == before["messages"]
    for table in ("images", "message_images", "app_settings"):
        assert after[table] == before[table]
    assert [row[:7] for row in after["conversations"]] == before["conversations"]
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == (
        store_schema.latest_version()
    )
    with Store(db):  # a second open changes nothing
        pass
    assert table_dump(db) == after

"""The chat history on real SQLite files: API, migrations, search, export, threads and crashes."""

from __future__ import annotations

import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from engine.errors import EngineError
from engine.store import (
    ChatSettings,
    ReplyMeta,
    SearchHit,
    Store,
    StoreError,
    default_db_path,
    reply_meta,
    reply_status,
)
from engine.store import schema as store_schema
from engine.store.search import fts_query
from engine.types import Chunk, GenerationParams, GenerationStats, Truncation
from tests.engine.chat_images import new_image, png

REPO = Path(__file__).resolve().parents[3]


needs_fts5 = pytest.mark.skipif(
    not store_schema.fts5_available(), reason="this SQLite was built without FTS5"
)


class Clock:
    """Whole seconds, one tick per call, so ordering by time never depends on timer resolution."""

    def __init__(self) -> None:
        self._ticks = itertools.count(1_000)

    def __call__(self) -> float:
        return float(next(self._ticks))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history" / "cove.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    with Store(db, clock=Clock()) as opened:
        yield opened


@pytest.fixture(params=[pytest.param("fts5", marks=needs_fts5), "like"])
def any_store(
    request: pytest.FixtureRequest, db: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """A store searching with FTS5, and one as it runs on a SQLite built without FTS5."""
    if request.param == "like":
        monkeypatch.setattr(store_schema, "fts5_available", lambda: False)
    with Store(db, clock=Clock()) as opened:
        assert opened.full_text_search is (request.param == "fts5")
        yield opened


def raw(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(db, isolation_level=None)


def assert_index_consistent(db: Path) -> None:
    if not store_schema.fts5_available():
        return
    conn = raw(db)
    try:
        for table in (store_schema.MESSAGES_FTS, store_schema.TITLES_FTS):
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    finally:
        conn.close()


# Paths


def test_default_path_is_the_platform_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COVE_DATA_DIR", raising=False)
    expected = platformdirs.user_data_path("Cove", appauthor=False) / "cove.sqlite3"
    assert default_db_path() == expected


def test_data_dir_env_var_moves_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "elsewhere" / "deeper"
    monkeypatch.setenv("COVE_DATA_DIR", str(folder))
    assert default_db_path() == folder / "cove.sqlite3"
    with Store() as store:
        assert store.path == folder / "cove.sqlite3"
        store.create_conversation("kept here")
    assert (folder / "cove.sqlite3").is_file()


# Opening, migrations and damaged files


def test_new_database_is_fully_migrated_in_wal_mode(store: Store, db: Path) -> None:
    conn = raw(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == store_schema.latest_version()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert {"conversations", "messages", "app_settings", store_schema.MESSAGES_FTS} <= tables


def test_reopening_keeps_data_and_version(db: Path) -> None:
    with Store(db) as first:
        conv = first.create_conversation("persisted", system_prompt="be terse")
        first.add_message(conv.id, "user", "hello")
        saved = first.get_conversation(conv.id)
    with Store(db) as second:
        assert second.get_conversation(conv.id) == saved
        assert [m.content for m in second.messages(conv.id)] == ["hello"]
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store_schema.latest_version()
    conn.close()


V1_SCHEMA = (
    """CREATE TABLE conversations (
        id INTEGER PRIMARY KEY, title TEXT NOT NULL, system_prompt TEXT NOT NULL DEFAULT '',
        settings TEXT NOT NULL DEFAULT '{}', model TEXT,
        created_at REAL NOT NULL, updated_at REAL NOT NULL)""",
    "CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC)",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
        content TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('complete', 'streaming', 'interrupted', 'error')),
        created_at REAL NOT NULL, meta TEXT NOT NULL DEFAULT '{}',
        UNIQUE (conversation_id, position))""",
    "CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming'",
    "CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def test_version_1_database_made_by_hand_is_upgraded_and_indexed(db: Path) -> None:
    db.parent.mkdir(parents=True)
    conn = raw(db)
    for statement in V1_SCHEMA:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO conversations VALUES (7, 'Old llama notes', '', '{\"temperature\": 0.2}', "
        "'tiny.gguf', 1.0, 2.0)"
    )
    conn.execute(
        "INSERT INTO messages VALUES (1, 7, 0, 'user', 'where is the needle?', 'complete', 1.0, "
        "'{}'), (2, 7, 1, 'assistant', 'in the haystack', 'streaming', 2.0, '{}')"
    )
    conn.execute("INSERT INTO app_settings VALUES ('theme', '\"dark\"')")
    conn.execute("PRAGMA user_version = 1")
    conn.close()

    with Store(db) as store:
        conv = store.get_conversation(7)
        assert conv is not None
        assert conv.title == "Old llama notes" and conv.model == "tiny.gguf"
        assert conv.settings.temperature == 0.2
        assert [m.content for m in store.messages(7)] == ["where is the needle?", "in the haystack"]
        assert store.get_setting("theme") == "dark"
        # The index added by migration 2 covers rows written before it existed.
        assert [h.message_id for h in store.search("needle")] == [1]
        assert [h.conversation_id for h in store.search("llama")] == [7]
        assert store.recover_interrupted() == 1
    assert_index_consistent(db)


def test_database_from_a_newer_version_is_refused_and_untouched(db: Path) -> None:
    with Store(db) as store:
        store.create_conversation("precious")
    conn = raw(db)
    conn.execute(f"PRAGMA user_version = {store_schema.latest_version() + 1}")
    conn.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match="newer version of Cove") as caught:
        Store(db)
    assert str(db) in str(caught.value)
    assert caught.value.code == "store_error" and isinstance(caught.value, EngineError)
    assert db.read_bytes() == before


def test_a_failing_migration_leaves_the_previous_version(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        conn.execute("INSERT INTO no_such_table VALUES (1)")

    good = store_schema.MIGRATIONS
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*good, broken))
    with pytest.raises(StoreError, match=str(db.name)):
        Store(db)
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(good)
    assert (
        conn.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    )
    conn.close()
    monkeypatch.setattr(store_schema, "MIGRATIONS", good)
    with Store(db) as store:
        assert store.list_conversations() == []


def test_corrupt_file_is_reported_by_name_and_left_alone_when_repair_is_off(db: Path) -> None:
    db.parent.mkdir(parents=True)
    garbage = random.Random(7).randbytes(16_384)
    db.write_bytes(garbage)
    with pytest.raises(StoreError) as caught:
        Store(db, repair=False)
    message = str(caught.value)
    assert str(db) in message and "damaged" in message and "not changed" in message
    assert db.read_bytes() == garbage


def test_corrupt_file_is_moved_aside_whole_and_a_new_history_opens(db: Path) -> None:
    db.parent.mkdir(parents=True)
    garbage = random.Random(7).randbytes(16_384)
    db.write_bytes(garbage)
    with Store(db) as store:
        assert store.list_conversations() == []
        (repair,) = store.repairs
    assert (repair.damaged_copy / db.name).read_bytes() == garbage


def test_a_folder_in_place_of_the_file_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "cove.sqlite3"
    folder.mkdir()
    with pytest.raises(StoreError, match=str(folder)):
        Store(folder)


def test_closed_store_refuses_calls_and_close_is_idempotent(db: Path) -> None:
    store = Store(db)
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_conversations()
    with pytest.raises(StoreError, match="closed"):
        store.create_conversation()


# Conversations and settings


def test_chat_settings_defaults_follow_generation_params() -> None:
    settings = ChatSettings()
    params = GenerationParams()
    assert settings.ctx is None
    assert settings.to_params() == GenerationParams(
        temperature=params.temperature,
        top_k=params.top_k,
        top_p=params.top_p,
        max_tokens=params.max_tokens,
        thinking=True,  # the chat's Thinking switch, sent with every request
    )
    assert ChatSettings(thinking=False).to_params().thinking is False
    custom = ChatSettings(temperature=0.0, top_p=0.5, top_k=0, max_tokens=None, ctx=8192)
    assert custom.to_params().temperature == 0.0 and custom.to_params().max_tokens is None
    with pytest.raises(ValueError):
        ChatSettings(top_p=0.0)
    with pytest.raises(ValueError):
        ChatSettings(ctx=0)


def test_chat_settings_read_leniently() -> None:
    read = ChatSettings.from_json(
        {"temperature": 0.3, "top_p": 7, "top_k": "many", "ctx": 4096, "from_the_future": 1}
    )
    assert read == ChatSettings(temperature=0.3, ctx=4096)
    assert ChatSettings.from_json(["not", "a", "dict"]) == ChatSettings()
    assert ChatSettings.from_json({"max_tokens": True}) == ChatSettings()
    assert ChatSettings.from_json({"thinking": False}) == ChatSettings(thinking=False)
    assert ChatSettings.from_json({"thinking": 0}) == ChatSettings()


def test_create_and_get_conversation(store: Store) -> None:
    conv = store.create_conversation()
    assert conv.title == "New chat" and conv.system_prompt == "" and conv.model is None
    assert conv.settings == ChatSettings()
    assert conv.created_at == conv.updated_at
    assert store.get_conversation(conv.id) == conv
    assert store.get_conversation(conv.id + 100) is None


def test_conversation_fields_round_trip(db: Path) -> None:
    settings = ChatSettings(temperature=0.1, top_k=5, ctx=2048)
    with Store(db, clock=Clock()) as store:
        conv = store.create_conversation("Plans", "You are a pirate.", settings, "qwen.gguf")
        renamed = store.rename_conversation(conv.id, "Better plans")
        assert renamed.title == "Better plans" and renamed.updated_at > conv.updated_at
        store.set_system_prompt(conv.id, "You are a parrot.")
        store.set_model(conv.id, None)
        updated = store.set_settings(conv.id, ChatSettings(top_p=0.5))
        assert updated.settings == ChatSettings(top_p=0.5)
    with Store(db) as reopened:
        again = reopened.get_conversation(conv.id)
    assert again is not None
    assert (again.title, again.system_prompt, again.model) == (
        "Better plans",
        "You are a parrot.",
        None,
    )
    assert again.settings == ChatSettings(top_p=0.5)


def test_set_settings_keeps_keys_it_does_not_know(store: Store, db: Path) -> None:
    conv = store.create_conversation()
    conn = raw(db)
    conn.execute(
        "UPDATE conversations SET settings = ? WHERE id = ?",
        (json.dumps({"temperature": 1.0, "mirostat": 2}), conv.id),
    )
    conn.close()
    store.set_settings(conv.id, ChatSettings(temperature=0.4))
    conn = raw(db)
    stored = json.loads(
        conn.execute("SELECT settings FROM conversations WHERE id = ?", (conv.id,)).fetchone()[0]
    )
    conn.close()
    assert stored["mirostat"] == 2 and stored["temperature"] == 0.4


def test_list_is_newest_updated_first(store: Store) -> None:
    a = store.create_conversation("a")
    b = store.create_conversation("b")
    c = store.create_conversation("c")
    assert [x.title for x in store.list_conversations()] == ["c", "b", "a"]
    store.add_message(a.id, "user", "bump")
    assert [x.title for x in store.list_conversations()] == ["a", "c", "b"]
    store.rename_conversation(b.id, "b2")
    assert [x.title for x in store.list_conversations()] == ["b2", "a", "c"]
    store.delete_conversation(c.id)
    assert [x.id for x in store.list_conversations()] == [b.id, a.id]


def test_changing_a_missing_conversation_says_so(store: Store) -> None:
    for call in (
        lambda: store.rename_conversation(404, "x"),
        lambda: store.set_system_prompt(404, "x"),
        lambda: store.set_model(404, "x"),
        lambda: store.set_settings(404, ChatSettings()),
        lambda: store.add_message(404, "user", "x"),
        lambda: store.export_markdown(404),
    ):
        with pytest.raises(StoreError, match="404 no longer exists"):
            call()
    store.delete_conversation(404)  # deleting what is gone is fine


def test_delete_conversation_cascades_to_messages_and_index(store: Store, db: Path) -> None:
    keep = store.create_conversation("keep")
    drop = store.create_conversation("drop")
    store.add_message(keep.id, "user", "shared word zebra")
    for i in range(3):
        store.add_message(drop.id, "user", f"zebra {i}")
    store.delete_conversation(drop.id)
    assert store.messages(drop.id) == []
    conn = raw(db)
    assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 1
    conn.close()
    assert {h.conversation_id for h in store.search("zebra")} == {keep.id}
    assert_index_consistent(db)


# Messages


def test_messages_keep_their_order_role_and_meta(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "system", "rules")
    store.add_message(conv.id, "user", "question")
    reply = store.add_message(
        conv.id, "assistant", "answer", meta={"stats": {"ttft_s": 0.25}, "finish_reason": "stop"}
    )
    listed = store.messages(conv.id)
    assert [(m.position, m.role, m.content) for m in listed] == [
        (0, "system", "rules"),
        (1, "user", "question"),
        (2, "assistant", "answer"),
    ]
    assert listed[2] == reply and store.get_message(reply.id) == reply
    assert listed[2].meta == {"stats": {"ttft_s": 0.25}, "finish_reason": "stop"}
    assert listed[0].meta == {} and listed[0].status == "complete"
    assert store.messages(conv.id + 1) == []


def test_bad_role_or_status_is_rejected(store: Store) -> None:
    conv = store.create_conversation()
    with pytest.raises(ValueError, match="role"):
        store.add_message(conv.id, "robot", "hi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="status"):
        store.add_message(conv.id, "user", "hi", status="done")  # type: ignore[arg-type]
    reply = store.add_message(conv.id, "assistant", "", status="streaming")
    with pytest.raises(ValueError, match="final status"):
        store.finish_message(reply.id, "x", "streaming")
    assert store.messages(conv.id) == [reply]


def test_streaming_reply_is_saved_as_it_grows_then_finished(store: Store) -> None:
    conv = store.create_conversation()
    reply = store.add_message(conv.id, "assistant", "", status="streaming", meta={"seed": 1})
    listed_at = store.get_conversation(conv.id)
    for text in ("Once", "Once upon", "Once upon a time"):
        assert store.update_message_content(reply.id, text)
        saved = store.get_message(reply.id)
        assert saved is not None and saved.content == text and saved.status == "streaming"
    # Streaming ticks are cheap: they do not reorder the conversation list.
    assert store.get_conversation(conv.id) == listed_at
    done = store.finish_message(
        reply.id, "Once upon a time.", "complete", {"finish_reason": "stop"}
    )
    assert done is not None
    assert (done.content, done.status, done.meta) == (
        "Once upon a time.",
        "complete",
        {"finish_reason": "stop"},
    )
    kept = store.finish_message(reply.id, "Once upon a time!", "error")
    assert kept is not None and kept.meta == {"finish_reason": "stop"} and kept.status == "error"


def test_reply_to_a_deleted_conversation_is_dropped_quietly(store: Store) -> None:
    conv = store.create_conversation()
    reply = store.add_message(conv.id, "assistant", "", status="streaming")
    store.delete_conversation(conv.id)
    assert store.update_message_content(reply.id, "late text") is False
    assert store.finish_message(reply.id, "late text", "complete") is None


def test_edit_and_delete_messages(store: Store) -> None:
    conv = store.create_conversation()
    msgs = [store.add_message(conv.id, "user", f"m{i}") for i in range(5)]
    edited = store.edit_message(msgs[1].id, "m1 edited")
    assert edited.content == "m1 edited" and edited.position == 1
    store.delete_message(msgs[0].id)
    store.delete_message(msgs[0].id)  # already gone: fine
    assert [m.content for m in store.messages(conv.id)] == ["m1 edited", "m2", "m3", "m4"]
    store.delete_message(msgs[4].id)
    assert [m.content for m in store.messages(conv.id)] == ["m1 edited", "m2", "m3"]
    again = store.add_message(conv.id, "assistant", "regenerated")
    assert again.parent_id == msgs[3].id  # after the last message shown
    assert [m.content for m in store.messages(conv.id)][-1] == "regenerated"
    with pytest.raises(StoreError, match="no longer exists"):
        store.edit_message(msgs[0].id, "x")


def test_recover_interrupted_marks_only_streaming_replies(store: Store) -> None:
    conv = store.create_conversation()
    done = store.add_message(conv.id, "assistant", "done")
    failed = store.add_message(conv.id, "assistant", "oops", status="error")
    partial = store.add_message(conv.id, "assistant", "half a thou", status="streaming")
    assert store.recover_interrupted() == 1
    assert [m.status for m in store.messages(conv.id)] == ["complete", "error", "interrupted"]
    recovered = store.get_message(partial.id)
    assert recovered is not None and recovered.content == "half a thou"
    assert store.recover_interrupted() == 0
    assert store.get_message(done.id) == done and store.get_message(failed.id) == failed


CRASHING_WRITER = """
import sys
from engine.store import Store

store = Store(sys.argv[1])
conv = store.create_conversation("crash test")
store.add_message(conv.id, "user", "tell me a long story")
reply = store.add_message(conv.id, "assistant", "", status="streaming")
text = ""
for i in range(1_000_000):
    text += f"word{i} "
    store.update_message_content(reply.id, text)
    print(i, flush=True)
"""


def test_reply_streaming_when_the_process_is_killed_survives_as_interrupted(db: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CRASHING_WRITER, str(db)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    last = -1
    try:
        deadline = time.monotonic() + 60
        while last < 200 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            last = int(line)
    finally:
        child.kill()  # SIGKILL on POSIX: no cleanup, no close(), mid-write
        _, err = child.communicate(timeout=30)
    assert last >= 200, f"the writer stopped early: {err}"

    with Store(db) as store:
        (conv,) = store.list_conversations()
        user, reply = store.messages(conv.id)
        assert user.content == "tell me a long story"
        assert reply.status == "streaming"
        words = reply.content.split()
        assert len(words) > last  # every update reported as committed is there
        assert words == [f"word{i}" for i in range(len(words))]
        assert store.recover_interrupted() == 1
        recovered = store.get_message(reply.id)
        assert recovered is not None
        assert recovered.status == "interrupted" and recovered.content == reply.content
    assert_index_consistent(db)


# Threads


def test_threads_writing_at_once_lose_nothing(store: Store) -> None:
    convs = [store.create_conversation(f"c{i}") for i in range(2)]
    errors: list[BaseException] = []
    threads_n, per_thread = 8, 40
    stop_reading = threading.Event()

    def write(worker: int) -> None:
        try:
            for i in range(per_thread):
                conv = convs[i % 2]
                msg = store.add_message(conv.id, "assistant", "", status="streaming")
                store.update_message_content(msg.id, f"w{worker} i{i} partial")
                store.finish_message(msg.id, f"w{worker} i{i} done", "complete")
        except BaseException as exc:
            errors.append(exc)

    def read() -> None:
        try:
            while not stop_reading.is_set():
                store.list_conversations()
                store.messages(convs[0].id)
                store.search("done")
        except BaseException as exc:
            errors.append(exc)

    reader = threading.Thread(target=read)
    writers = [threading.Thread(target=write, args=(w,)) for w in range(threads_n)]
    reader.start()
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop_reading.set()
    reader.join()

    assert errors == []
    contents: set[str] = set()
    for conv in convs:
        msgs = store.messages(conv.id)
        assert [m.position for m in msgs] == list(range(len(msgs)))
        assert all(m.status == "complete" for m in msgs)
        contents |= {m.content for m in msgs}
    expected = {f"w{w} i{i} done" for w in range(threads_n) for i in range(per_thread)}
    assert contents == expected
    assert len(store.search("done", limit=1000)) == threads_n * per_thread


# Search


def test_search_finds_messages_and_titles_with_highlights(any_store: Store) -> None:
    store = any_store
    trip = store.create_conversation("Trip to Lisbon")
    other = store.create_conversation("Groceries")
    user = store.add_message(trip.id, "user", "What should I eat in Lisbon? " + "filler " * 40)
    store.add_message(other.id, "user", "eggs, milk, bread")
    hits = store.search("lisbon")
    assert hits[0] == SearchHit(trip.id, "Trip to Lisbon", None, None, "Trip to Lisbon", ((8, 14),))
    (message_hit,) = hits[1:]
    assert (message_hit.conversation_id, message_hit.message_id, message_hit.role) == (
        trip.id,
        user.id,
        "user",
    )
    assert message_hit.title == "Trip to Lisbon"
    assert "[Lisbon]" in message_hit.marked("[", "]")
    assert message_hit.snippet.endswith("…")  # long text is cut around the match
    assert store.search("milk bread")[0].conversation_id == other.id
    assert store.search("milk lisbon") == []  # every word must match


def test_marked_escapes_text_but_not_markers() -> None:
    hit = SearchHit(1, "t", 2, "user", "a<b> match", ((5, 10),))
    assert hit.marked("<em>", "</em>", lambda s: s.replace("<", "&lt;")) == "a&lt;b> <em>match</em>"


@needs_fts5
def test_full_text_search_folds_accents_and_completes_the_last_word(store: Store) -> None:
    conv = store.create_conversation()
    store.add_message(conv.id, "user", "un café crème et une tartelette")
    assert len(store.search("cafe")) == 1
    assert len(store.search("CAFÉ")) == 1
    assert len(store.search("tartel")) == 1  # still being typed
    assert store.search("tartel cafe") == []  # only the last word is a prefix


def test_search_follows_edits_and_deletes(any_store: Store, db: Path) -> None:
    store = any_store
    conv = store.create_conversation("notes")
    msg = store.add_message(conv.id, "assistant", "", status="streaming")
    store.update_message_content(msg.id, "the first draft mentions walrus")
    assert [h.message_id for h in store.search("walrus")] == [msg.id]
    store.finish_message(msg.id, "final text about otters", "complete")
    assert store.search("walrus") == []
    assert [h.message_id for h in store.search("otters")] == [msg.id]
    store.rename_conversation(conv.id, "marine mammals")
    assert store.search("notes") == []
    assert [h.conversation_id for h in store.search("mammals")] == [conv.id]
    store.delete_message(msg.id)
    assert store.search("otters") == []
    if store.full_text_search:
        assert_index_consistent(db)


HOSTILE_QUERIES = [
    '"',
    '""',
    '"unbalanced',
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b)",
    "foo*",
    "*",
    "(",
    ")",
    "a AND (b",
    "content:foo",
    "title:x",
    "^start",
    "-minus",
    "+",
    "'",
    "\\",
    "%",
    "_",
    "100%",
    "a\x00b",
    "日本語",
    "🙂🙃",
    "é",
    "{a b}",
    "a:b:c",
    "",
    "   ",
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_any_user_text_is_a_safe_query(any_store: Store, query: str) -> None:
    conv = any_store.create_conversation("syntax")
    any_store.add_message(conv.id, "user", "plain words only, nothing special here")
    hits = any_store.search(query)
    assert all(isinstance(hit, SearchHit) for hit in hits)


def test_random_unicode_never_breaks_search(any_store: Store) -> None:
    conv = any_store.create_conversation()
    any_store.add_message(conv.id, "user", "some ordinary text")
    alphabet = "\"*()^:-+ANDORNEARxyz é日🙂\\%_'{}\t\n\x00"
    rng = random.Random(1234)
    for _ in range(300):
        query = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        any_store.search(query)


def test_syntax_characters_are_matched_as_words(any_store: Store) -> None:
    store = any_store
    conv = store.create_conversation()
    wanted = store.add_message(conv.id, "user", "salt AND pepper (taste it), 100% foobar")
    store.add_message(conv.id, "user", "nothing to see")
    assert [h.message_id for h in store.search("AND")] == [wanted.id]
    assert [h.message_id for h in store.search("(taste")] == [wanted.id]
    assert [h.message_id for h in store.search('"pepper"')] == [wanted.id]
    assert [h.message_id for h in store.search("foo*")] == [wanted.id]
    assert [h.message_id for h in store.search("100%")] == [wanted.id]


def test_like_fallback_never_lets_wildcards_through(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_schema, "fts5_available", lambda: False)
    with Store(db) as store:
        conv = store.create_conversation()
        store.add_message(conv.id, "user", "50% off")
        store.add_message(conv.id, "user", "snake_case")
        store.add_message(conv.id, "user", "plain")
        assert store.search("%") == [] and store.search("_") == []
        assert [h.snippet for h in store.search("50%")] == ["50% off"]
        assert [h.snippet for h in store.search("snake_case")] == ["snake_case"]
        assert [h.marked("[", "]") for h in store.search("PLA")] == ["[pla]in"]


@needs_fts5
def test_index_is_rebuilt_after_running_without_fts5(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store(db) as store:
        conv = store.create_conversation("first")
        store.add_message(conv.id, "user", "indexed apples")
    with monkeypatch.context() as patch:
        patch.setattr(store_schema, "fts5_available", lambda: False)
        with Store(db) as degraded:
            assert not degraded.full_text_search
            degraded.add_message(conv.id, "user", "unindexed bananas")
            assert len(degraded.search("bananas")) == 1
    with Store(db) as store:
        assert store.full_text_search
        assert len(store.search("bananas")) == 1
        assert len(store.search("apples")) == 1
    assert_index_consistent(db)


def test_fts_query_quotes_every_word() -> None:
    assert fts_query('say "hi" AND (bye') == '"say" """hi""" "AND" "(bye" *'
    assert fts_query(" \x00 * ( ") is None


# App settings


def test_app_settings_round_trip_json(db: Path) -> None:
    with Store(db) as store:
        assert store.get_setting("theme") is None
        assert store.get_setting("theme", "light") == "light"
        store.set_setting("theme", "dark")
        store.set_setting("first_run_done", True)
        store.set_setting("geometry", {"x": 10, "y": 20, "sizes": [300, 900]})
        store.set_setting("theme", "sepia")
        with pytest.raises(TypeError):
            store.set_setting("bad", object())
    with Store(db) as reopened:
        assert reopened.get_setting("theme") == "sepia"
        assert reopened.get_setting("first_run_done") is True
        assert reopened.get_setting("geometry") == {"x": 10, "y": 20, "sizes": [300, 900]}
        assert reopened.get_setting("bad", "absent") == "absent"


# Export


def exported_conversation(store: Store) -> int:
    conv = store.create_conversation(
        "Sorting in Python",
        system_prompt="Answer with code.\nKeep it short.",
        settings=ChatSettings(temperature=0.2, ctx=4096),
        model="smollm2-135m.gguf",
    )
    store.add_message(conv.id, "user", "How do I sort a list?")
    store.add_message(
        conv.id,
        "assistant",
        "Use `sorted`:\n\n```python\nnums = sorted([3, 1, 2])\n```\n",
        meta={"finish_reason": "stop", "stats": {"decode_tokens_per_s": 42.0}},
    )
    store.add_message(conv.id, "user", "And in reverse?")
    store.add_message(
        conv.id, "assistant", "Pass `reverse=True`:\n\n```python\nsorted(", "interrupted"
    )
    store.add_message(conv.id, "assistant", "", "error", meta={"error": "engine crashed"})
    return conv.id


def test_export_json_has_everything_to_rebuild_the_chat(store: Store) -> None:
    data = store.export_json(exported_conversation(store))
    assert json.loads(json.dumps(data)) == data
    assert data["title"] == "Sorting in Python"
    assert data["system_prompt"] == "Answer with code.\nKeep it short."
    assert data["model"] == "smollm2-135m.gguf"
    assert ChatSettings.from_json(data["settings"]) == ChatSettings(temperature=0.2, ctx=4096)
    roles = [(m["role"], m["status"]) for m in data["messages"]]
    assert roles == [
        ("user", "complete"),
        ("assistant", "complete"),
        ("user", "complete"),
        ("assistant", "interrupted"),
        ("assistant", "error"),
    ]
    assert data["messages"][1]["meta"]["stats"] == {"decode_tokens_per_s": 42.0}
    assert all(isinstance(m["created_at"], float) for m in data["messages"])


def test_export_markdown_reads_like_a_transcript(store: Store) -> None:
    text = store.export_markdown(exported_conversation(store))
    assert text.startswith("# Sorting in Python\n")
    assert "smollm2-135m.gguf" in text
    assert "**System prompt**\n\n> Answer with code.\n> Keep it short." in text
    assert text.count("**You**") == 2 and text.count("**Assistant**") == 3
    assert text.index("How do I sort") < text.index("nums = sorted") < text.index("reverse?")
    assert "```python\nnums = sorted([3, 1, 2])\n```" in text
    assert "interrupted before it finished" in text
    assert "failed: engine crashed" in text
    # The interrupted reply's open code block is closed, so the next turn is not swallowed by it.
    assert "sorted(\n```\n\n*This reply was interrupted before it finished.*" in text
    assert text.count("```") % 2 == 0


# Turning a finished stream into what is stored


def test_reply_status_and_meta_from_the_terminal_chunk() -> None:
    assert reply_status("stop") == "complete" and reply_status("length") == "complete"
    assert reply_status("cancelled") == "interrupted" and reply_status(None) == "interrupted"
    assert reply_status("error") == "error"
    final = Chunk(
        finish_reason="length",
        stats=GenerationStats(completion_tokens=12, ttft_s=0.5, decode_tokens_per_s=30.0),
        truncation=Truncation(2, 0, 300, 2048),
    )
    meta = reply_meta(final)
    assert meta["finish_reason"] == "length"
    assert meta["stats"]["ttft_s"] == 0.5 and meta["stats"]["decode_tokens_per_s"] == 30.0
    assert "2048-token context" in meta["truncation"]
    assert reply_meta(Chunk(finish_reason="error", error="boom")) == {
        "finish_reason": "error",
        "error": "boom",
    }


def test_stored_reply_meta_reads_back_typed() -> None:
    stats = GenerationStats(prompt_tokens=40, completion_tokens=12, ttft_s=0.5)
    final = Chunk(finish_reason="length", stats=stats, truncation=Truncation(2, 0, 300, 2048))
    meta = ReplyMeta.of(json.loads(json.dumps({"model": "m", **reply_meta(final)})))
    assert meta.stats == stats and meta.finish_reason == "length" and meta.model == "m"
    assert meta.truncation is not None and "2048-token context" in meta.truncation
    assert ReplyMeta.of({"stats": "garbled", "error": "boom"}) == ReplyMeta(error="boom")
    assert ReplyMeta.of({"stats": {"completion_tokens": 3, "from_a_newer_cove": 1}}).stats == (
        GenerationStats(completion_tokens=3)
    )


# Images kept with messages


def image_files(store: Store) -> list[Path]:
    return sorted(p for p in store.images_folder.rglob("*") if p.is_file())


def test_images_are_kept_whole_beside_the_history_and_read_back_in_order(store: Store) -> None:
    conv = store.create_conversation("Charts")
    first, second = png(size=(3000, 200)), png(colour="orange")
    sent = store.add_message(
        conv.id, "user", "What do these show?", images=[new_image(first), new_image(second, "b")]
    )
    assert [i.name for i in sent.images] == ["chart.png", "b"]
    assert (sent.images[0].width, sent.images[0].height) == (3000, 200)  # as given, not scaled
    store.add_message(conv.id, "assistant", "Two colours.")
    # The folder is beside the database, each file under its SHA-256.
    assert store.images_folder == store.path.parent / "images"
    files = image_files(store)
    assert len(files) == 2 and all(f.suffix == ".png" for f in files)
    messages = store.messages(conv.id)
    assert messages[0].images == sent.images and messages[1].images == ()
    assert store.get_message(sent.id) == messages[0]
    assert store.image_bytes(messages[0].images[0]) == first  # the original bytes
    assert messages[0].images[1].path.name.startswith(messages[0].images[1].sha256)


def test_an_image_sent_twice_is_one_file_until_its_last_message_goes(store: Store) -> None:
    data = png()
    one = store.create_conversation("One")
    two = store.create_conversation("Two")
    kept = store.add_message(one.id, "user", "a", images=[new_image(data)])
    store.add_message(two.id, "user", "b", images=[new_image(data, "again.png")])
    assert len(image_files(store)) == 1
    store.delete_conversation(two.id)
    assert image_files(store) == [kept.images[0].path]  # the other chat still shows it
    store.delete_message(kept.id)
    assert image_files(store) == []
    assert store.messages(one.id) == []


def test_deleting_a_chat_or_the_messages_after_an_edit_removes_their_image_files(
    store: Store,
) -> None:
    conv = store.create_conversation("Photos")
    store.add_message(conv.id, "user", "first", images=[new_image(png(colour="red"))])
    later = store.add_message(conv.id, "user", "second", images=[new_image(png(colour="blue"))])
    assert len(image_files(store)) == 2
    store.delete_message(later.id)
    assert len(image_files(store)) == 1
    store.delete_conversation(conv.id)
    assert image_files(store) == []
    with Store(store.path) as again:  # nothing is left in the tables either
        conn = raw(again.path)
        assert conn.execute("SELECT COUNT(*) FROM images").fetchone()[0] == 0
        conn.close()


def test_a_version_2_history_gains_images_and_keeps_its_chats(db: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db, isolation_level=None)
    for step in store_schema.MIGRATIONS[:2]:  # the file as a version 2 Cove wrote it
        step(conn)
    conn.execute("INSERT INTO conversations VALUES (1, 'Before images', '', '{}', NULL, 1.0, 1.0)")
    conn.execute("INSERT INTO messages VALUES (1, 1, 0, 'user', 'hello', 'complete', 1.0, '{}')")
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    conv_id = 1
    with Store(db) as store:
        conv = store.get_conversation(conv_id)
        assert conv is not None
        assert [m.content for m in store.messages(conv.id)] == ["hello"]
        sent = store.add_message(conv.id, "user", "and now", images=[new_image(png())])
        assert store.messages(conv.id)[-1].images == sent.images
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store_schema.latest_version()
    conn.close()


def test_exports_carry_the_images(store: Store, tmp_path: Path) -> None:
    import base64

    data = png()
    conv = store.create_conversation("Sales")
    store.add_message(
        conv.id, "user", "Explain [this] chart", images=[new_image(data, "q3 chart.png")]
    )
    store.add_message(conv.id, "assistant", "Sales rose.")
    exported = json.loads(json.dumps(store.export_json(conv.id)))
    image = exported["messages"][0]["images"][0]
    assert image["name"] == "q3 chart.png" and image["mime"] == "image/png"
    assert image["url"] == "data:image/png;base64," + base64.b64encode(data).decode()
    assert "images" not in exported["messages"][1]
    # Markdown on its own embeds them; saved beside a folder, it links the copies there.
    assert "![q3 chart.png](data:image/png;base64," in store.export_markdown(conv.id)
    folder = tmp_path / "export" / "sales_images"
    text = store.export_markdown(conv.id, folder)
    assert "![q3 chart.png](sales_images/q3%20chart.png)\n\nExplain [this] chart" in text
    assert (folder / "q3 chart.png").read_bytes() == data
    empty = store.create_conversation("No images")
    store.export_markdown(empty.id, tmp_path / "none")
    assert not (tmp_path / "none").exists()

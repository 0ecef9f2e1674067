"""The window and conversations' saved model state: a long chat's state is saved under its
conversation, deleting the chat deletes it, and menu › Saved conversation state… shows the size
and clears it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from engine.generation.state_cache import StateCache
from engine.paths import state_dir
from tests.app.conftest import QUICK_MS, REPLY_TIMEOUT_MS, WindowFactory, type_and_send

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.slow

REPORT = (
    "The harbour board met on Tuesday to review the season. Cargo volumes rose by a tenth, the "
    "new crane on the east quay was commissioned late because of a wiring fault, and the dredging "
    "of the inner basin is due to finish before the autumn storms. "
)


def tagged(conversation: str) -> int:
    """Snapshots on disk under ``conversation``, read as a restarted engine would."""
    cache = StateCache(state_dir())
    return sum(1 for e in cache._index().values() if e.conversation == conversation)


def test_a_long_chats_state_is_saved_and_deleted_with_the_chat(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window()
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, f"Summarise this report. {REPORT * 8}")
    conversation = str(done.args[0].conversation_id)
    client = window.engine.engine.client  # type: ignore[union-attr]
    # Asked of the engine, which finishes its writes first; then read from the folder as a
    # restarted engine would. (Other tests' windows also number their first chat 1, on the
    # same engine: at least this one is there.)
    assert client.saved_state(conversation).snapshots >= 1
    assert tagged(conversation) >= 1
    window.controller.delete_conversation(int(conversation))
    qtbot.waitUntil(lambda: client.saved_state(conversation).snapshots == 0, timeout=QUICK_MS)
    assert tagged(conversation) == 0


def test_the_saved_state_dialog_shows_the_size_sets_the_limit_and_clears(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path
) -> None:
    window = make_window()
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        type_and_send(qtbot, window, f"Summarise this report. {REPORT * 8}")
    client = window.engine.engine.client  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: client.saved_state().bytes > 0, timeout=REPLY_TIMEOUT_MS)
    dialog = window.open_saved_state()
    qtbot.waitUntil(lambda: "B" in dialog.usage.text(), timeout=REPLY_TIMEOUT_MS)
    assert dialog.limit.value() == pytest.approx(4.0)
    shots = Path(os.environ.get("COVE_SCREENSHOTS") or tmp_path)
    assert dialog.grab().save(str(shots / "saved-state-light.png"))
    try:
        dialog.limit.setValue(2.0)
        with qtbot.waitSignal(dialog.limit_changed, timeout=REPLY_TIMEOUT_MS) as changed:
            dialog.limit.editingFinished.emit()
        assert changed.args == [2 * 2**30]
        qtbot.waitUntil(
            lambda: client.saved_state().limit_bytes == 2 * 2**30, timeout=REPLY_TIMEOUT_MS
        )
        dialog.clear.click()
        qtbot.waitUntil(lambda: dialog.usage.text() == "Nothing saved", timeout=REPLY_TIMEOUT_MS)
        assert client.saved_state().bytes == 0
    finally:
        client.set_state_limit(4 * 2**30)
        dialog.close()

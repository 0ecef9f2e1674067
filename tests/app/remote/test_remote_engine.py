"""The window on another computer's engine: a second Cove started as a person starts one
(``cove serve --lan`` or ``cove serve --api-key``), on loopback, with a data folder of its own (its
own certificate and key), and the window connected to it through Settings › Engine."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.app.conftest import (
    LOAD_TIMEOUT_MS,
    QUICK_MS,
    REPLY_TIMEOUT_MS,
    WindowFactory,
    stored_messages,
    type_and_send,
)
from tests.support.remote_process import CoveProcess, free_port

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.remote.engine_dialog import EngineDialog
    from app.shell.main_window import MainWindow

pytestmark = pytest.mark.slow

ENCODER = "all-minilm-l6-v2-onnx"


class Served(CoveProcess):
    """``cove serve`` of the other computer: loopback, the starter, on ``port``."""

    def __init__(self, data_dir: Path, port: int, *args: str) -> None:
        super().__init__(data_dir, "serve", "--host", "127.0.0.1", "--port", str(port),
                         "--model", "starter", "--ctx", "2048", *args)  # fmt: skip
        self.port = port


Serve = Callable[..., Served]


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key goes to the private file, never to the keyring of whoever runs the tests."""
    monkeypatch.setenv("COVE_NO_KEYRING", "1")


@pytest.fixture
def serve(tmp_path: Path, starter: Path) -> Iterator[Serve]:
    """Starts ``cove serve ARGS`` on loopback with a data folder of its own (a new one each
    time: a new certificate) and waits until it serves."""
    started: list[Served] = []

    def start(*args: str, port: int | None = None) -> Served:
        served = Served(tmp_path / f"other-computer-{len(started)}", port or free_port(), *args)
        started.append(served)
        served.wait_for("serving on ")
        return served

    yield start
    for served in started:
        served.stop()


def open_engine_settings(window: MainWindow, url: str, key: str) -> EngineDialog:
    """Settings › Engine, Another computer, the address and the key typed in."""
    dialog = window.open_engine_settings()
    dialog.remote_choice.click()  # as a click on its label does
    dialog.url.setText(url)
    dialog.key.setText(key)
    return dialog


def connect(qtbot: QtBot, window: MainWindow, url: str, key: str) -> EngineDialog:
    dialog = open_engine_settings(window, url, key)
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    return dialog


def ask(qtbot: QtBot, window: MainWindow, text: str) -> Any:
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, text)
    return done.args[0]


def test_the_window_chats_through_another_cove_over_https(
    qtbot: QtBot, make_window: WindowFactory, serve: Serve, theme: Any
) -> None:
    from app.remote.choice import KEY_SECRET, URL_SETTING
    from app.shell.main_window import MainWindow
    from engine.errors import EngineAuthError
    from engine.remote.keychain import load_secret, secrets_path
    from engine.store import Store

    other = serve("--lan")
    key, fingerprint = other.value("key:"), other.value("fingerprint:")
    where = f"127.0.0.1:{other.port}"
    url = f"https://{where}/v1"
    window = make_window(with_engine=False)

    # A wrong key: refused, said so, nothing changes.
    dialog = open_engine_settings(window, url, "cove-not-the-key")
    with qtbot.waitSignal(window.engine.remote_failed, timeout=QUICK_MS) as refused:
        QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert refused.args[0].code == EngineAuthError.code
    assert dialog.problem_frame.isVisibleTo(dialog)
    assert f"The engine at {where} refused the key" in dialog.problem.text()
    assert window.engine.remote is None

    dialog.key.setText(key)
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    remote = window.engine.remote
    assert remote is not None and remote.trusted is not None
    # First use: the fingerprint to compare with the one cove serve --lan printed.
    assert remote.trusted.first_use and remote.trusted.fingerprint == fingerprint
    assert not dialog.problem_frame.isVisibleTo(dialog)
    assert dialog.fingerprint.text().replace("\n", ":") == fingerprint
    assert "First connection" in dialog.fingerprint_note.text()
    assert f"First connection to {where}" in window.status.notice.text()
    # The status bar: the model, the other computer, the connection's protection.
    model = window.engine.model
    assert model and model in window.engine.remote_models
    shown = window.status.model_button.text()
    assert shown == f"{model} · on {where} · encrypted, certificate pinned"
    assert f"Replies are written by the engine on {where}" in window.view.placeholder.text()
    # Nothing is loaded or planned here; what cannot be done says why.
    note = f"Models run on {where}; loading and memory plans are that computer's."
    window.show_page("models")
    tabs = window.models_view.tabs
    assert tabs.currentWidget() is window.engine_mode.models_tab
    assert tabs.tabText(tabs.currentIndex()) == f"On {where}"
    assert window.engine_mode.models_tab.list.item(0).text().startswith(model)
    qtbot.waitUntil(lambda: bool(window.models_view.verdicts), timeout=QUICK_MS)
    assert {v.text for v in window.models_view.verdicts.values()} == {
        "Not checked: another computer's engine is in use"
    }
    window.models_view.table.selectRow(0)
    assert not window.models_view.load_button.isEnabled()
    assert window.models_view.load_button.toolTip() == note
    assert not window.settings_panel.reload_button.isEnabled()
    assert window.settings_panel.reload_button.toolTip() == note
    dialog.close()

    # A chat, streamed from the other computer.
    window.show_page("chat")
    appended: list[str] = []
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, "Name three colours.")
        worker = window.controller.replies[-1].worker
        assert worker is not None
        worker.signals.chunk_received.connect(lambda _id, text: appended.append(text))
    outcome = done.args[0]
    assert outcome.error is None and outcome.final.finish_reason in ("stop", "length")
    reply = window.view.messages[-1]
    assert reply.text and reply.status == "complete" and "".join(appended) == reply.text
    stored = stored_messages(outcome.conversation_id)[-1]
    assert stored.content == reply.text and stored.meta["model"] == model
    other.wait_for("POST /v1/chat/completions 200")

    # Saved: the address and the choice in the settings, the key in a file only its owner reads.
    qtbot.waitUntil(lambda: saved_mode() == "remote", timeout=QUICK_MS)
    with Store() as store:
        assert store.get_setting(URL_SETTING) == url
    assert load_secret(KEY_SECRET) == key
    assert secrets_path().stat().st_mode & 0o777 == 0o600
    window.close()

    # The next start connects to it again, and starts no engine here.
    again = MainWindow(theme)
    qtbot.addWidget(again)
    again.show()
    with qtbot.waitSignals(
        [again.controller.store_opened, again.engine.loaded], timeout=LOAD_TIMEOUT_MS
    ):
        again.start()
    remote = again.engine.remote
    assert remote is not None and again.engine.engine is remote
    assert remote.trusted is not None and not remote.trusted.first_use
    assert again.engine.model == model
    again.close()


def test_a_changed_certificate_is_refused_until_trusted(
    qtbot: QtBot, make_window: WindowFactory, serve: Serve
) -> None:
    from app.remote.share_panel import grouped
    from engine.errors import CertificateChanged
    from engine.remote.pins import pinned

    first = serve("--lan")
    where = f"127.0.0.1:{first.port}"
    url = f"https://{where}/v1"
    window = make_window(with_engine=False)
    dialog = connect(qtbot, window, url, first.value("key:"))
    old = first.value("fingerprint:")
    assert pinned()[where] == old
    first.stop()

    # Another certificate at the same address (a fresh data folder makes a new one): refused.
    second = serve("--lan", port=first.port)
    new = second.value("fingerprint:")
    assert new != old
    dialog.key.setText(second.value("key:"))
    with qtbot.waitSignal(window.engine.remote_failed, timeout=QUICK_MS) as refused:
        QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert refused.args[0].code == CertificateChanged.code
    assert dialog.problem_frame.isVisibleTo(dialog)
    warning = dialog.problem.text()
    assert f"The certificate of {where} has changed" in warning and "impersonating" in warning
    assert pinned()[where] == old
    assert "GET /v1/models" not in second.log, "a request reached the unpinned certificate"

    # The new fingerprint is shown; trusting it takes a confirmation that shows it too.
    qtbot.waitUntil(dialog.trust_button.isEnabled, timeout=QUICK_MS)
    assert dialog.new_fingerprint == new
    assert grouped(new).replace("\n", "<br>") in dialog.problem.text()
    asked: list[str] = []

    def decline(_title: str, question: str) -> bool:
        asked.append(question)
        return False

    dialog.confirm = decline
    QTest.mouseClick(dialog.trust_button, Qt.MouseButton.LeftButton)
    assert len(asked) == 1 and grouped(new) in asked[0]
    assert pinned()[where] == old, "trusted without the confirmation"

    dialog.confirm = lambda _title, _question: True
    with qtbot.waitSignal(window.engine.remote_connected, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(dialog.trust_button, Qt.MouseButton.LeftButton)
    remote = window.engine.remote
    assert remote is not None and remote.trusted is not None
    assert remote.trusted.fingerprint == new and pinned()[where] == new
    assert dialog.fingerprint.text().replace("\n", ":") == new
    assert not dialog.problem_frame.isVisibleTo(dialog)


def test_a_remote_that_drops_mid_reply_keeps_the_partial_reply(
    qtbot: QtBot, make_window: WindowFactory, serve: Serve
) -> None:
    from engine.errors import EngineUnreachable
    from engine.store import ChatSettings
    from tests.app.conftest import wait_for_text

    other = serve("--api-key", "sekrit")
    where = f"127.0.0.1:{other.port}"
    window = make_window(with_engine=False)
    connect(qtbot, window, f"http://{where}/v1", "sekrit")
    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=1000)
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, "Write a long story about a lighthouse keeper.")
        wait_for_text(qtbot, window, 3)
        other.kill()
    outcome = done.args[0]
    assert outcome.code == EngineUnreachable.code and not outcome.crashed
    assert outcome.error.startswith(f"The connection to the engine at {where} broke mid-reply")
    assert outcome.error.endswith("The reply so far is kept.")
    reply = window.view.messages[-1]
    assert reply.status == "interrupted" and reply.text
    assert reply.notice.text().startswith(f"The connection to the engine at {where} broke")
    stored = stored_messages(outcome.conversation_id)[-1]
    assert stored.status == "interrupted" and stored.content == reply.text


@pytest.fixture
def harbour(data_dir: Path, tmp_path: Path, shared_models: Path) -> Path:
    """A folder indexed into the window's document index with the real encoder."""
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.index_db import IndexDB
    from engine.documents.indexer import Indexer
    from tests.engine.documents.harbour import harbour_folder

    docs = harbour_folder(tmp_path / "home")
    db = IndexDB()
    collection = db.collection("Harbour", create=True)
    assert collection is not None
    with EmbeddingModel.load(shared_models / ENCODER) as encoder:
        outcomes = Indexer(db, collection, encoder).add([docs])
    db.close()
    assert {o.outcome for o in outcomes} == {"indexed"}
    return docs


def test_over_plain_http_documents_are_searched_here_and_only_the_prompt_goes_there(
    qtbot: QtBot,
    make_window: WindowFactory,
    serve: Serve,
    harbour: Path,
    shared_models: Path,
) -> None:
    other = serve("--api-key", "sekrit", "--log-prompts")
    where = f"127.0.0.1:{other.port}"
    window = make_window(with_engine=False)
    window.encoder_folder = lambda: shared_models / ENCODER
    dialog = connect(qtbot, window, f"http://{where}/v1", "sekrit")
    model = window.engine.model
    assert window.status.model_button.text() == f"{model} · on {where} · not encrypted"
    assert not dialog.fingerprint.isVisibleTo(dialog)
    dialog.close()

    window.composer.choose_collection("Harbour")
    outcome = ask(qtbot, window, "When does the boat to Gull Island depart?")
    assert outcome.error is None, outcome.error
    sources = outcome.message.meta["documents"]["sources"]
    assert sources[0]["path"] == str(harbour / "harbour_guide.pdf") and sources[0]["page"] == 2
    # The question was embedded by an engine of this computer's ...
    embedder = window.engine.embedder.host
    assert embedder is not None and embedder.alive()
    # ... and the other computer got the grounded prompt alone: no embedding, no model to load.
    prompts = [line for line in other.log.splitlines() if "chat prompt:" in line]
    assert len(prompts) == 1 and "Sources:" in prompts[0]
    assert "harbour_guide.pdf, page 2" in prompts[0]
    assert "/v1/embeddings" not in other.log and "/cove/v1/load" not in other.log

    # Back to this computer: its engine starts, the other computer and the embedder go.
    dialog = window.open_engine_settings()
    dialog.local_choice.click()
    assert dialog.apply_button.text() == "Use this computer"
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert window.engine.remote is None and window.engine.engine is not None
    qtbot.waitUntil(lambda: not embedder.alive(), timeout=QUICK_MS)
    assert window.models_view.tabs.indexOf(window.engine_mode.models_tab) < 0
    assert f"on {where}" not in window.status.model_button.text()
    assert window.settings_panel.reload_button.isEnabled()
    qtbot.waitUntil(lambda: saved_mode() == "local", timeout=QUICK_MS)


def saved_mode() -> object:
    from app.remote.choice import MODE_SETTING
    from engine.store import Store

    with Store() as store:
        return store.get_setting(MODE_SETTING)


def test_other_computers_may_use_this_computer_s_engine(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    """The switch runs cove serve --lan with the model in use; the key is shown once, the
    fingerprint each time, and a client pinning it on first use sees the same one."""
    from engine.remote.remote_engine import RemoteEngine

    window = make_window()
    share = window.engine_mode.share
    share.host = "127.0.0.1"  # --lan listens on every address; the test on loopback
    port = free_port()
    panel = window.open_engine_settings().share_panel
    panel.port.setValue(port)
    assert panel.share.isEnabled() and not panel.frame.isVisibleTo(panel)
    with qtbot.waitSignal(share.serving, timeout=LOAD_TIMEOUT_MS):
        panel.share.click()
    url = f"https://127.0.0.1:{port}/v1"
    assert panel.state.text() == f"<b>Serving at {url}</b>"
    key, fingerprint = share.key, share.fingerprint
    assert key is not None and panel.key.text() == key and "Shown only now" in panel.key_note.text()
    assert fingerprint is not None and panel.fingerprint.text().replace("\n", ":") == fingerprint
    other = RemoteEngine.connect(url, key)
    assert other.trusted is not None and other.trusted.fingerprint == fingerprint
    status = window.engine.status
    assert status is not None and other.chat_models() == [status.model]
    other.stop()

    # Again: the key was made before and only its digest kept; a new one can be made.
    with qtbot.waitSignal(share.stopped, timeout=QUICK_MS):
        panel.share.click()
    assert not share.running and not panel.frame.isVisibleTo(panel)
    with qtbot.waitSignal(share.serving, timeout=LOAD_TIMEOUT_MS):
        panel.share.click()
    assert share.key is None and panel.key.text() == "made earlier"
    with qtbot.waitSignal(share.key_shown, timeout=LOAD_TIMEOUT_MS):
        panel.new_key_button.click()
    qtbot.waitUntil(lambda: bool(share.address), timeout=LOAD_TIMEOUT_MS)
    assert share.key is not None and share.key != key and panel.key.text() == share.key
    assert share.fingerprint == fingerprint
    window.close()
    assert not share.running


def test_engines_announced_on_the_network_are_offered(
    qtbot: QtBot, make_window: WindowFactory, serve: Serve
) -> None:
    """Find on this network lists the Coves that announce themselves (their name and
    fingerprint); choosing one fills in its address, and nothing is trusted until it connects."""
    from engine.remote.discovery import _addresses

    if _addresses() == ["127.0.0.1"]:
        pytest.skip("no network interface to look on")
    other = serve("--lan", "--advertise")
    fingerprint = other.value("fingerprint:")
    other.wait_for("announced on the local network")
    window = make_window(with_engine=False)
    dialog = window.open_engine_settings()
    dialog.find_engines()
    qtbot.waitUntil(lambda: dialog.found_menu is not None, timeout=QUICK_MS)
    assert dialog.found_menu is not None
    offered = [a for a in dialog.found_menu.actions() if f":{other.port} " in a.text() + " "]
    assert len(offered) == 1 and fingerprint[:11] in offered[0].text()
    offered[0].trigger()
    assert dialog.remote_choice.isChecked()
    assert dialog.url.text().startswith("https://") and f":{other.port}/v1" in dialog.url.text()
    assert window.engine.remote is None


def test_the_shared_engine_lets_in_the_web_pages_allowed_in_settings(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    """Settings › Engine's "Web pages allowed" reaches the shared engine (--allow-origin), is
    kept, and a page of any other origin is still refused."""
    import httpx

    from app.remote.lan_share import SHARED_ORIGINS_SETTING
    from engine.store import Store

    window = make_window()
    share = window.engine_mode.share
    share.host = "127.0.0.1"
    port = free_port()
    panel = window.open_engine_settings().share_panel
    panel.port.setValue(port)
    assert panel.origins.accessibleName() == "Web pages allowed"
    with qtbot.waitSignal(share.serving, timeout=LOAD_TIMEOUT_MS):
        panel.share.click()
    with qtbot.waitSignal(share.origins_changed, timeout=QUICK_MS):
        panel.origins.setText("chrome-extension://*,  https://notes.example.org ")
        panel.origins.editingFinished.emit()
    assert share.origins == ["chrome-extension://*", "https://notes.example.org"]
    qtbot.waitUntil(lambda: share.running and bool(share.address), timeout=LOAD_TIMEOUT_MS)

    def preflight(origin: str) -> httpx.Response:
        return httpx.options(
            f"https://127.0.0.1:{port}/v1/chat/completions",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
            verify=False,
            timeout=30,
        )

    allowed = preflight("https://notes.example.org")
    assert allowed.headers.get("access-control-allow-origin") == "https://notes.example.org"
    assert preflight("chrome-extension://abcdef").status_code < 400
    refused = preflight("https://elsewhere.example.com")
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers

    def kept() -> object:
        with Store() as store:
            return store.get_setting(SHARED_ORIGINS_SETTING)

    qtbot.waitUntil(lambda: kept() == share.origins, timeout=QUICK_MS)
    window.close()
    assert not share.running
    again = make_window()
    assert again.engine_mode.share.origins == ["chrome-extension://*", "https://notes.example.org"]
    shown = again.open_engine_settings().share_panel.origins.text()
    assert shown == "chrome-extension://*, https://notes.example.org"

"""Every view, light and dark, at 1280x720, saved as PNGs: to look at them (set COVE_SCREENSHOTS
to a folder to keep them; docs/screenshots holds the ones in the README)."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtGui import QImage

from tests.app.conftest import (
    LOAD_TIMEOUT_MS,
    REPLY_TIMEOUT_MS,
    WindowFactory,
    type_and_send,
    with_laptop_speed,
)
from tests.conftest import SHARED_MODELS
from tests.support.screenshots import SIZE, distinct_colours, save

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow
    from engine.hardware.report import HardwareReport

pytestmark = pytest.mark.slow

PROMPT = "Write a Python function that checks whether a number is prime, with a short explanation."


def laptop() -> HardwareReport:
    """A 16 GB laptop without a usable GPU, 10 GB of it free, its memory measured at 20 GB/s:
    the machine the Models screenshots' speeds are predicted for (not the one taking them)."""
    import dataclasses

    from engine.hardware.report import MemoryInfo
    from tests.support.machines import GiB, cpu_only_8gb

    report = dataclasses.replace(cpu_only_8gb(), memory=MemoryInfo(16 * GiB, 10 * GiB))
    return with_laptop_speed(report)


def record_starter_speed(
    report: HardwareReport, starter: Path, tokens_per_s: float, prompt_tps: float = 240.0
) -> None:
    """The starter's latest reply on ``report``'s machine, as the engine records it."""
    from engine.formats.gguf import read_gguf
    from engine.speed.calibrate import Observation
    from engine.speed.facts import facts_for
    from engine.speed.store import SpeedStore

    facts = facts_for(read_gguf(starter))
    assert facts is not None
    seen = Observation("starter", "llama.cpp", "cpu", facts, prompt_tps, 180.0, 96.0, tokens_per_s)
    SpeedStore().record_measured(report, starter, seen)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("COVE_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_every_view_in_both_themes(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    engine: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.library.names import starter_path
    from engine.store import ChatSettings

    # The shop window shows a user's folders, not the test run's: a home of its own, with the
    # models where Cove keeps them on Linux.
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COVE_MODELS_DIR", str(home / ".local" / "share" / "Cove" / "models"))

    onnx = SHARED_MODELS / "smollm2-135m-instruct-onnx-int4-cpu"
    if onnx.is_dir():  # an ONNX model folder beside the starter in the models list
        models = Path(os.environ["COVE_MODELS_DIR"])
        models.mkdir(parents=True, exist_ok=True)
        (models / "SmolLM2-135M-Instruct-ONNX-int4").symlink_to(onnx, target_is_directory=True)
    window = make_window(welcomed=False)
    window.resize(*SIZE)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.welcome, timeout=30_000)
    # The welcome page asked the engine about the hardware as it opened.
    qtbot.waitUntil(lambda: window.probe.report is not None, timeout=LOAD_TIMEOUT_MS)
    qtbot.waitUntil(lambda: "starter" in window.welcome.starter.text(), timeout=LOAD_TIMEOUT_MS)
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        save(window, shots, f"welcome-{scheme}")

    window.set_theme("light", save=False)
    window.show_page("chat")
    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=160)
    window.controller.draft_system_prompt = "You are a helpful assistant."
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        type_and_send(qtbot, window, PROMPT)
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as replied:
        type_and_send(qtbot, window, "Now give me a table of the first five primes.")
    # The host records each reply's speed in its data folder, which the window reads; the tests'
    # shared host keeps another folder, so the reply is recorded here as the host records it.
    stats = replied.args[0].final.stats
    assert window.probe.report is not None and stats is not None
    record_starter_speed(
        window.probe.report, starter_path(), stats.decode_tokens_per_s, stats.prompt_tokens_per_s
    )
    window.view.scroll_to_bottom()
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        qtbot.wait(50)  # one paint after re-rendering in the new colours
        save(window, shots, f"chat-{scheme}")
        window.settings_button.setChecked(True)
        save(window, shots, f"chat-settings-{scheme}")
        window.settings_button.setChecked(False)

    # Each model's verdict, then its speed here (the probe's report carries the speed profile).
    listed = window.models_view
    with qtbot.waitSignals([listed.verdicts_ready, listed.speeds_ready], timeout=LOAD_TIMEOUT_MS):
        window.show_page("models")
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        save(window, shots, f"models-{scheme}")

    # The starter's ways to run here, measured for real (as its first load in a user's Cove
    # would), for the Hardware view's "Measured" section.
    from engine.hardware import probe_hardware
    from engine.planner.plan import resources_from
    from engine.tuning import choose

    report = probe_hardware()
    choose(starter_path(), resources_from(report), report, measure_now=True)
    window.show_page("hardware")
    qtbot.waitUntil(lambda: "What Cove chose" in window.hardware_view.page.toPlainText())
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        save(window, shots, f"hardware-{scheme}")

    window.show_page("chat")
    with qtbot.waitSignal(window.engine.crashed, timeout=REPLY_TIMEOUT_MS):
        os.kill(engine.pid, signal.SIGKILL)
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        save(window, shots, f"crash-banner-{scheme}")
    with qtbot.waitSignal(window.engine.restarted, timeout=REPLY_TIMEOUT_MS):
        window.banner.restart_button.click()


def test_the_models_tabs(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    starter: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Installed and Downloads with what a user sees midway: an installed download, a partial one,
    one running, one that failed. The files come from the loopback hub; the verdicts from the
    planner the engine host runs, here in-process (no host needed); the speeds are predicted for a
    laptop's CPU."""
    from engine.backends.loader import plan_model
    from engine.hub.api import HubConfig
    from engine.hub.download import DownloadManager, DownloadRequest
    from tests.support.fake_hub import FakeHub, write_random_file

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COVE_MODELS_DIR", str(home / ".local" / "share" / "Cove" / "models"))
    smol = ("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q4_1.gguf")
    qwen = ("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf")
    llama = ("bartowski/Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf")
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    write_random_file(blobs / "qwen", 40 << 20)
    write_random_file(blobs / "llama", 72 << 20)

    with FakeHub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        hub.add(*smol, starter)
        hub.add(*qwen, blobs / "qwen")
        hub.add(*llama, blobs / "llama")

        # An earlier run of Cove, closed while it fetched Qwen: a partial download on disk.
        hub.state.hold_from = 15 << 20
        earlier = DownloadManager(HubConfig.resolve())
        try:
            download = earlier.enqueue(DownloadRequest(*qwen))
            qtbot.waitUntil(lambda: download.progress().done_bytes >= 15 << 20, timeout=60_000)
            download.pause()
            hub.state.release.set()
            assert download.wait(60).status == "paused"
        finally:
            earlier.close()
        hub.state.hold_from = None
        hub.state.release.clear()

        window = make_window(with_engine=False)
        window.resize(*SIZE)
        view = window.models_view

        def plan(model: str, done: Any, failed: Any) -> None:
            try:
                done(plan_model(model)[2])
            except Exception as exc:
                failed(exc)

        monkeypatch.setattr(view, "_plan", plan)
        window.show_page("models")
        view.tabs.setCurrentWidget(view.downloads_view)
        downloads = view.downloads_view
        with qtbot.waitSignal(view.downloads.download_finished, timeout=LOAD_TIMEOUT_MS):
            downloads.field.setText("/".join(smol))
            downloads.add_from_field()
        failing = view.downloads.add(DownloadRequest(llama[0], "Llama-3.2-1B-Instruct-Q3.gguf"))
        qtbot.waitUntil(lambda: not downloads.row(failing).error.isHidden(), timeout=60_000)
        hub.state.hold_from = 31 << 20
        running = view.downloads.add(DownloadRequest(*llama))
        qtbot.waitUntil(
            lambda: running.progress().done_bytes >= 31 << 20 and running.progress().speed_bps > 0,
            timeout=60_000,
        )
        qtbot.waitUntil(lambda: downloads.row(running).bar.value() >= 400, timeout=60_000)
        save(window, shots, "models-downloads-light")

        # The starter has replied on the laptop (its speed as measured there); the download has
        # not run yet (its speed as predicted).
        report = laptop()
        record_starter_speed(report, starter, tokens_per_s=52.0)
        view.set_report(report)
        with qtbot.waitSignal(view.speeds_ready, timeout=LOAD_TIMEOUT_MS):
            view.refresh()
        view.tabs.setCurrentWidget(view.installed_tab)
        view.table.selectRow(1)
        save(window, shots, "models-installed-light")

        # The catalog as the laptop sees it, what replies at 10 tokens/s there first. No hub has
        # the catalog's files here, so the sizes stay the estimates the cards say they are.
        window.discover.asked_hub = True
        window.discover.set_report(report)
        view.tabs.setCurrentWidget(window.discover)
        save(window, shots, "models-discover-light")
        hub.state.release.set()
        window.downloads.close()


def test_the_documents_view(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A collection of the labelled corpus in a home folder: every file's state (a scanned page,
    a damaged PDF) and a question's sources. The encoder runs in this process (no host needed)."""
    from engine.documents.embeddings import EmbeddingModel
    from tests.support.corpus.build import build_corpus

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    docs = home / "Documents" / "Fenwick Loom"
    build_corpus(docs)
    (docs / "scans").mkdir()
    (docs / "scans" / "delivery-note-0412.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\n1 0 obj")
    window = make_window(with_engine=False)
    window.resize(*SIZE)
    view = window.documents_view
    with EmbeddingModel.load(SHARED_MODELS / "all-minilm-l6-v2-onnx") as encoder:
        monkeypatch.setattr(view, "_encoder", lambda: encoder)
        window.show_page("documents")
        view.new_collection("Fenwick Loom")
        with qtbot.waitSignal(view.indexing_finished, timeout=LOAD_TIMEOUT_MS):
            view.add_paths([docs])
        with qtbot.waitSignal(view.answered, timeout=LOAD_TIMEOUT_MS):
            view.question.setText("How long does the X200 battery take to charge?")
            view.question.returnPressed.emit()
        save(window, shots, "documents-light")


def test_an_answer_from_documents(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    engine: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chat answered from a collection of the labelled corpus, its sources under the reply."""
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.host_encoder import HostEncoder
    from engine.documents.index_db import IndexDB
    from engine.documents.indexer import Indexer
    from engine.store import ChatSettings
    from tests.support.corpus.build import build_corpus

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    docs = home / "Documents" / "Fenwick Loom"
    build_corpus(docs)
    folder = SHARED_MODELS / "all-minilm-l6-v2-onnx"
    db = IndexDB()
    collection = db.collection("Fenwick Loom", create=True)
    assert collection is not None
    with EmbeddingModel.load(folder) as encoder:
        Indexer(db, collection, encoder).add([docs])
    db.close()
    window = make_window()
    window.resize(*SIZE)
    window.document_answers._encoder = lambda: HostEncoder(engine.client, folder)
    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=120)
    window.composer.choose_collection("Fenwick Loom")
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        type_and_send(qtbot, window, "How long does the X200 take to charge from empty?")
    window.view.scroll_to_bottom()
    qtbot.wait(50)  # one event-loop turn for the layout; nothing is measured
    save(window, shots, "chat-documents-light")


VISION_MODEL = "gemma-3-4b-it-Q4_K_M"
CHART_QUESTION = "Which quarter sold the most, and how far ahead of the weakest quarter was it?"
# The starter reads no images, so this reply is written here, as a vision model answers the chart.
CHART_ANSWER = """\
**Q3** sold the most: **$317k**, the tallest bar on the chart.

The weakest quarter was **Q1** at **$182k**, so Q3 was ahead by **$135k**, about **74 %** more.

| Quarter | Sales | vs. Q1 |
|---|---|---|
| Q1 | $182k | — |
| Q2 | $241k | +32 % |
| Q3 | $317k | +74 % |
| Q4 | $268k | +47 % |"""


def test_a_chat_with_images(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A question about a chart and its answer, two more charts waiting in the composer; then
    the starter, which cannot see images, saying so when one is attached."""
    import dataclasses

    from engine.images import read_image_file
    from engine.store import NewImage, Store
    from tests.app.pictures import landscape, sales_chart

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    pictures = home / "Pictures"
    pictures.mkdir(parents=True)
    chart = sales_chart(pictures / "sales-2024.png")
    regions = sales_chart(
        pictures / "regions-q3.png",
        "Q3 sales by region ($ thousands)",
        (96, 71, 88, 62),
        ("North", "South", "East", "West"),
    )
    forecast = sales_chart(
        pictures / "forecast-2025.png", "Forecast, 2025 ($ thousands)", (205, 262, 330, 301)
    )
    window = make_window()
    window.resize(*SIZE)
    with Store() as store:
        conv = store.create_conversation("Quarterly sales", model=VISION_MODEL)
        image = NewImage.of(read_image_file(chart), chart.name)
        store.add_message(conv.id, "user", CHART_QUESTION, images=[image])
        stats = {"prompt_tokens": 301, "completion_tokens": 142, "ttft_s": 14.2}
        stats["decode_tokens_per_s"] = 5.4
        meta = {"model": VISION_MODEL, "finish_reason": "stop", "stats": stats}
        store.add_message(conv.id, "assistant", CHART_ANSWER, meta=meta)
    real = window.engine.status
    assert real is not None
    # The window as it is with a vision model loaded.
    window.engine.status = dataclasses.replace(real, model=VISION_MODEL, vision=True)
    window.status.set_status(window.engine.status)
    window.view.assistant_label = VISION_MODEL
    window.controller.refresh_list()
    with qtbot.waitSignal(window.view.conversation_shown, timeout=LOAD_TIMEOUT_MS):
        window.controller.open_conversation(conv.id)
    thumbs = window.view.messages[0].images
    assert thumbs is not None
    qtbot.waitUntil(lambda: all(t.loaded for t in thumbs.thumbs))
    window.composer.add_files([regions, forecast])
    qtbot.waitUntil(lambda: len(window.composer.attachments) == 2)
    window.composer.set_text("Here are Q3 by region and next year's forecast. What stands out?")
    assert not window.chat_page.vision_notice_frame.isVisible()
    window.view.scroll_to_bottom()
    qtbot.wait(50)  # one event-loop turn for the layout; nothing is measured
    save(window, shots, "chat-images-light")

    # The starter, as it is: a text model. Attaching a photo says so at once.
    window.engine.status = real
    window.status.set_status(real)
    window.new_chat()
    window.composer.take_images()
    lake = landscape(pictures / "IMG_2041.jpg")
    window.composer.add_files([lake])
    qtbot.waitUntil(lambda: len(window.composer.attachments) == 1)
    window.composer.set_text("Where could this photo have been taken?")
    qtbot.waitUntil(window.chat_page.vision_notice_frame.isVisible)
    qtbot.wait(50)
    save(window, shots, "chat-image-no-vision-light")


DESK_MODEL = "Qwen2.5-7B-Instruct-Q4_K_M"
DESK_QUESTION = "Draft a short note to the team: the office is closed on Friday for the move."
DESK_ANSWER = """\
**Subject: Office closed this Friday for the move**

Hi all,

The office will be **closed on Friday** while we move to the new building. Please:

- take your laptop and chargers home on Thursday evening;
- label anything on your desk that should come with us;
- work from home on Friday; we'll be reachable on the usual channels.

We open at the new address on **Monday at 9:00**. Thanks for your patience!"""


def test_settings_engine_with_another_computer(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settings › Engine over the chat, with the engine of a desktop on the network in use: its
    address, the connection encrypted and its certificate's fingerprint, pinned at the first
    connection. The connection is staged (no desk.local here); the window is the real one."""
    from PySide6.QtGui import QColor, QPainter

    from app.common.remote_target import RemoteTarget
    from app.remote.choice import EngineChoice
    from engine.client.http_client import EngineClient
    from engine.client.protocol import EngineStatus
    from engine.remote.certificate import identity
    from engine.remote.connect import Connection
    from engine.remote.pins import Trusted
    from engine.remote.remote_engine import RemoteEngine
    from engine.store import Store
    from engine.store.types import ReplyMeta

    url, key = "https://desk.local:8080/v1", "cove-Jq4mW8tR2xY7vN3pL9sK1dF6hB0cZ5eA"
    # A real certificate's fingerprint, made for the picture.
    fingerprint = identity(tmp_path / "desk" / "tls").fingerprint
    trusted = Trusted("desk.local:8080", fingerprint, True, b"")
    remote = RemoteEngine(Connection(EngineClient(url, key), url, trusted), key)
    window = make_window(with_engine=False)
    window.resize(*SIZE)
    with Store() as store:
        conv = store.create_conversation("Office move note", model=DESK_MODEL)
        store.add_message(conv.id, "user", DESK_QUESTION)
        stats = {"prompt_tokens": 48, "completion_tokens": 112, "ttft_s": 0.21}
        stats["decode_tokens_per_s"] = 41.6
        meta = {"model": DESK_MODEL, "finish_reason": "stop", "stats": stats}
        store.add_message(conv.id, "assistant", DESK_ANSWER, meta=meta)
    window.controller.refresh_list()
    with qtbot.waitSignal(window.view.conversation_shown, timeout=LOAD_TIMEOUT_MS):
        window.controller.open_conversation(conv.id)
    window.engine_mode.choice = EngineChoice(True, url, key, DESK_MODEL)
    status = EngineStatus(model=DESK_MODEL, backend="llama.cpp", device="CUDA0", n_ctx=32768)
    models = [DESK_MODEL, "Qwen2.5-Coder-7B-Instruct-Q4_K_M"]
    window.engine._remote_up(RemoteTarget(url, key, DESK_MODEL), remote, models, status)
    window.view.assistant_label = DESK_MODEL
    window.status.set_stats(ReplyMeta.of(meta).stats)  # as after the reply
    dialog = window.open_engine_settings()
    dialog.resize(660, dialog.heightForWidth(660))
    qtbot.wait(50)  # one event-loop turn for the layout; nothing is measured
    assert "encrypted, certificate pinned" in window.status.model_button.text()
    assert dialog.fingerprint.text().replace("\n", ":") == fingerprint

    picture = window.grab()
    sheet = dialog.grab()
    painter = QPainter(picture)
    painter.fillRect(picture.rect(), QColor(0, 0, 0, 40))  # the window behind a modal dialog
    left = (picture.width() - sheet.width()) // 2
    top = (picture.height() - sheet.height()) // 2
    for spread in range(10, 0, -1):  # a soft shadow
        painter.fillRect(sheet.rect().translated(left, top + 3).adjusted(
            -spread, -spread, spread, spread), QColor(0, 0, 0, 4))  # fmt: skip
    painter.drawPixmap(left, top, sheet)
    painter.setPen(QColor(window.theme.colors.border))
    painter.drawRect(sheet.rect().translated(left, top).adjusted(0, 0, -1, -1))
    painter.end()
    path = shots / "settings-engine-remote.png"
    assert picture.save(str(path))
    assert distinct_colours(QImage(str(path))) > 8
    dialog.close()
    # Models with the desktop's engine: its models, to use by name; this computer's are not
    # loaded while it is in use, and say so.
    window.show_page("models")
    view = window.models_view
    view.tabs.setCurrentWidget(window.engine_mode.models_tab)
    qtbot.wait(50)  # one event-loop turn for the layout; nothing is measured
    assert view.tabs.tabText(view.tabs.currentIndex()).startswith("On desk.local")
    save(window, shots, "models-remote-light")


def with_popup(window: MainWindow, combo: Any) -> Any:
    """The window with a combo box's open list drawn below it: the offscreen grab of a window
    leaves out its popups, which are windows of their own."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QColor, QPainter

    picture = window.grab()
    sheet = combo.view().window().grab()
    at = combo.mapTo(window, QPoint(0, combo.height() + 2))
    at.setX(min(at.x(), picture.width() - sheet.width() - 12))
    painter = QPainter(picture)
    for spread in range(8, 0, -1):  # a soft shadow
        painter.fillRect(sheet.rect().translated(at.x(), at.y() + 2).adjusted(
            -spread, -spread, spread, spread), QColor(0, 0, 0, 4))  # fmt: skip
    painter.drawPixmap(at, sheet)
    painter.setPen(QColor(window.theme.colors.border))
    painter.drawRect(sheet.rect().translated(at).adjusted(0, 0, -1, -1))
    painter.end()
    return picture


def test_versions_the_model_picker_and_presets(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply written three times (‹ 2 / 3 ›), the Model box open with what fits and how fast,
    and the Preset box open with the three that ship."""
    from engine.store import ChatSettings

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COVE_MODELS_DIR", str(home / ".local" / "share" / "Cove" / "models"))
    onnx = SHARED_MODELS / "smollm2-135m-instruct-onnx-int4-cpu"
    if onnx.is_dir():  # a second chat model to choose
        models = Path(os.environ["COVE_MODELS_DIR"])
        models.mkdir(parents=True, exist_ok=True)
        (models / "SmolLM2-135M-Instruct-ONNX-int4").symlink_to(onnx, target_is_directory=True)
    window = make_window()
    window.resize(*SIZE)
    listed = window.models_view
    with qtbot.waitSignal(listed.verdicts_ready, timeout=LOAD_TIMEOUT_MS):
        listed.refresh()
    with qtbot.waitSignal(listed.speeds_ready, timeout=LOAD_TIMEOUT_MS):
        listed.set_report(laptop())
    window.controller.draft_settings = ChatSettings(temperature=0.9, max_tokens=70)
    question = "Suggest a name for a small bakery that sells sourdough, and say why in a sentence."
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        type_and_send(qtbot, window, question)
    for _ in range(2):
        reply = window.view.messages[-1]
        with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
            reply.regenerate_button.click()
    qtbot.waitUntil(lambda: window.view.messages[-1].version_switch.isVisibleTo(window))
    with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
        window.view.messages[-1].version_switch.previous.click()
    qtbot.waitUntil(lambda: window.view.messages[-1].version_switch.shown == (2, 3))
    window.view.scroll_to_bottom()
    qtbot.wait(50)  # one paint; nothing is measured
    save(window, shots, "chat-versions-light")

    picker = window.chat_page.model_picker
    assert picker.count() >= 1
    picker.showPopup()
    qtbot.waitUntil(lambda: picker.view().isVisible())
    assert with_popup(window, picker).save(str(shots / "chat-model-light.png"))
    picker.hidePopup()

    presets = window.chat_page.preset_picker
    presets.showPopup()
    qtbot.waitUntil(lambda: presets.view().isVisible())
    assert with_popup(window, presets).save(str(shots / "chat-presets-light.png"))
    presets.hidePopup()
    for name in ("chat-model-light", "chat-presets-light"):
        assert distinct_colours(QImage(str(shots / f"{name}.png"))) > 8


MATH_ANSWER = r"""The roots of $ax^2 + bx + c = 0$ (with $a \neq 0$) are

$$x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}$$

The part under the root, $\Delta = b^2 - 4ac$, says how many real roots there are:

- $\Delta > 0$: two, $x_1 \neq x_2$
- $\Delta = 0$: one, $x = -\frac{b}{2a}$
- $\Delta < 0$: none; the roots are complex, $x = \frac{-b \pm i\sqrt{-\Delta}}{2a}$

For $x^2 - 5x + 6 = 0$: $\Delta = 25 - 24 = 1$, so $x = \frac{5 \pm 1}{2}$, that is $x = 3$ or
$x = 2$."""


def seed_sidebar() -> dict[str, int]:
    """Chats a person has gathered: two in a folder, one pinned, the rest by day."""
    from engine.store import Store

    chats = {
        "Quadratic formula": ("How do I solve a quadratic equation?", MATH_ANSWER),
        "Lisbon in three days": (
            "Plan three days in Lisbon for someone who likes food and walking.",
            "Day 1: Alfama and the castle; day 2: Belém; day 3: LX Factory and a fado night.",
        ),
        "Packing list": ("What should I pack for Lisbon in May?", "Light layers, good shoes."),
        "Sourdough starter": ("My starter smells of acetone.", "Feed it more often: it is hungry."),
        "Regex for dates": ("A regex for ISO dates?", "`\\d{4}-\\d{2}-\\d{2}`"),
    }
    ids = {}
    with Store() as store:
        for title, (question, answer) in chats.items():
            conversation = store.create_conversation(title)
            store.add_message(conversation.id, "user", question)
            store.add_message(conversation.id, "assistant", answer)
            ids[title] = conversation.id
        trip = store.create_folder("Trip to Lisbon")
        store.move_to_folder(ids["Lisbon in three days"], trip)
        store.move_to_folder(ids["Packing list"], trip)
        store.pin(ids["Sourdough starter"], True)
    return ids


def test_math_files_in_a_chat_settings_and_the_sidebar(
    qtbot: QtBot,
    make_window: WindowFactory,
    shots: Path,
    tmp_path: Path,
    shared_models: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply with its maths drawn; a PDF given to a chat and the answer citing its page; the
    Settings page; the sidebar with a pinned chat and a folder."""
    from tests.engine.documents.harbour import harbour_folder

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    docs = harbour_folder(home / "Documents")
    ids = seed_sidebar()
    window = make_window()
    window.resize(*SIZE)
    window.encoder_folder = lambda: shared_models / "all-minilm-l6-v2-onnx"
    with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
        window.controller.open_conversation(ids["Quadratic formula"])
    qtbot.waitUntil(
        lambda: window.view.messages[-1].body.document().toPlainText().count("\ufffc") > 3
    )
    window.view.scroll_to_bottom()
    qtbot.wait(50)  # one paint; nothing is measured
    for scheme in ("light", "dark"):
        window.set_theme(scheme, save=False)
        qtbot.wait(50)
        save(window, shots, f"chat-math-{scheme}")
    window.set_theme("light", save=False)

    window.new_chat()
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        window.files_setup.give([docs / "harbour_guide.pdf"])
    qtbot.waitUntil(
        lambda: [c.file.state for c in window.composer.files_strip.chips] == ["ready"],
        timeout=REPLY_TIMEOUT_MS,
    )
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        type_and_send(qtbot, window, "When does the ferry to Gull Island leave, and from where?")
    window.view.scroll_to_bottom()
    qtbot.wait(50)
    save(window, shots, "chat-files-light")

    window.open_settings()
    window.settings.view.show_section("appearance")
    save(window, shots, "settings-light")


def test_settings_data_and_a_repaired_history(
    qtbot: QtBot, make_window: WindowFactory, shots: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import time

    from engine.store import Store
    from tests.support.history_files import Clock, overwrite_middle

    # A user's data folder under a home of its own, as Cove keeps it on Linux.
    home = tmp_path / "home"
    data = home / ".local" / "share" / "Cove"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COVE_DATA_DIR", str(data))
    seed_sidebar()
    clock = Clock(time.time() - 20 * 86400)
    topics = [
        "Birthday card for Ana",
        "Fix the flaky CI job",
        "Explain TCP slow start",
        "Tomato blight remedies",
        "Cover letter draft",
        "Summarise the lease",
        "Python dataclass defaults",
        "Weekly meal plan",
        "Bike gear ratios",
        "Rust borrow checker error",
        "Translate the menu",
        "Tax receipts to keep",
        "SQL window functions",
        "Knitting a raglan sleeve",
        "Compare two phone plans",
        "Story for a 6-year-old",
        "Budget for the move",
        "Git rebase or merge",
        "Houseplants for low light",
        "Interview questions",
    ]
    with Store(clock=clock) as store:
        store.set_setting("welcomed", True)
        for topic in topics:  # three weeks of daily use, one backup a day
            conversation = store.create_conversation(topic)
            store.add_message(conversation.id, "user", topic)
            store.add_message(conversation.id, "assistant", "Here is a start. " * 200)
            store.backup("daily")
            clock.advance(86400)
    # Damaged after the last backup: the next start repairs it and says so.
    overwrite_middle(data / "cove.sqlite3")
    window = make_window(with_engine=False)
    window.resize(*SIZE)
    qtbot.waitUntil(window.history_care.banner.isVisible, timeout=30_000)
    window.show_page("chat")
    qtbot.waitUntil(lambda: len(window.view.messages) == 2, timeout=30_000)
    qtbot.wait(50)  # one paint; nothing is measured
    save(window, shots, "history-repaired-light")
    section = window.settings.open("data")
    qtbot.waitUntil(lambda: section.list.count() >= 10, timeout=30_000)  # type: ignore[attr-defined]
    qtbot.wait(50)
    save(window, shots, "settings-data-light")

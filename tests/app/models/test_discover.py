"""The Models view's Discover tab against the loopback hub: the catalog's recommendations on an
injected machine, sizes fetched from the hub in the background, a recommended build and an ONNX
folder build downloaded through the buttons, Hugging Face search with fit badges, and a hub that
cannot be reached. With the machine's speed profile: each card's and build's predicted speed, what
runs well listed first, and the comfortable reply speed choosing the build."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from engine.hub.api import HubConfig
from engine.hub.meta import ListingCache
from engine.library.catalog import Catalog, load_catalog, parse_catalog
from tests.app.conftest import with_laptop_speed, without_speed
from tests.support.catalog_hub import (
    GGUF_REPO,
    ONNX_REPO,
    catalog_hub,  # noqa: F401  (fixture)
    entry,
)
from tests.support.downloads import make_manager
from tests.support.fake_hub import FakeHub
from tests.support.machines import cpu_only_8gb, snapdragon_x_16gb

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager
    from app.models.discover import DiscoverView
    from app.models.download_controller import DownloadController

WAIT_MS = 60_000  # a guard against a hang, not a measurement
FILES = {"Q4_K_M": "tiny-chat-Q4_K_M.gguf", "Q8_0": "tiny-chat-Q8_0.gguf"}


def catalog() -> Catalog:
    raw = {"schema": 1, "models": [entry("tiny-chat", GGUF_REPO, ONNX_REPO, FILES)]}
    return parse_catalog(json.loads(json.dumps(raw)))


@pytest.fixture
def view(
    qtbot: QtBot,
    theme: ThemeManager,
    data_dir: Path,
    catalog_hub: FakeHub,  # noqa: F811
) -> Iterator[DiscoverView]:
    from app.models.download_controller import DownloadController

    config = HubConfig(endpoint=catalog_hub.endpoint, read_timeout_s=5.0, connect_timeout_s=2)
    yield from _shown(qtbot, DownloadController(make_manager(catalog_hub)), config, catalog(),
                      data_dir)  # fmt: skip


def _shown(
    qtbot: QtBot, controller: DownloadController, config: HubConfig, listed: Catalog, data: Path
) -> Iterator[DiscoverView]:
    """The Discover view over ``listed``, shown at a laptop's size; closed after the test."""
    from app.models.discover import DiscoverView

    widget = DiscoverView(
        controller,
        lambda: config,
        catalog=listed,
        cache=ListingCache(data / "cache" / "listings.json"),
    )
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    yield widget
    controller.close()
    widget.pool.wait(10_000)


def test_recommendations_follow_the_machine_and_the_hubs_sizes(
    qtbot: QtBot, view: DiscoverView
) -> None:
    card = view.cards["tiny-chat"]
    assert card.reason.text() == "Checking this computer…"
    view.set_report(without_speed(cpu_only_8gb()))  # sizes alone (speeds: the tests below)
    assert card.reason.text().startswith("Q8_0 on the CPU: fits in ")
    assert "estimated" in card.reason.text()
    with qtbot.waitSignal(view.recommendations_ready, timeout=WAIT_MS):
        view.refresh_from_hub()
    assert "estimated" not in card.reason.text()
    # The build in words first; its code in the tooltip and the menu.
    assert card.download_button.text() == "Download 8-bit, near original quality · 3.0 MiB"
    assert "Q8_0" in card.download_button.toolTip()
    assert card.download_button.isEnabled()
    labels = [a.text() for a in card.builds_button.menu().actions()]
    assert labels[0].startswith("8-bit, near original quality (Q8_0) · 3.0 MiB · fits on the CPU")
    assert any("qnn-npu" in t and "QNN" in t for t in labels)
    # On a Snapdragon the NPU build is the one to download.
    view.set_report(without_speed(snapdragon_x_16gb()))
    assert card.download_button.text().startswith("Download ONNX qnn-npu · ")


def test_download_buttons_install_the_build_and_the_card_says_installed(
    qtbot: QtBot, view: DiscoverView, data_dir: Path
) -> None:
    view.set_report(cpu_only_8gb())
    card = view.cards["tiny-chat"]
    finished: list[object] = []
    view.downloads.download_finished.connect(lambda d, _p: finished.append(d))
    with qtbot.waitSignal(view.downloads_added, timeout=WAIT_MS):
        card.download_button.click()  # asks the hub for the listing first
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=WAIT_MS)
    models = Path(data_dir).parent / "models"
    assert (models / "acme__Tiny-Chat-GGUF" / "tiny-chat-Q8_0.gguf").is_file()
    view.refresh_installed()
    assert card.download_button.text() == "Installed" and not card.download_button.isEnabled()

    onnx = next(a for a in card.builds_button.menu().actions() if "cpu-int4" in a.text())
    with qtbot.waitSignal(view.downloads_added, timeout=WAIT_MS) as added:
        onnx.trigger()
    assert added.args == [4]
    qtbot.waitUntil(lambda: len(finished) == 5, timeout=WAIT_MS)
    folder = models / "acme__Tiny-Chat-onnx" / "cpu_and_mobile__cpu-int4"
    assert (folder / "genai_config.json").is_file() and (folder / "model.onnx.data").is_file()


def test_chat_with_it_on_a_folder_build_opens_the_folder(
    qtbot: QtBot, view: DiscoverView, data_dir: Path
) -> None:
    from app.models.downloads import DownloadsView

    downloads = DownloadsView(view.downloads)
    qtbot.addWidget(downloads)
    view.set_report(cpu_only_8gb())
    with qtbot.waitSignal(view.recommendations_ready, timeout=WAIT_MS):
        view.refresh_from_hub()
    card = view.cards["tiny-chat"]
    onnx = next(a for a in card.builds_button.menu().actions() if "cpu-int4" in a.text())
    onnx.trigger()
    qtbot.waitUntil(
        lambda: (
            all(d.progress().status == "done" for d in view.downloads.downloads)
            and len(view.downloads.downloads) == 4
        ),
        timeout=WAIT_MS,
    )
    qtbot.waitUntil(lambda: any(r.chat_button.isVisibleTo(r) for r in downloads.rows.values()))
    rows = [r for r in downloads.rows.values() if r.chat_button.isVisibleTo(r)]
    assert len(rows) == 1  # only the folder's last file offers a chat
    with qtbot.waitSignal(downloads.chat_requested, timeout=WAIT_MS) as chat:
        rows[0].chat_button.click()
    assert Path(chat.args[0]).name == "cpu_and_mobile__cpu-int4"


def test_search_lists_hub_repositories_with_fit_badges(qtbot: QtBot, view: DiscoverView) -> None:
    view.set_report(cpu_only_8gb())
    view.search.setText("tiny")
    assert view.cards["tiny-chat"].isVisibleTo(view)
    view.search.setText("nothing like it")
    assert not view.cards["tiny-chat"].isVisibleTo(view)
    view.search.setText("tiny chat")
    with qtbot.waitSignal(view.search_finished, timeout=WAIT_MS):
        view.search_button.click()
    repos = [c.hit.repo for c in view.hub_cards]
    assert repos == [GGUF_REPO, ONNX_REPO]  # most downloaded first
    gguf = view.hub_cards[0]
    from PySide6.QtWidgets import QLabel, QPushButton

    texts = [w.text() for w in gguf.findChildren(QLabel)]
    assert "fits on the CPU" in texts and "3.0 MiB" in texts
    onnx = [w.text() for w in view.hub_cards[1].findChildren(QLabel)]
    assert "ONNX cpu_and_mobile/cpu-int4" in onnx and "ONNX npu/qnn" in onnx
    buttons = view.hub_cards[1].findChildren(QPushButton)
    with qtbot.waitSignal(view.downloads_added, timeout=WAIT_MS) as added:
        buttons[-1].click()  # the npu/qnn folder: its two files
    assert added.args == [2]


def test_a_hub_that_cannot_be_reached_is_said_and_the_catalog_stays(
    qtbot: QtBot, view: DiscoverView
) -> None:
    with FakeHub() as gone:
        endpoint = gone.endpoint
    view._hub_config = lambda: HubConfig(endpoint=endpoint, connect_timeout_s=2)
    view.set_report(cpu_only_8gb())
    with qtbot.waitSignal(view.recommendations_ready, timeout=WAIT_MS):
        view.refresh_from_hub()
    assert view.status.text().startswith("Offline: Cannot reach")
    assert view.cards["tiny-chat"].download_button.isEnabled()
    view.search.setText("tiny")
    with qtbot.waitSignal(view.search_finished, timeout=WAIT_MS):
        view.search_hub()
    assert "Cannot reach" in view.status.text() and view.search_button.isEnabled()


@pytest.fixture
def vision_view(
    qtbot: QtBot, theme: ThemeManager, data_dir: Path, tmp_path: Path
) -> Iterator[DiscoverView]:
    from app.models.discover import DiscoverView
    from app.models.download_controller import DownloadController
    from tests.engine.vision_files import (
        MODEL,
        PROJECTOR,
        REPO,
        catalog_entry,
        write_projector,
        write_text_model,
    )

    with FakeHub() as fake:
        fake.add(REPO, MODEL, write_text_model(tmp_path / "src" / MODEL))
        fake.add(REPO, PROJECTOR, write_projector(tmp_path / "src" / PROJECTOR))
        config = HubConfig(endpoint=fake.endpoint, read_timeout_s=5.0, connect_timeout_s=2)
        controller = DownloadController(make_manager(fake))
        widget = DiscoverView(
            controller,
            lambda: config,
            catalog=parse_catalog({"schema": 1, "models": [catalog_entry()]}),
            cache=ListingCache(data_dir / "cache" / "listings.json"),
        )
        qtbot.addWidget(widget)
        widget.show()
        yield widget
        controller.close()
        widget.pool.wait(10_000)


def test_a_vision_card_is_marked_and_downloads_the_model_with_its_projector(
    qtbot: QtBot, vision_view: DiscoverView, data_dir: Path
) -> None:
    from tests.engine.vision_files import MODEL, PROJECTOR

    view = vision_view
    card = view.cards["tiny-vision"]
    assert card.vision_badge is not None and card.vision_badge.text() == "Vision"
    assert "reads images" in card.facts.text()
    view.set_report(cpu_only_8gb())
    finished: list[object] = []
    view.downloads.download_finished.connect(lambda d, _p: finished.append(d))
    with qtbot.waitSignal(view.downloads_added, timeout=WAIT_MS) as added:
        card.download_button.click()
    assert added.args == [1]  # one download: the model, its projector with it
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=WAIT_MS)
    folder = Path(data_dir).parent / "models" / "acme__Tiny-Vision-GGUF"
    assert sorted(p.name for p in folder.iterdir()) == sorted([MODEL, PROJECTOR])
    view.refresh_installed()
    assert card.download_button.text() == "Installed"


# -- speeds -----------------------------------------------------------------------------------

SPEED = re.compile(r"about \d+(\.\d)? tokens/s here")
MENU_SPEED = re.compile(r" · about \d+(\.\d)? tok/s$")


@pytest.fixture
def catalog_view(qtbot: QtBot, theme: ThemeManager, data_dir: Path) -> Iterator[DiscoverView]:
    """The real catalog, its sizes the catalog's estimates (no hub is asked)."""
    from app.models.download_controller import DownloadController

    controller = DownloadController()  # its manager is made on a first download: none here
    config = HubConfig(endpoint="http://127.0.0.1:9", connect_timeout_s=1)
    yield from _shown(qtbot, controller, config, load_catalog(), data_dir)


def test_cards_and_build_menus_show_predicted_speeds_and_what_runs_well_comes_first(
    catalog_view: DiscoverView,
) -> None:
    view = catalog_view
    card = view.cards["qwen2.5-1.5b-instruct"]
    view.set_report(without_speed(cpu_only_8gb()))  # no speeds, no setting
    assert not card.speed.isVisibleTo(view) and not view.comfortable.isVisibleTo(view)
    assert not any("tok/s" in a.text() for a in card.builds_button.menu().actions())
    default_order = view.shown_models()

    view.set_report(with_laptop_speed(cpu_only_8gb()))
    assert view.comfortable.isVisibleTo(view)
    assert card.speed.isVisibleTo(view) and SPEED.fullmatch(card.speed.text()), card.speed.text()
    labels = [a.text() for a in card.builds_button.menu().actions()]
    gguf = [t for t in labels if "ONNX" not in t]
    assert gguf and all(MENU_SPEED.search(t) for t in gguf), gguf
    assert gguf[0].startswith("8-bit, near original quality (Q8_0) · ")
    assert " · fits on the CPU · about " in gguf[0]
    # A model that fits nowhere here shows no speed.
    too_big = view.cards["qwen2.5-14b-instruct"]
    assert view.recommendations["qwen2.5-14b-instruct"].choice is None
    assert not too_big.speed.isVisibleTo(view)

    # The default listing: what runs well here first, each group in the catalog's order.
    runs_well = [m for m in default_order if view.recommendations[m].runs_well]
    others = [m for m in default_order if not view.recommendations[m].runs_well]
    assert runs_well and others
    assert view.shown_models() == runs_well + others
    assert view.shown_models() != default_order
    # A filter keeps the catalog's order; clearing it brings the default listing back.
    view.search.setText("qwen")
    found = view.shown_models()
    assert len(found) > 2 and found == sorted(found, key=default_order.index)
    view.search.clear()
    assert view.shown_models() == runs_well + others


def test_the_comfortable_speed_chooses_the_build_and_is_saved(
    catalog_view: DiscoverView, data_dir: Path
) -> None:
    from engine.speed.store import SpeedStore

    view = catalog_view
    assert view.comfortable.value() == 10  # the default
    view.set_report(with_laptop_speed(cpu_only_8gb()))
    card = view.cards["qwen2.5-1.5b-instruct"]
    changed: list[float] = []
    view.comfortable_changed.connect(changed.append)

    # Any build is fast enough: the best quality that fits.
    view.comfortable.setValue(view.comfortable.minimum())
    rec = view.recommendations["qwen2.5-1.5b-instruct"]
    assert rec.choice is not None and rec.choice.variant.label == "Q8_0" and rec.runs_well
    assert card.download_button.text().startswith("Download 8-bit, near original quality · ")
    assert card.speed.objectName() == "FitOk"
    # None is: the fastest that fits, marked as slower than asked for.
    view.comfortable.setValue(view.comfortable.maximum())
    rec = view.recommendations["qwen2.5-1.5b-instruct"]
    assert rec.choice is not None and rec.choice.variant.label == "Q4_K_M" and not rec.runs_well
    assert rec.choice.decode_tps == max(o.decode_tps for o in rec.options)
    assert card.download_button.text().startswith("Download 4-bit, medium quality · ")
    assert card.speed.objectName() == "FitWarn"
    assert "Slower than the 200 tokens/s" in card.speed.toolTip()
    assert changed == [1.0, 200.0]

    # Saved in the data folder, and read back by the next window.
    assert SpeedStore().comfortable_tps() == 200.0
    assert (data_dir / "speed.json").is_file()
    again = type(view)(view.downloads, catalog=view.catalog, cache=view.cache)
    assert again.comfortable.value() == 200
    again.deleteLater()


def test_search_results_show_each_gguf_files_predicted_speed(
    qtbot: QtBot, view: DiscoverView
) -> None:
    from PySide6.QtWidgets import QLabel

    view.set_report(with_laptop_speed(cpu_only_8gb()))
    view.search.setText("tiny chat")
    with qtbot.waitSignal(view.search_finished, timeout=WAIT_MS):
        view.search_button.click()
    gguf, onnx = view.hub_cards
    texts = [w.text() for w in gguf.findChildren(QLabel)]
    assert len(gguf.speeds) == len(gguf.hit.files) == 2
    assert all(re.fullmatch(r"· about \d+(\.\d)? tok/s", s.text()) for s, _p in gguf.speeds)
    assert "fits on the CPU" in texts
    # Each file's quantization in words, its code beside them.
    words = [name.text() for name in gguf.names]
    assert words and all(w.endswith(" quality") for w in words), words
    assert any(quant in texts for quant in ("Q8_0", "Q4_K_M")), texts
    assert onnx.speeds == []  # folders are known only by size: no GGUF shape to go by
    # The files slower than the speed asked for are marked, and follow the setting.
    view.comfortable.setValue(view.comfortable.minimum())
    assert {s.objectName() for s, _p in gguf.speeds} == {"FitOk"}
    gguf.set_comfortable(max(p.decode_tps for _s, p in gguf.speeds) + 1)  # tiny files: fast
    assert {s.objectName() for s, _p in gguf.speeds} == {"FitWarn"}
    assert all("Slower than the" in s.toolTip() for s, _p in gguf.speeds)

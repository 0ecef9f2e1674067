"""What the window says of the engine's background measuring: the status bar's words for each
state, and the Hardware page's switch and line following the status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.client.protocol import BackgroundWork, EngineStatus

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager

WAYS = "Measuring the ways to run starter"


def status(state: str, why: str, *, on: bool = True) -> EngineStatus:
    work = BackgroundWork(WAYS, state, why)
    return EngineStatus(
        model="starter", measuring=WAYS, background=(work,), background_measuring=on
    )


def test_the_status_bar_says_what_waits_and_why() -> None:
    from app.shell.status_bar import measuring_words

    text, tip = measuring_words(status("waiting", "measuring when this computer is idle"))
    assert text == "Measuring when this computer is idle"
    assert "measuring when this computer is idle" in tip and "Hardware page" in tip
    text, tip = measuring_words(status("running", "measuring while this computer is idle"))
    assert text == "Measuring while idle…" and "another program" in tip
    paused = "stopped: another program needed the processor; trying again at 14:05"
    text, tip = measuring_words(status("paused", paused))
    assert text == "Measuring later" and "14:05" in tip
    assert measuring_words(status("off", "background measuring is off", on=False)) == ("", "")
    assert measuring_words(EngineStatus(model="starter")) == ("", "")


def test_the_hardware_page_follows_the_setting(qtbot: QtBot, theme: ThemeManager) -> None:
    from app.common.engine_service import EngineService
    from app.hardware.view import HardwareProbe, HardwareView

    service = EngineService()
    view = HardwareView(HardwareProbe(service), theme.colors)
    qtbot.addWidget(view)
    view.set_status(status("waiting", "measuring when this computer is idle"))
    assert view.background_box.isChecked()
    assert view.background_line.text() == f"{WAYS}: measuring when this computer is idle."
    view.set_status(status("off", "background measuring is off", on=False))
    assert not view.background_box.isChecked()
    assert "off" in view.background_line.text()

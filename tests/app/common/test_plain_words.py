"""The window speaks plainly: a quantization reads as its bits and quality with the code after
them, the hardware as "the processor" with its instruction sets as a detail, the device in the
status bar in words, and no page about this computer asks for a command line."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from engine.client.protocol import EngineStatus
from tests.support.machines import cpu_only_8gb

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager
    from app.hardware.view import HardwareView
    from app.models.view import ModelsView

COMMAND = re.compile(r"\bcove [a-z-]+")  # "cove pull", "cove tune": a terminal's words
WAIT_MS = 60_000  # a guard against a hang, not a measurement


def no_engine(model_id: str, done: Callable[[Any], None], failed: Callable[[Any], None]) -> None:
    failed(RuntimeError("No engine in this test."))


def texts(root: QWidget) -> list[str]:
    """Every text a person can read on ``root`` and its children, tooltips included."""
    found: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        found.append(widget.toolTip())
        if isinstance(widget, QLabel | QAbstractButton):
            found.append(widget.text())
        if isinstance(widget, QLineEdit):
            found.append(widget.placeholderText())
        if isinstance(widget, QTextBrowser):
            found.append(widget.toPlainText())
        if isinstance(widget, QTabWidget):
            found += [widget.tabText(i) for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            for row in range(widget.rowCount()):
                for col in range(widget.columnCount()):
                    item = widget.item(row, col)
                    if item is not None:
                        found += [item.text(), item.toolTip()]
    return [text for text in found if text]


@pytest.fixture
def models(qtbot: QtBot, theme: ThemeManager, data_dir: Path) -> Iterator[ModelsView]:
    from app.models.download_controller import DownloadController
    from app.models.view import ModelsView

    view = ModelsView(theme.colors, no_engine, DownloadController())
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        view.refresh()
    yield view
    view.downloads.close()
    view.pool.wait(10_000)


def test_the_models_page_says_the_quantization_in_words_first(
    models: ModelsView, starter: Path
) -> None:
    row = next(i for i, e in enumerate(models.entries) if e.source == "starter")
    assert models.entries[row].quantization == "Q4_1"
    cell = models.table.item(row, 1)
    assert cell is not None
    assert cell.text() == "4-bit, medium quality"
    assert cell.toolTip() == "GGUF, quantization Q4_1"
    models.table.selectRow(row)
    details = models.details.text()
    assert "4-bit, medium quality (GGUF Q4_1)" in details
    assert "Mostly 4-bit (Q4_1, 69 % of the weights); also 8-bit (Q8_0, 31 %)" in details
    assert "Tensor types" not in details


def test_the_models_page_asks_for_no_command_line(models: ModelsView, starter: Path) -> None:
    for tab in range(models.tabs.count()):
        models.tabs.setCurrentIndex(tab)
        shown = texts(models)
        assert shown and not [t for t in shown if COMMAND.search(t)]


class FakeProbe(QObject):
    """What the Hardware page reads of the probe: its report, or why there is none."""

    probed = Signal(object)
    probe_failed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.report = cpu_only_8gb()
        self.error: str | None = None
        self.engine = None

    def refresh(self) -> None:
        self.probed.emit(self.report)


@pytest.fixture
def hardware(qtbot: QtBot, theme: ThemeManager, data_dir: Path) -> HardwareView:
    from app.hardware.view import HardwareProbe, HardwareView

    view = HardwareView(cast(HardwareProbe, FakeProbe()), theme.colors)
    qtbot.addWidget(view)
    return view


def test_the_hardware_page_says_processor_and_keeps_instruction_sets_as_a_detail(
    hardware: HardwareView,
) -> None:
    page = hardware.page.toPlainText()
    # The words, then the technical name under them.
    assert "Models run best here on the processor (4 cores).\nCPU (AVX2, 4 physical cores)" in page
    assert "Processor\nIntel Core i5-8250U\nCores\n4 cores, 8 threads at once" in page
    assert "Instruction sets\navx2 fma" in page
    assert "SIMD" not in page and "GGUF models" not in page
    assert not [t for t in texts(hardware) if COMMAND.search(t)]


def test_a_failed_probe_says_so_plainly_with_its_reason_after(hardware: HardwareView) -> None:
    probe = cast(FakeProbe, hardware.probe)
    probe.report, probe.error = None, "exit code 1"  # type: ignore[assignment]
    hardware.show_report()
    page = hardware.page.toPlainText()
    assert page.startswith("Cove could not look at this computer's hardware.")
    assert "exit code 1" in page.split("\n", 1)[1]


def test_the_status_bar_says_where_the_model_runs_in_words() -> None:
    from app.shell.status_bar import describe_device, device_detail

    status = EngineStatus(model="starter", backend="llama.cpp", device="CPU")
    assert describe_device(status, "SmolLM2") == "SmolLM2 · on the processor"
    assert device_detail(status) == "Runs with llama.cpp on CPU."
    gpu = EngineStatus(model="m", backend="llama.cpp", device="CUDA: NVIDIA GeForce RTX 4090")
    assert describe_device(gpu) == "m · on the graphics card (NVIDIA GeForce RTX 4090)"


def test_the_quantization_words_are_translated(qapp: Any) -> None:
    from app.common import i18n
    from app.common.plain_words import mix_text, quant_label

    try:
        assert i18n.install("de") == "de"
        assert quant_label("Q4_K_M") == "4-Bit, mittlere Qualität (Q4_K_M)"
        assert mix_text("Q4_1 69 %, Q8_0 31 %").startswith("Überwiegend 4-Bit (Q4_1, 69 %")
    finally:
        i18n.install("en")
    assert quant_label("Q4_K_M") == "4-bit, medium quality (Q4_K_M)"

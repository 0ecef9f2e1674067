"""The chat's model, chosen at the top of the chat (Ctrl+L): each installed chat model with
whether it fits here and how fast it runs here, measured or predicted (from the Models page)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPaintEvent, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)

from app.common.accessible_combo import name_by_purpose
from app.common.i18n import tr

MIN_CHARS = 30  # the closed box fits a model's name; its list is as wide as its lines


@dataclass(frozen=True, slots=True)
class ModelChoice:
    model: str  # the name the engine is asked for
    label: str  # as people read it
    fits: str = ""  # the Models page's verdict, "Fits", "Won't fit: ..."
    speed: str = ""  # "48 tokens/s (measured here)"
    quality: str = ""  # "4-bit, medium quality"

    @property
    def text(self) -> str:
        said = " · ".join(part for part in (self.quality, self.fits, self.speed) if part)
        return f"{self.label} — {said}" if said else self.label


class ModelPicker(QComboBox):
    """Named "Model" for screen readers; ``model_chosen`` only when a person picks one."""

    model_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ModelPicker")
        name_by_purpose(self, tr("Model picker", "Model"))
        self.setAccessibleDescription(
            tr("Model picker", "The model that writes this chat's replies")
        )
        self.setToolTip(tr("Model picker", "The model that writes this chat's replies (Ctrl+L)"))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(MIN_CHARS)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.choices: list[ModelChoice] = []
        self._selected: str | None = None
        self.activated.connect(self._activated)

    def set_choices(self, choices: Sequence[ModelChoice]) -> None:
        """The installed chat models; the one shown stays shown."""
        self.choices = list(choices)
        self.blockSignals(True)
        self.clear()
        for choice in self.choices:
            self.addItem(choice.text, choice.model)
            self.setItemData(self.count() - 1, choice.text, Qt.ItemDataRole.ToolTipRole)
        self.blockSignals(False)
        self.select(self._selected)
        lines = [self.fontMetrics().horizontalAdvance(c.text) for c in self.choices]
        self.view().setMinimumWidth(max(lines, default=0) + 40)

    def select(self, model: str | None) -> None:
        """Show ``model`` as the chat's (without announcing a choice)."""
        self._selected = model
        index = self.findData(model) if model is not None else -1
        if index < 0 and model is not None and self.choices:
            # A model that is not installed (any more): said as it is, not silently replaced.
            self.blockSignals(True)
            self.addItem(tr("Model picker", "{model} — not installed").format(model=model), model)
            self.blockSignals(False)
            index = self.count() - 1
        self.blockSignals(True)
        self.setCurrentIndex(index)
        self.blockSignals(False)

    def labels(self) -> Mapping[str, str]:
        return {choice.model: choice.label for choice in self.choices}

    def _activated(self, index: int) -> None:
        model = self.itemData(index)
        if isinstance(model, str) and model != self._selected:
            self._selected = model
            self.model_chosen.emit(model)

    def shown_label(self) -> str:
        """What the closed box says: the model's name (its list says what fits and how fast)."""
        index = self.currentIndex()
        if 0 <= index < len(self.choices) and self.itemData(index) == self.choices[index].model:
            return self.choices[index].label
        return self.currentText().split(" — ")[0]

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_label()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def wheelEvent(self, event: QWheelEvent) -> None:
        # Scrolling the chat past the header must not change its model.
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()

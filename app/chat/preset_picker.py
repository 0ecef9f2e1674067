"""Choosing a chat preset (engine/store/presets.py), and the menu that manages them.

The combo box only lists presets, so that a screen reader announces it simply as "Preset" with the
chosen one's name, and arrowing through it never lands on a command. Saving, the default, import
and export live in ``PresetMenu``, a button beside it. Both only say what the person asked for;
whoever owns the chat applies a preset or opens the file dialogs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QAction, QWheelEvent
from PySide6.QtWidgets import QComboBox, QMenu, QToolButton, QWidget

from app.common.accessible_combo import name_by_purpose
from app.common.i18n import tr
from engine.store import Preset


class PresetPicker(QComboBox):
    """The presets by name (built-in ones first, the default marked); each item's data is the
    preset's name. ``preset_chosen`` fires only when the person picks one, never on ``select``
    or ``set_presets``, so filling the box from a chat's state cannot change that chat."""

    preset_chosen = Signal(object)  # Preset

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PresetPicker")
        name_by_purpose(self, tr("Presets", "Preset"))
        self.setAccessibleDescription(
            tr("Presets", "Start the chat from a preset: a system prompt and sampling settings")
        )
        self.setToolTip(
            tr(
                "Presets",
                "Preset: a system prompt and sampling settings (and sometimes a model) to start "
                "from",
            )
        )
        self.setPlaceholderText(tr("Presets", "Choose a preset"))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # Scrolling past it must not replace a chat's prompt: the wheel works once it has focus.
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._presets: dict[str, Preset] = {}
        self._default: str | None = None
        self.activated.connect(self._on_activated)

    def set_presets(self, presets: Iterable[Preset], default_name: str | None = None) -> None:
        """Show ``presets`` in the order given, keeping the current choice where it still exists."""
        current = self.current_name()
        self._presets = {p.name: p for p in presets}
        self._default = default_name if default_name in self._presets else None
        self.blockSignals(True)
        try:
            self.clear()
            for preset in self._presets.values():
                label = preset.name
                if preset.name == self._default:
                    label = tr("Presets", "{name} (default)").format(name=preset.name)
                self.addItem(label, preset.name)
                index = self.count() - 1
                if preset.system_prompt:
                    self.setItemData(index, preset.system_prompt, Qt.ItemDataRole.ToolTipRole)
            self.setCurrentIndex(self.findData(current) if current is not None else -1)
        finally:
            self.blockSignals(False)

    def select(self, name: str | None) -> None:
        """Show ``name`` as chosen (None, or a name not listed: no preset), without emitting."""
        self.blockSignals(True)
        try:
            self.setCurrentIndex(self.findData(name) if name is not None else -1)
        finally:
            self.blockSignals(False)

    def current_name(self) -> str | None:
        data = self.currentData()
        return data if isinstance(data, str) else None

    def current_preset(self) -> Preset | None:
        name = self.current_name()
        return self._presets.get(name) if name is not None else None

    def default_name(self) -> str | None:
        return self._default

    def _on_activated(self, index: int) -> None:
        name = self.itemData(index)
        preset = self._presets.get(name) if isinstance(name, str) else None
        if preset is not None:
            self.preset_chosen.emit(preset)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


class PresetMenu(QToolButton):
    """A button with the presets' commands. ``set_current`` tells it which preset is chosen and
    which is the default, so that it offers only what applies (a built-in preset cannot be
    deleted; the default is already the default)."""

    save_requested = Signal()  # save the chat's current prompt and settings as a new preset
    default_requested = Signal(object)  # Preset: start new chats from it
    clear_default_requested = Signal()
    delete_requested = Signal(object)  # Preset
    import_requested = Signal()
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MenuButton")
        self.setText(tr("Presets", "Presets"))
        self.setAccessibleName(tr("Presets", "Presets menu"))
        self.setToolTip(tr("Presets", "Save, import, export or set the default preset"))
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._current: Preset | None = None
        menu = QMenu(self)
        self.save_action = self._add(
            menu, tr("Presets", "Save current as preset…"), self.save_requested
        )
        self.default_action = self._add(
            menu, tr("Presets", "Set as default for new chats"), self._set_default
        )
        self.clear_default_action = self._add(
            menu, tr("Presets", "Start new chats without a preset"), self.clear_default_requested
        )
        self.delete_action = self._add(menu, tr("Presets", "Delete preset"), self._delete)
        menu.addSeparator()
        self.import_action = self._add(
            menu, tr("Presets", "Import presets…"), self.import_requested
        )
        self.export_action = self._add(
            menu, tr("Presets", "Export presets…"), self.export_requested
        )
        self.setMenu(menu)
        self.set_current(None)

    def set_current(self, preset: Preset | None, default_name: str | None = None) -> None:
        """The chosen preset (None: none) and the default for new chats (None: none)."""
        self._current = preset
        self.default_action.setEnabled(preset is not None and preset.name != default_name)
        self.clear_default_action.setEnabled(default_name is not None)
        self.delete_action.setEnabled(preset is not None and not preset.built_in)

    @staticmethod
    def _add(menu: QMenu, text: str, slot: Callable[[], None] | SignalInstance) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)  # a signal, or a slot taking no arguments: no "checked"
        return action

    def _set_default(self) -> None:
        if self._current is not None:
            self.default_requested.emit(self._current)

    def _delete(self) -> None:
        if self._current is not None and not self._current.built_in:
            self.delete_requested.emit(self._current)

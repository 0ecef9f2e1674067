"""Combo boxes that a screen reader names by what they are for.

On Linux, Qt names a combo box after its current text (the label is meant to come from a
relation), so the tree Orca reads would hold a box called "SmolLM2 135M Instruct" instead of
"Model". Boxes marked here keep their accessible name as the name and give the current text as
the value; their list of choices and keyboard use are Qt's own.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget, QComboBox

NAMED = "coveNamedCombo"  # the property that marks a combo box to be named by its purpose

_installed = False
# Interfaces made here stay referenced while their box lives: Qt keeps pointers to them.
_alive: dict[int, QAccessibleInterface] = {}


class NamedCombo(QAccessibleWidget):
    def __init__(self, combo: QComboBox) -> None:
        super().__init__(combo, QAccessible.Role.ComboBox)
        self.combo = combo

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.combo.accessibleName()
        if kind == QAccessible.Text.Value:
            return self.combo.currentText()
        return str(super().text(kind))

    def childCount(self) -> int:
        return 1

    def child(self, index: int) -> QAccessibleInterface:
        if index != 0:
            return None  # type: ignore[return-value]  # Qt's "no such child"
        return QAccessible.queryAccessibleInterface(self.combo.view())

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return 0 if child is not None and child.object() is self.combo.view() else -1

    def actionNames(self) -> list[str]:
        return [QAccessibleWidget.showMenuAction(), QAccessibleWidget.setFocusAction()]

    def doAction(self, name: str) -> None:
        if name in (QAccessibleWidget.showMenuAction(), QAccessibleWidget.pressAction()):
            self.combo.showPopup()
        else:
            super().doAction(name)


def _factory(key: str, obj: QObject) -> Any:
    if isinstance(obj, QComboBox) and obj.property(NAMED):
        serial = id(obj)
        found = _alive.get(serial)
        if found is None:
            found = _alive[serial] = NamedCombo(obj)
            obj.destroyed.connect(lambda *_args: _alive.pop(serial, None))
        return found
    return None


def name_by_purpose(combo: QComboBox, name: str) -> None:
    """Name ``combo`` ``name`` for screen readers, whatever it shows."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True
    combo.setProperty(NAMED, True)
    combo.setAccessibleName(name)
    # A screen reader sets a combo box by selecting in its (closed) list: that is a pick, as a
    # person's click in the open list is.
    selection = combo.view().selectionModel()
    selection.selectionChanged.connect(lambda *_args: _picked_by_selection(combo))


def _picked_by_selection(combo: QComboBox) -> None:
    if combo.view().isVisible():
        return  # the open list: moving through it is not a choice until Enter or a click
    rows = [index.row() for index in combo.view().selectionModel().selectedIndexes()]
    if rows and rows[0] != combo.currentIndex():
        combo.setCurrentIndex(rows[0])
        combo.activated.emit(rows[0])

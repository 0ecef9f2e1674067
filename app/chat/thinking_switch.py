"""The chat header's Thinking switch: whether a reasoning model thinks before it answers.

Shown only for a model whose chat template can turn its thinking off (the engine reads that from
the template: ``ModelEntry.thinking_switch``, ``EngineStatus.thinking_switch``); for any other
model there is nothing to switch. Checked by default. The choice is the chat's, kept with its
settings and sent with each of its requests; unchecked, replies come without a reasoning
section. ``chosen`` fires only when the person changes it, never on ``show_choice``, so that
showing a chat's choice cannot change that chat.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QWidget

from app.common.i18n import tr


class ThinkingSwitch(QCheckBox):
    chosen = Signal(bool)  # on: the model thinks before it answers

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("Chat", "Thinking"), parent)
        self.setObjectName("ThinkingSwitch")
        self.setAccessibleName(tr("Chat", "Thinking"))
        self.setAccessibleDescription(
            tr("Chat", "Let the model think before it answers, in a reasoning section")
        )
        self.setToolTip(
            tr(
                "Chat",
                "Thinking: the model reasons before it answers. Off, it answers at once, "
                "without a reasoning section (this chat's replies from now on).",
            )
        )
        self.setChecked(True)
        self.setVisible(False)
        self.clicked.connect(self.chosen)  # the person's clicks and keys, not setChecked

    def show_choice(self, available: bool, on: bool) -> None:
        """A chat's choice, for a model that can (``available``) or cannot turn thinking off."""
        self.setChecked(on)
        self.setVisible(available)

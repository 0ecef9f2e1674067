"""A message's actions in its header: Copy, Edit, Regenerate (and with another model, from a menu
of its own), Continue, Branch from here and Delete; which of them show, and when they wait."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QMenu, QToolButton

from app.common.i18n import tr


def action_button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName("MessageAction")
    button.setText(text)
    button.setToolTip(tip)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setAutoRaise(True)
    return button


class MessageActions:
    def __init__(self, header: QHBoxLayout, role: str) -> None:
        self.copy_button = action_button(
            tr("Message", "Copy"), tr("Message", "Copy this message as Markdown")
        )
        self.edit_button = action_button(
            tr("Message", "Edit"),
            tr(
                "Message", "Edit this message and send it again (the original is kept as a version)"
            ),
        )
        self.regenerate_button = action_button(
            tr("Message", "Regenerate"),
            tr("Message", "Write this reply again (this one is kept as a version)"),
        )
        # Another model, chosen from a menu of its own: a control of its own for a screen reader.
        self.regenerate_with_button = action_button(
            "▾", tr("Message", "Write this reply again with another model")
        )
        self.regenerate_with_button.setAccessibleName(tr("Message", "Regenerate with…"))
        self.regenerate_menu = QMenu(self.regenerate_with_button)
        self.regenerate_with_button.setMenu(self.regenerate_menu)
        self.regenerate_with_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.continue_button = action_button(
            tr("Message", "Continue"),
            tr("Message", "Write more of this reply, which stopped at its length limit"),
        )
        self.branch_button = action_button(
            tr("Message", "Branch from here"),
            tr("Message", "Start a new chat with the conversation up to this message"),
        )
        self.delete_button = action_button(
            tr("Message", "Delete"), tr("Message", "Delete this message (it can be undone)")
        )
        for button in (
            self.copy_button,
            self.edit_button,
            self.regenerate_button,
            self.regenerate_with_button,
            self.continue_button,
            self.branch_button,
            self.delete_button,
        ):
            header.addWidget(button)
        self.edit_button.setVisible(role == "user")
        self.regenerate_button.setVisible(False)
        self.regenerate_with_button.setVisible(False)
        self.continue_button.setVisible(False)

    def fill_regenerate_menu(
        self, models: list[tuple[str, str]], chosen: Callable[[str], None]
    ) -> None:
        """The models to write the reply again with: (name to ask for, label) each."""
        self.regenerate_menu.clear()
        if not models:
            action = self.regenerate_menu.addAction(tr("Message", "No other model is installed"))
            action.setEnabled(False)
        for name, label in models:
            action = self.regenerate_menu.addAction(
                tr("Message", "Regenerate with {model}").format(model=label)
            )
            action.triggered.connect(lambda _checked=False, n=name: chosen(n))

    def update(self, free: bool, streaming: bool, can_continue: bool) -> None:
        """``free``: saved, written and no reply under way, so the conversation may change."""
        self.copy_button.setEnabled(not streaming)
        for button in (
            self.edit_button,
            self.regenerate_button,
            self.regenerate_with_button,
            self.delete_button,
            self.branch_button,
            self.continue_button,
        ):
            button.setEnabled(free)
        self.continue_button.setVisible(can_continue)

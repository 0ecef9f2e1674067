"""A tool call in a reply: which tool of which server, with what arguments, and what came back,
folded to one line once it has run. While it waits for consent the card asks: Allow once /
Always allow this tool / Deny.

A result is untrusted input: it is shown as plain text (never rendered as HTML, never run)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr

RESULT_CHARS = 4000  # shown in the card; the model got the whole result


def state_text(state: str) -> str:
    """What the card says of a call's state ("running": "Running…")."""
    states = {
        "asking": tr("Tool calls", "Waiting for your answer"),
        "running": tr("Tool calls", "Running…"),
        "done": tr("Tool calls", "Done"),
        "failed": tr("Tool calls", "Failed"),
        "denied": tr("Tool calls", "Denied"),
    }
    return states.get(state, state)


def _plain(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ToolCallCard(QFrame):
    decided = Signal(str, str)  # (call id, "once" | "always" | "deny")

    def __init__(self, call: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ToolCall")
        self.call: dict[str, Any] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        top = QHBoxLayout()
        layout.addLayout(top)
        self.title = _plain("")
        self.title.setObjectName("ToolTitle")
        self.state = QLabel()
        self.state.setProperty("muted", True)
        self.toggle = QToolButton()
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.toggled.connect(self._fold)
        top.addWidget(self.title, 1)
        top.addWidget(self.state)
        top.addWidget(self.toggle)
        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 0, 0, 0)
        details.setSpacing(3)
        details.addWidget(self._caption(tr("Tool calls", "Arguments")))
        self.arguments = _plain("")
        self.arguments.setObjectName("ToolDetail")
        details.addWidget(self.arguments)
        self.result_caption = self._caption(tr("Tool calls", "Result"))
        details.addWidget(self.result_caption)
        self.result = _plain("")
        self.result.setObjectName("ToolDetail")
        details.addWidget(self.result)
        layout.addWidget(self.details)
        self.buttons = QWidget()
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 2, 0, 0)
        self.allow_once = QPushButton(tr("Tool calls", "Allow once"))
        self.allow_once.setObjectName("Primary")
        self.allow_always = QPushButton(tr("Tool calls", "Always allow this tool"))
        self.deny = QPushButton(tr("Tool calls", "Deny"))
        for button, decision in (
            (self.allow_once, "once"),
            (self.allow_always, "always"),
            (self.deny, "deny"),
        ):
            button.clicked.connect(lambda _c=False, d=decision: self._decide(d))
            row.addWidget(button)
        row.addStretch(1)
        layout.addWidget(self.buttons)
        self.update_call(call)

    @staticmethod
    def _caption(text: str) -> QLabel:
        label = QLabel(text)
        label.setProperty("muted", True)
        return label

    def update_call(self, call: dict[str, Any]) -> None:
        self.call = dict(call)
        state = str(call.get("state", ""))
        asking = state == "asking"
        tool, server = str(call.get("tool", "")), str(call.get("server", ""))
        self.title.setText(
            tr("Tool calls", "Run {tool} from the {server} server?").format(
                tool=tool, server=server
            )
            if asking
            else f"{tool} · {server}"
        )
        self.state.setText(state_text(state))
        self.arguments.setText(json.dumps(call.get("arguments", {}), indent=2, ensure_ascii=False))
        result = str(call.get("result", ""))
        if len(result) > RESULT_CHARS:
            result = (
                result[:RESULT_CHARS]
                + "\n"
                + tr("Tool calls", "… ({n} characters in all)").format(n=f"{len(result):,}")
            )
        self.result.setText(result)
        self.result.setVisible(bool(result))
        self.result_caption.setVisible(bool(result))
        self.buttons.setVisible(asking)
        self.setProperty("asking", asking)
        self.style().unpolish(self)
        self.style().polish(self)
        # Asking shows what would run; once it has run, the card folds to its title line.
        self.toggle.setVisible(not asking)
        self._fold(self.toggle.isChecked())

    def _fold(self, open_: bool) -> None:
        asking = self.call.get("state") == "asking"
        self.details.setVisible(asking or open_)
        self.toggle.setText(tr("Tool calls", "Hide") if open_ else tr("Tool calls", "Details"))

    def _decide(self, decision: str) -> None:
        for button in (self.allow_once, self.allow_always, self.deny):
            button.setEnabled(False)
        self.decided.emit(str(self.call.get("id", "")), decision)

"""The top row of the views reached from the sidebar: "← Chat", the view's title, and room on the
right for the view's own buttons."""

from __future__ import annotations

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from app.common.i18n import tr


def page_header(title: str, back: SignalInstance) -> QHBoxLayout:
    """The row; "← Chat" emits ``back``. Buttons added to it go to the right."""
    header = QHBoxLayout()
    button = QPushButton(tr("Page header", "← Chat"))
    button.setAccessibleName(tr("Page header", "Back to chat"))
    button.setObjectName("Secondary")
    button.clicked.connect(back)
    header.addWidget(button)
    header.addSpacing(8)
    header.addWidget(QLabel(f"<b style='font-size:15pt'>{title}</b>"))
    header.addStretch(1)
    return header

"""The chat page: a header with the conversation's title, the chat settings toggle and the ⋯ menu;
the conversation; the composer, with the context notice above it; the chat settings beside them."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.chat_view import MAX_COLUMN_WIDTH, ChatView
from app.composer import Composer
from app.settings_panel import SettingsPanel


class ChatPage(QWidget):
    def __init__(
        self, view: ChatView, composer: Composer, settings_panel: SettingsPanel, menu: QMenu
    ) -> None:
        super().__init__()
        self.setObjectName("ChatSurface")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = QHBoxLayout()
        top.setContentsMargins(24, 10, 16, 6)
        self.title = QLabel("New chat")
        self.title.setObjectName("RoleLabel")
        self.settings_button = QPushButton("Chat settings")
        self.settings_button.setObjectName("Secondary")
        self.settings_button.setCheckable(True)
        self.menu_button = QToolButton()
        self.menu_button.setObjectName("MenuButton")
        self.menu_button.setText("⋯")
        self.menu_button.setToolTip("More")
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_button.setMenu(menu)
        top.addWidget(self.title, 1)
        top.addWidget(self.settings_button)
        top.addWidget(self.menu_button)
        layout.addLayout(top)
        body = QHBoxLayout()
        body.setSpacing(0)
        center = QVBoxLayout()
        center.setSpacing(6)
        center.addWidget(view, 1)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(24, 0, 24, 14)
        bottom.addStretch(1)
        composer_column = QVBoxLayout()
        self.context_notice = QLabel("")
        self.context_notice.setObjectName("NoticeText")
        self.context_notice.setWordWrap(True)
        self.context_notice_frame = QWidget()
        self.context_notice_frame.setObjectName("Notice")
        notice_layout = QVBoxLayout(self.context_notice_frame)
        notice_layout.setContentsMargins(10, 6, 10, 6)
        notice_layout.addWidget(self.context_notice)
        self.context_notice_frame.setVisible(False)
        composer_column.addWidget(self.context_notice_frame)
        composer_column.addWidget(composer)
        holder = QWidget()
        holder.setMaximumWidth(MAX_COLUMN_WIDTH)
        holder.setLayout(composer_column)
        bottom.addWidget(holder, 100)
        bottom.addStretch(1)
        center.addLayout(bottom)
        body.addLayout(center, 1)
        body.addWidget(settings_panel)
        layout.addLayout(body, 1)
        self.settings_button.toggled.connect(settings_panel.setVisible)
        settings_panel.close_button.clicked.connect(lambda: self.settings_button.setChecked(False))

    def set_title(self, title: str) -> None:
        self.title.setText(title)

    def show_context_notice(self, message: str) -> None:
        """Above the composer while the context is being trimmed; hidden when ``message`` is
        empty."""
        self.context_notice.setText(message)
        self.context_notice_frame.setVisible(bool(message))

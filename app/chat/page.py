"""The chat page: a header with the conversation's title, its model (Ctrl+L) and, for a model
that can turn it off, the Thinking switch, its preset, the chat settings toggle and the ⋯ menu;
the conversation; the composer, with the context notice (and, when the model cannot see images,
the vision notice) above it; the chat settings beside them. Images dropped anywhere on the page
go to the composer."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.attachments import carries_images
from app.chat.composer import Composer
from app.chat.find_bar import FindBar
from app.chat.model_picker import ModelPicker
from app.chat.preset_picker import PresetMenu, PresetPicker
from app.chat.settings import SettingsPanel
from app.chat.thinking_switch import ThinkingSwitch
from app.chat.view import MAX_COLUMN_WIDTH, ChatView
from app.common.i18n import tr


class ChatPage(QWidget):
    vision_models_requested = Signal()  # "Find a vision model" in the vision notice

    def __init__(
        self, view: ChatView, composer: Composer, settings_panel: SettingsPanel, menu: QMenu
    ) -> None:
        super().__init__()
        self.setObjectName("ChatSurface")
        self.composer = composer
        self.view = view
        self.setAcceptDrops(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = QHBoxLayout()
        top.setContentsMargins(24, 10, 16, 6)
        self.title = QLabel(tr("Chat", "New chat"))
        self.title.setObjectName("RoleLabel")
        self.model_picker = ModelPicker()
        self.thinking_switch = ThinkingSwitch()  # shown for a model that can turn it off
        self.preset_picker = PresetPicker()
        self.preset_menu = PresetMenu()
        self.settings_button = QPushButton(tr("Chat", "Chat settings"))
        self.settings_button.setObjectName("Secondary")
        self.settings_button.setCheckable(True)
        self.menu_button = QToolButton()
        self.menu_button.setObjectName("MenuButton")
        self.menu_button.setText("⋯")
        self.menu_button.setToolTip(tr("Chat", "More for this chat"))
        self.menu_button.setAccessibleName(tr("Chat", "More actions"))
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_button.setMenu(menu)
        top.addWidget(self.title, 1)
        top.addWidget(self.model_picker)
        top.addWidget(self.thinking_switch)
        top.addWidget(self.preset_picker)
        top.addWidget(self.preset_menu)
        top.addWidget(self.settings_button)
        top.addWidget(self.menu_button)
        layout.addLayout(top)
        body = QHBoxLayout()
        body.setSpacing(0)
        center = QVBoxLayout()
        center.setSpacing(6)
        self.find_bar = FindBar(view)
        find_row = QHBoxLayout()
        find_row.setContentsMargins(24, 0, 24, 0)
        find_row.addWidget(self.find_bar)
        center.addLayout(find_row)
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
        self.vision_notice = QLabel("")
        self.vision_notice.setObjectName("NoticeText")
        self.vision_notice.setWordWrap(True)
        self.vision_button = QPushButton(tr("Chat", "Find a vision model"))
        self.vision_button.setObjectName("Secondary")
        self.vision_button.setToolTip(
            tr("Chat", "Models › Discover, showing the models that see images")
        )
        self.vision_button.clicked.connect(self.vision_models_requested)
        self.vision_notice_frame = QFrame()
        self.vision_notice_frame.setObjectName("Notice")
        vision_layout = QHBoxLayout(self.vision_notice_frame)
        vision_layout.setContentsMargins(10, 6, 6, 6)
        vision_layout.addWidget(self.vision_notice, 1)
        vision_layout.addWidget(self.vision_button)
        self.vision_notice_frame.setVisible(False)
        composer_column.addWidget(self.vision_notice_frame)
        self.undo_text = QLabel("")
        self.undo_text.setObjectName("NoticeText")
        self.undo_button = QPushButton(tr("Chat", "Undo"))
        self.undo_button.setObjectName("Secondary")
        self.undo_button.setToolTip(tr("Chat", "Bring the deleted message back (Ctrl+Z)"))
        self.undo_frame = QFrame()
        self.undo_frame.setObjectName("Notice")
        undo_layout = QHBoxLayout(self.undo_frame)
        undo_layout.setContentsMargins(10, 4, 6, 4)
        undo_layout.addWidget(self.undo_text, 1)
        undo_layout.addWidget(self.undo_button)
        self.undo_frame.setVisible(False)
        composer_column.addWidget(self.undo_frame)
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

    def view_has_focus(self) -> bool:
        """Whether the keyboard is in the conversation (or nowhere)."""
        focused = QApplication.focusWidget()
        return focused is None or focused is self.view or self.view.isAncestorOf(focused)

    def show_undo(self, message: str) -> None:
        """ "Message deleted. [Undo]" above the composer while the delete can be undone."""
        self.undo_text.setText(message)
        self.undo_frame.setVisible(bool(message))

    def show_vision_notice(self, message: str) -> None:
        """Above the composer when the loaded model cannot see the images; hidden when empty."""
        self.vision_notice.setText(message)
        self.vision_notice_frame.setVisible(bool(message))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if carries_images(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if carries_images(event.mimeData()):
            self.composer.add_from_mime(event.mimeData())
            event.acceptProposedAction()

"""One message in the chat: who said it, the rendered text, and what can be done with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.chat.message.actions import MessageActions
from app.chat.message.body import MessageBody
from app.chat.message.document import MessageRenderer, copy_index
from app.chat.message.editor import MessageEditor
from app.chat.message.images import ImageRef, MessageImages
from app.chat.message.reasoning import ReasoningPanel
from app.chat.message.sources import SourcesPanel, shown_text
from app.chat.message.status import figures, notices, status_badge
from app.chat.message.tool_call_card import ToolCallCard
from app.chat.message.versions import VersionSwitch
from app.common.i18n import tr
from app.common.open_source import open_source
from app.common.theme import Colors
from engine.store import ReplyMeta


class MessageWidget(QFrame):
    """A user message (in a bubble) or a reply (full width), with its actions."""

    copy_done = Signal(str)
    edit_submitted = Signal(object, str)  # (MessageWidget, new text)
    regenerate_requested = Signal(object, object)  # (MessageWidget, model or None: as before)
    delete_requested = Signal(object)
    version_requested = Signal(object, int)  # (MessageWidget, -1 or +1)
    branch_requested = Signal(object)
    continue_requested = Signal(object)
    call_decided = Signal(str, str)  # (tool call id, decision): the consent prompt's answer

    def __init__(
        self,
        role: str,
        colors: Colors,
        *,
        message_id: int | None = None,
        status: str = "complete",
        label: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.role = role
        self.message_id = message_id
        self.versions: tuple[int, ...] = ()  # every version of this turn, when it has several
        self.hidden_for_undo = False  # deleted, while the delete can still be undone
        self._can_regenerate = False
        # The installed chat models to write a reply again with: (name to ask for, label).
        self.models: Callable[[], list[tuple[str, str]]] = list
        self.status = status
        self.colors = colors
        self.meta: dict[str, Any] = {}
        self._busy = False

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 6, 0, 6)
        outer.setSpacing(2)

        header = QHBoxLayout()
        header.setSpacing(6)
        outer.addLayout(header)  # first, so that its widgets have a parent before any is shown
        self.role_label = QLabel(label or (tr("Message", "You") if role == "user" else "Cove"))
        self.role_label.setObjectName("RoleLabel")
        self.badge = QLabel()
        self.badge.setVisible(False)
        self.version_switch = VersionSwitch()
        self.version_switch.step_requested.connect(
            lambda step: self.version_requested.emit(self, step)
        )
        header.addWidget(self.role_label)
        header.addWidget(self.badge)
        header.addWidget(self.version_switch)
        header.addStretch(1)
        self.action_row = MessageActions(header, role)
        a = self.action_row
        self.copy_button, self.edit_button = a.copy_button, a.edit_button
        self.regenerate_button, self.regenerate_with_button = (
            a.regenerate_button,
            a.regenerate_with_button,
        )
        self.regenerate_menu = a.regenerate_menu
        self.continue_button, self.branch_button = a.continue_button, a.branch_button
        self.delete_button = a.delete_button
        self.regenerate_menu.aboutToShow.connect(self._fill_regenerate_menu)
        self.copy_button.clicked.connect(self.copy_message)
        self.edit_button.clicked.connect(self.start_editing)
        self.regenerate_button.clicked.connect(lambda: self.regenerate_requested.emit(self, None))
        self.continue_button.clicked.connect(lambda: self.continue_requested.emit(self))
        self.branch_button.clicked.connect(lambda: self.branch_requested.emit(self))
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self))

        # The text: one or more MessageBody documents in a column (see MessageRenderer).
        self.text_box = QWidget()
        self.text_layout = QVBoxLayout(self.text_box)
        self.text_layout.setContentsMargins(0, 0, 0, 0)
        self.text_layout.setSpacing(0)
        self.bodies: list[MessageBody] = []
        self.body = self._new_body()
        self.renderer = self._new_renderer()
        # The reply as written, when what is shown differs from it (an answer from documents
        # with its citations numbered as its sources are shown); None: the renderer's source.
        self._written: str | None = None
        self.waiting = QLabel(tr("Message", "Waiting for the model…"))
        self.waiting.setProperty("muted", True)
        self.waiting.setVisible(False)

        if role == "user":
            bubble = QFrame()
            bubble.setObjectName("UserBubble")
            inner = QVBoxLayout(bubble)
            inner.setContentsMargins(12, 8, 12, 8)
            inner.addWidget(self.text_box)
            self.bubble: QFrame | None = bubble
            outer.addWidget(bubble)
        else:
            self.bubble = None
            outer.addWidget(self.waiting)
            outer.addWidget(self.text_box)

        self._outer = outer
        self.images: MessageImages | None = None  # built for a user's message with images

        self.sources_panel: SourcesPanel | None = None  # built for replies from documents
        self.call_cards: dict[str, ToolCallCard] = {}  # built for replies that called tools
        self.reasoning: ReasoningPanel | None = None  # built for a reasoning model's replies
        self.footer = QLabel()
        self.footer.setProperty("muted", True)
        self.footer.setWordWrap(True)
        self.footer.setVisible(False)
        outer.addWidget(self.footer)
        self.notice = QLabel()
        self.notice.setObjectName("NoticeText")
        self.notice.setWordWrap(True)
        self.notice_frame = QFrame()
        self.notice_frame.setObjectName("Notice")
        notice_layout = QVBoxLayout(self.notice_frame)
        notice_layout.setContentsMargins(10, 6, 10, 6)
        notice_layout.addWidget(self.notice)
        self.notice_frame.setVisible(False)
        outer.addWidget(self.notice_frame)
        self.edit_box = MessageEditor(
            outer, self.footer, self.bubble or self.text_box, lambda: self.images is not None, self
        )
        self.edit_box.submitted.connect(lambda text: self.edit_submitted.emit(self, text))
        self._show_status()
        self._update_actions()

    # -- content -------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The message as written (and stored)."""
        return self._written if self._written is not None else self.renderer.source

    @property
    def shown(self) -> str:
        """The message as shown: a reply from documents has its citations numbered as its
        sources panel numbers them."""
        return self.renderer.source

    def _as_shown(self, text: str) -> str:
        shown = shown_text(self.meta, text) if self.role == "assistant" else text
        self._written = text if shown != text else None
        return shown

    def set_text(self, text: str) -> None:
        """Show a complete message."""
        self._reset_renderer()
        self.renderer.set_text(self._as_shown(text))
        self.waiting.setVisible(False)
        self._show_text_box()

    def load_text(self, text: str) -> None:
        """Show a complete message in steps: call ``load_step`` until it returns True."""
        self._reset_renderer()
        self.renderer.begin_text(self._as_shown(text))
        self.waiting.setVisible(False)
        self._show_text_box()

    def load_step(self, deadline: float | None) -> bool:
        return self.renderer.render_some(deadline)

    def start_stream(self, text: str = "") -> None:
        """Become the reply being written; ``text`` is what arrived before this widget existed."""
        self._reset_renderer()
        self.status = "streaming"
        self.waiting.setVisible(not text)
        if text:
            self.renderer.append(text)
        self._show_status()
        self._update_actions()

    def append(self, text: str) -> None:
        if self.waiting.isVisible():
            self.waiting.setVisible(False)
        if self.reasoning is not None and text.strip():
            self.reasoning.answer_started()
        self.renderer.append(text)

    def finish(self, status: str, meta: dict[str, Any] | None = None) -> None:
        if not self.renderer.finished:
            self.renderer.finish()
        self.status = status
        self.meta = dict(meta or {})
        self.waiting.setVisible(False)
        if self.role == "assistant" and "documents" in self.meta:
            written = self.text
            if shown_text(self.meta, written) != self.renderer.source:  # streamed as written
                self.set_text(written)
        self._show_status()
        self._show_sources()
        for call in self.meta.get("tool_calls") or ():
            if isinstance(call, dict):
                self.show_call(call)
        thought = self.meta.get("reasoning")
        if isinstance(thought, str) and thought.strip():
            self._reasoning_panel().set_text(thought)
        elif self.reasoning is not None:
            self.reasoning.set_text(self.reasoning.text)
        self._update_actions()

    def append_reasoning(self, text: str) -> None:
        """More of the model's thinking, as it streams (the answer follows it)."""
        if self.waiting.isVisible():
            self.waiting.setVisible(False)
        self._reasoning_panel().append(text)

    def _reasoning_panel(self) -> ReasoningPanel:
        if self.reasoning is None:
            self.reasoning = ReasoningPanel()
            # Above the answer: a person reads the thinking first, as it is written.
            self._outer.insertWidget(self._outer.indexOf(self.text_box), self.reasoning)
            self.reasoning.setVisible(True)  # now, not at the layout's next pass
        return self.reasoning

    def show_call(self, call: dict[str, Any]) -> None:
        """Show a tool call of this reply (or its new state), above the reply's text."""
        call_id = str(call.get("id", ""))
        card = self.call_cards.get(call_id)
        if card is not None:
            card.update_call(call)
            return
        card = ToolCallCard(call)
        card.decided.connect(self.call_decided.emit)
        self.call_cards[call_id] = card
        self._outer.insertWidget(self._outer.indexOf(self.text_box), card)
        card.setVisible(True)
        if self.waiting.isVisible() and call.get("state") == "asking":
            self.waiting.setVisible(False)

    def _show_sources(self) -> None:
        if self.role != "assistant" or "documents" not in self.meta:
            if self.sources_panel is not None:
                self.sources_panel.setVisible(False)
            return
        if self.sources_panel is None:
            self.sources_panel = SourcesPanel(self.colors)
            self.sources_panel.open_requested.connect(open_source)
            self._outer.insertWidget(self._outer.indexOf(self.footer), self.sources_panel)
        self.sources_panel.show_sources(self.meta, self.text)

    def set_images(self, refs: Sequence[ImageRef]) -> None:
        """Show the message's images above its text (a user's message)."""
        if self.images is not None:
            self.images.setParent(None)
            self.images.deleteLater()
            self.images = None
        if not refs:
            return
        self.images = MessageImages(refs)
        holder = self.text_box.parentWidget()
        layout = holder.layout() if holder is not None else None
        if isinstance(layout, QVBoxLayout) and layout is not self._outer:
            layout.insertWidget(layout.indexOf(self.text_box), self.images)
        else:
            self._outer.insertWidget(self._outer.indexOf(self.text_box), self.images)
        self.images.setVisible(True)
        self._show_text_box()

    def _show_text_box(self) -> None:
        # A message of images alone has no empty line under them.
        self.text_box.setVisible(self.images is None or bool(self.text.strip()))

    def set_image_paths(self, paths: Sequence[Path]) -> None:
        if self.images is not None:
            self.images.set_paths(paths)

    def set_waiting_text(self, text: str) -> None:
        self.waiting.setText(text)

    def set_colors(self, colors: Colors) -> None:
        self.colors = colors
        text, finished = self.text, self.renderer.finished
        self._reset_renderer()
        if finished:
            self.renderer.set_text(self._as_shown(text))
        else:
            self.renderer.append(text)
        if self.sources_panel is not None:
            self.sources_panel.colors = colors
            self._show_sources()

    def _new_body(self) -> MessageBody:
        body = MessageBody()
        # A screen reader says whose words these are, then reads them (its text interface).
        speaker = self.role_label.text() if hasattr(self, "role_label") else ""
        if self.role == "user":
            body.setAccessibleName(tr("Message", "Your message"))
        elif speaker:
            body.setAccessibleName(tr("Message", "Reply from {speaker}").format(speaker=speaker))
        else:
            body.setAccessibleName(tr("Message", "Reply from the model"))
        body.anchorClicked.connect(self._anchor_clicked)
        self.text_layout.addWidget(body)
        self.bodies.append(body)
        return body

    def _next_document(self) -> QTextDocument:
        return self._new_body().document()

    def _new_renderer(self) -> MessageRenderer:
        return MessageRenderer(self.body.document(), self.colors, self._next_document)

    def _reset_renderer(self) -> None:
        for body in self.bodies[1:]:
            body.setParent(None)
            body.deleteLater()
        self.bodies = [self.body]
        self.body.document().clear()
        self.renderer = self._new_renderer()
        self._written = None

    def to_html(self) -> str:
        """The rendered text of every document, for comparing renderings."""
        return "".join(body.toHtml() for body in self.bodies)

    # -- status, actions -----------------------------------------------------------------------

    def set_busy(self, busy: bool) -> None:
        """While any reply is being written, actions that change the conversation wait."""
        self._busy = busy
        self._update_actions()

    def set_can_regenerate(self, can: bool) -> None:
        shown = can and self.role == "assistant"
        if shown == self._can_regenerate:
            return
        self._can_regenerate = shown
        self.regenerate_button.setVisible(shown)
        self.regenerate_with_button.setVisible(shown)

    def set_message_id(self, message_id: int | None) -> None:
        self.message_id = message_id
        self._update_actions()

    def set_versions(self, versions: tuple[int, ...]) -> None:
        """The versions of this turn (empty: it has one), this message being one of them."""
        if versions == self.versions:
            return  # a long chat's unchanged messages cost nothing when a version flips
        self.versions = versions
        self._update_actions()

    def _fill_regenerate_menu(self) -> None:
        self.action_row.fill_regenerate_menu(
            self.models(), lambda name: self.regenerate_requested.emit(self, name)
        )

    def _update_actions(self) -> None:
        saved = self.message_id is not None
        streaming = self.status == "streaming"
        free = saved and not streaming and not self._busy
        stopped_short = ReplyMeta.of(self.meta).finish_reason == "length"
        can_continue = self.role == "assistant" and stopped_short and self.status == "complete"
        self.action_row.update(free, streaming, can_continue)
        index = self.versions.index(self.message_id) + 1 if self.message_id in self.versions else 1
        self.version_switch.set_version(index, max(1, len(self.versions)), enabled=free)

    def set_unsaved(self, on: bool) -> None:
        """Say the reply is on screen but not in the history yet (the disk is full)."""
        if not on:
            self.badge.setToolTip("")
            self._show_status()
            return
        self.badge.setText(tr("Message", "Not saved yet"))
        self.badge.setToolTip(
            tr("Message", "The disk is full: Cove saves this reply as soon as there is room.")
        )
        self.badge.setObjectName("ErrorBadge")
        self.badge.style().unpolish(self.badge)
        self.badge.style().polish(self.badge)
        self.badge.setVisible(True)

    def _show_status(self) -> None:
        meta = ReplyMeta.of(self.meta)
        badge = status_badge(self.status, cancelled=meta.finish_reason == "cancelled")
        if badge:
            self.badge.setText(badge[0])
            self.badge.setObjectName(badge[1])
            self.badge.style().unpolish(self.badge)
            self.badge.style().polish(self.badge)
            self.badge.setVisible(True)
        else:
            self.badge.setVisible(False)
        parts = figures(meta)
        self.footer.setText(" · ".join(parts))
        self.footer.setVisible(bool(parts) and self.role == "assistant")
        said = notices(meta, self.status)
        self.notice.setText("\n".join(said))
        self.notice_frame.setVisible(bool(said))

    # -- copying, editing ----------------------------------------------------------------------

    def copy_message(self) -> None:
        QGuiApplication.clipboard().setText(self.shown)  # as read, citations included
        self.copy_done.emit(tr("Message", "Message copied"))

    def _anchor_clicked(self, url: QUrl) -> None:
        index = copy_index(url.toString())
        if index is not None and index < len(self.renderer.code_blocks):
            QGuiApplication.clipboard().setText(self.renderer.code_blocks[index])
            self.copy_done.emit(tr("Message", "Code copied"))
        elif url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)

    @property
    def editor(self) -> QPlainTextEdit:
        return self.edit_box.editor

    def start_editing(self) -> None:
        self.edit_box.start(self.text, self.text_box.height())

    def stop_editing(self) -> None:
        self.edit_box.stop()

    @property
    def editing(self) -> bool:
        return self.edit_box.editing

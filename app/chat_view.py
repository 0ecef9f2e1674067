"""The conversation: a scrolling column of messages that keeps the newest text in view."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.message_widget import MessageWidget
from app.theme import Colors

if TYPE_CHECKING:
    from engine.store import Message

# The text column stops growing here, so lines stay readable on a 4K screen.
MAX_COLUMN_WIDTH = 880
PIN_SLACK_PX = 48
# Building a long conversation's widgets is spread over event-loop turns so that opening it never
# freezes the window: about this much work per turn.
BUILD_SLICE_S = 0.012


class ChatView(QScrollArea):
    """Message widgets in order. The controller decides what they show; the view lays them out,
    keeps the view pinned to the bottom while the user is there, and forwards their actions."""

    edit_submitted = Signal(object, str)
    regenerate_requested = Signal(object)
    delete_requested = Signal(object)
    copy_done = Signal(str)
    conversation_shown = Signal()

    def __init__(self, colors: Colors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatScroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.colors = colors
        self.assistant_label = "Cove"
        self._widgets: list[MessageWidget] = []
        self._pinned = True
        self._pending: list[Any] = []
        self._building: MessageWidget | None = None
        self._building_message: Any = None
        self._focus: int | None = None
        self._generation = 0  # which set_messages call a pending batch belongs to

        contents = QWidget()
        contents.setObjectName("ChatContents")
        row = QHBoxLayout(contents)
        row.setContentsMargins(24, 16, 24, 16)
        row.addStretch(1)
        self.column = QWidget()
        self.column.setMaximumWidth(MAX_COLUMN_WIDTH)
        self.column.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.layout_ = QVBoxLayout(self.column)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(8)
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setProperty("muted", True)
        self.placeholder.setText(
            "<p style='font-size:15pt'>Ask anything.</p>"
            "<p>Replies are written on this computer; nothing you type leaves it.</p>"
        )
        self.layout_.addWidget(self.placeholder)
        self.layout_.addStretch(1)
        row.addWidget(self.column, 100)
        row.addStretch(1)
        self.setWidget(contents)

        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._value_changed)

    # -- messages ------------------------------------------------------------------------------

    @property
    def messages(self) -> list[MessageWidget]:
        return list(self._widgets)

    def clear(self) -> None:
        self._generation += 1
        self._pending = []
        self._building = None
        for widget in self._widgets:
            widget.setParent(None)
            widget.deleteLater()
        self._widgets = []
        self.placeholder.setVisible(True)

    def set_messages(
        self,
        messages: Sequence[Message],
        live: Callable[[int], str | None] | None = None,
        focus: int | None = None,
    ) -> None:
        """Show a conversation. ``live(id)`` gives the text so far of a reply still being
        written (asked when its widget is built, so no text arriving meanwhile is missed).
        ``focus`` is a message to scroll to (a search hit) instead of the end.

        Widgets are built newest first, above one another, a few milliseconds of work per
        event-loop turn, so a long conversation shows its end at once and never freezes the
        window; ``conversation_shown`` says when all are built."""
        self.clear()
        self._pinned = True
        self._focus = focus
        self._pending = list(reversed(messages))
        self.placeholder.setVisible(not messages)
        self._build_batch(self._generation, live or (lambda _id: None))

    def _build_batch(self, generation: int, live: Callable[[int], str | None]) -> None:
        if generation != self._generation:
            return
        deadline = time.perf_counter() + BUILD_SLICE_S
        while self._building is not None or self._pending:
            if self._building is None:
                message = self._pending.pop(0)
                widget = self._create(
                    message.role,
                    message_id=message.id,
                    status=message.status,
                    meta=message.meta,
                    label=self._label_for(message.role, message.meta),
                    index=0,
                )
                text = live(message.id)
                if text is not None:
                    widget.start_stream(text)
                    continue
                widget.load_text(message.content)
                self._building = widget
                self._building_message = message
            if not self._building.load_step(deadline):
                break  # out of time in the middle of a long message
            self._building.finish(self._building_message.status, self._building_message.meta)
            self._building = None
            if time.perf_counter() >= deadline:
                break
        if self._building is not None or self._pending:
            QTimer.singleShot(0, lambda: self._build_batch(generation, live))
        else:
            self.update_regenerate()
            target = self.message_widget(self._focus)
            if target is None:
                self.scroll_to_bottom()
            else:
                self._pinned = False
                # After the layout has placed the new widgets.
                QTimer.singleShot(0, lambda: self.ensureWidgetVisible(target, 0, 80))
            self.conversation_shown.emit()

    def _label_for(self, role: str, meta: dict[str, Any]) -> str:
        if role == "user":
            return "You"
        return str(meta.get("model") or self.assistant_label)

    def add_message(
        self,
        role: str,
        *,
        message_id: int | None = None,
        status: str = "complete",
        meta: dict[str, Any] | None = None,
        label: str | None = None,
    ) -> MessageWidget:
        """A new message at the end."""
        return self._create(
            role, message_id=message_id, status=status, meta=meta, label=label, index=None
        )

    def _create(
        self,
        role: str,
        *,
        message_id: int | None,
        status: str,
        meta: dict[str, Any] | None,
        label: str | None,
        index: int | None,
    ) -> MessageWidget:
        widget = MessageWidget(
            role,
            self.colors,
            message_id=message_id,
            status=status,
            label=label or self._label_for(role, meta or {}),
        )
        widget.meta = dict(meta or {})
        widget.edit_submitted.connect(self.edit_submitted)
        widget.regenerate_requested.connect(self.regenerate_requested)
        widget.delete_requested.connect(self.delete_requested)
        widget.copy_done.connect(self.copy_done)
        if index is None:
            self.layout_.insertWidget(self.layout_.count() - 1, widget)
            self._widgets.append(widget)
        else:  # above the messages built so far (after the placeholder)
            self.layout_.insertWidget(1 + index, widget)
            self._widgets.insert(index, widget)
        self.placeholder.setVisible(False)
        return widget

    def remove(self, widgets: Sequence[MessageWidget]) -> None:
        for widget in widgets:
            if widget in self._widgets:
                self._widgets.remove(widget)
                widget.setParent(None)
                widget.deleteLater()
        self.placeholder.setVisible(not self._widgets)
        self.update_regenerate()

    def widgets_from(self, widget: MessageWidget) -> list[MessageWidget]:
        """``widget`` and every message after it."""
        if widget not in self._widgets:
            return []
        return self._widgets[self._widgets.index(widget) :]

    def message_widget(self, message_id: int | None) -> MessageWidget | None:
        if message_id is None:
            return None
        for widget in reversed(self._widgets):
            if widget.message_id == message_id:
                return widget
        return None

    def set_busy(self, busy: bool) -> None:
        for widget in self._widgets:
            widget.set_busy(busy)

    def update_regenerate(self) -> None:
        """Only the last reply can be written again."""
        last = self._widgets[-1] if self._widgets else None
        for widget in self._widgets:
            widget.set_can_regenerate(widget is last and widget.role == "assistant")

    def set_colors(self, colors: Colors) -> None:
        self.colors = colors
        for widget in self._widgets:
            widget.set_colors(colors)

    # -- scrolling -----------------------------------------------------------------------------

    def scroll_to_bottom(self) -> None:
        self._pinned = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _range_changed(self, _low: int, high: int) -> None:
        if self._pinned:
            self.verticalScrollBar().setValue(high)

    def _value_changed(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._pinned = value >= bar.maximum() - PIN_SLACK_PX

    @property
    def pinned(self) -> bool:
        return self._pinned

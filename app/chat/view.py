"""The conversation: a scrolling column of messages that keeps the newest text in view."""

from __future__ import annotations

import html
import itertools
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.chat.message.document import text_ready
from app.chat.message.images import stored_refs
from app.chat.message.widget import MessageWidget
from app.common.i18n import tr
from app.common.theme import Colors
from engine.store import ReplyMeta

if TYPE_CHECKING:
    from engine.store import Message

# The text column stops growing here, so lines stay readable on a 4K screen.
MAX_COLUMN_WIDTH = 880
PIN_SLACK_PX = 48
# Building a long conversation's widgets is spread over event-loop turns so that opening it never
# freezes the window: about this much work per turn.
BUILD_SLICE_S = 0.012
WARM_UP_POLL_MS = 10
# The next slice is started by a timer, not a posted call: posted calls run back to back before
# the event loop looks at timers and input again, which would make the slices one long freeze.
NEXT_SLICE_MS = 1
# Widgets taken out of the chat are deleted this many per event-loop turn.
DELETE_SLICE = 4
# Messages built when a conversation opens; older ones are built on request.
SHOWN_AT_ONCE = 40


class ChatView(QScrollArea):
    """Message widgets in order. The controller decides what they show; the view lays them out,
    keeps the view pinned to the bottom while the user is there, and forwards their actions."""

    edit_submitted = Signal(object, str)
    regenerate_requested = Signal(object, object)  # (MessageWidget, model or None)
    delete_requested = Signal(object)
    version_requested = Signal(object, int)
    branch_requested = Signal(object)
    continue_requested = Signal(object)
    copy_done = Signal(str)
    conversation_shown = Signal()

    def __init__(self, colors: Colors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatScroll")
        self.setAccessibleName(tr("Chat", "Messages"))
        # Tab goes through the messages in reading order, before the composer (built first).
        self._tab_timer = QTimer(self)
        self._tab_timer.setSingleShot(True)
        self._tab_timer.timeout.connect(self.order_tabs)
        self.conversation_shown.connect(lambda: self._tab_timer.start(0))
        self.after: QWidget | None = None  # what Tab reaches after the last message
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
        self._older: list[Any] = []
        self._scroll_when_built = True
        self._live: Callable[[int], str | None] = lambda _id: None
        # The installed chat models a reply can be written again with: (name, label).
        self.models: Callable[[], list[tuple[str, str]]] = list
        self._generation = 0  # which set_messages call a pending batch belongs to
        self._doomed: list[MessageWidget] = []  # hidden, waiting to be deleted
        self._deleting = False

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
        self.set_engine_place(None)
        self.earlier_button = QPushButton(tr("Chat", "Show earlier messages"))
        self.earlier_button.setObjectName("Secondary")
        self.earlier_button.setVisible(False)
        self.earlier_button.clicked.connect(self.show_earlier)
        self.layout_.addWidget(self.earlier_button, 0, Qt.AlignmentFlag.AlignHCenter)
        self.layout_.addWidget(self.placeholder)
        self.layout_.addStretch(1)
        row.addWidget(self.column, 100)
        row.addStretch(1)
        self.setWidget(contents)

        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._value_changed)

    def set_engine_place(self, where: str | None) -> None:
        """Where replies are written: this computer (None) or another's engine, by name."""
        said = (
            tr("Chat", "Replies are written on this computer; nothing you type leaves it.")
            if where is None
            else tr(
                "Chat",
                "Replies are written by the engine on {where}: what you send goes there. Your "
                "chat history stays on this computer.",
            ).format(where=html.escape(where))
        )
        ask = tr("Chat", "Ask anything.")
        self.placeholder.setText(f"<p style='font-size:15pt'>{ask}</p><p>{said}</p>")

    # -- messages ------------------------------------------------------------------------------

    @property
    def messages(self) -> list[MessageWidget]:
        return list(self._widgets)

    def clear(self) -> None:
        self._generation += 1
        self._pending = []
        self._older = []
        self._building = None
        self.earlier_button.setVisible(False)
        self._discard(self._widgets)
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

        Only the newest ``SHOWN_AT_ONCE`` messages (or back to ``focus``) are built; older ones
        wait behind "Show earlier messages". Widgets are built newest first, above one another,
        a few milliseconds of work per event-loop turn, so a long conversation shows its end at
        once and never freezes the window; ``conversation_shown`` says when all are built."""
        self.clear()
        self._pinned = True
        self._focus = focus
        self._scroll_when_built = True
        self._live = live or (lambda _id: None)
        older = list(messages)
        ids = [m.id for m in older]
        take = SHOWN_AT_ONCE
        if focus in ids:
            take = max(take, len(ids) - ids.index(focus) + 2)
        self._older = older[:-take] if len(older) > take else []
        self._pending = list(reversed(older[-take:]))
        self.placeholder.setVisible(not messages)
        self._update_earlier_button()
        self._build_batch(self._generation, self._live)

    def show_earlier(self) -> None:
        """Build the next older messages above the ones shown."""
        if not self._older or self._pending or self._building is not None:
            return
        batch, self._older = self._older[-SHOWN_AT_ONCE:], self._older[:-SHOWN_AT_ONCE]
        self._pending = list(reversed(batch))
        self._scroll_when_built = False
        self._update_earlier_button()
        self._build_batch(self._generation, self._live)

    def _update_earlier_button(self) -> None:
        count = len(self._older)
        self.earlier_button.setText(
            tr("Chat", "Show 1 earlier message")
            if count == 1
            else tr("Chat", "Show {n} earlier messages").format(n=count)
        )
        self.earlier_button.setVisible(bool(count))

    def has_images(self) -> bool:
        """Whether any message of the conversation, shown or not, has images."""
        unbuilt = self._older + self._pending
        return any(m.images for m in unbuilt) or any(w.images is not None for w in self._widgets)

    def history(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(role, text, meta) of every message of the conversation, shown or not, in order."""
        unbuilt = self._older + list(reversed(self._pending))  # older than every widget
        items = [(m.role, m.content, m.meta) for m in unbuilt]
        items += [(w.role, w.text, w.meta) for w in self._widgets if not w.hidden_for_undo]
        return items

    def _build_batch(self, generation: int, live: Callable[[int], str | None]) -> None:
        if generation != self._generation:
            return
        if not text_ready():  # the start-up warm-up is importing what rendering needs
            # With the view as context: a view closed meanwhile cancels the poll.
            QTimer.singleShot(WARM_UP_POLL_MS, self, lambda: self._build_batch(generation, live))
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
                if message.images:
                    widget.set_images(stored_refs(message.images))
                widget.set_versions(message.versions)
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
            QTimer.singleShot(NEXT_SLICE_MS, self, lambda: self._build_batch(generation, live))
        elif self._scroll_when_built:
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
            return tr("Chat", "You")
        return ReplyMeta.of(meta).speaker or self.assistant_label

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
        widget.set_can_regenerate(role == "assistant")  # any reply: a new version goes beside it
        widget.edit_submitted.connect(self.edit_submitted)
        widget.regenerate_requested.connect(self.regenerate_requested)
        widget.delete_requested.connect(self.delete_requested)
        widget.version_requested.connect(self.version_requested)
        widget.branch_requested.connect(self.branch_requested)
        widget.continue_requested.connect(self.continue_requested)
        widget.models = lambda: self.models()
        widget.copy_done.connect(self.copy_done)
        if index is None:
            self.layout_.insertWidget(self.layout_.count() - 1, widget)
            self._widgets.append(widget)
        else:  # above the messages built so far
            first = self.layout_.indexOf(self._widgets[0]) if self._widgets else None
            at = first if first is not None else self.layout_.count() - 1
            self.layout_.insertWidget(at + index, widget)
            self._widgets.insert(index, widget)
        self.placeholder.setVisible(False)
        self._tab_timer.start(0)
        return widget

    def order_tabs(self) -> None:
        """Tab's order inside the chat: each message's controls top to bottom, as they stand."""
        chain: list[QWidget] = [self.earlier_button]
        for message in self._widgets:
            if message.isHidden():
                continue
            controls = [
                w
                for w in message.findChildren(QWidget)
                if w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus
                and w.focusProxy() is None
            ]
            controls.sort(
                key=lambda w: (
                    w.mapTo(message, QPoint(0, 0)).y(),
                    w.mapTo(message, QPoint(0, 0)).x(),
                )
            )
            chain.extend(controls)
        if self.after is not None:
            chain.append(self.after)  # the composer comes after the last message
        for before, after in itertools.pairwise(chain):
            QWidget.setTabOrder(before, after)

    def remove(self, widgets: Sequence[MessageWidget]) -> None:
        gone = [w for w in widgets if w in self._widgets]
        doomed = set(gone)
        self._widgets = [w for w in self._widgets if w not in doomed]
        self._discard(gone)
        self.placeholder.setVisible(not self._widgets)
        self.update_regenerate()

    def _discard(self, widgets: Sequence[MessageWidget]) -> None:
        """Take widgets out of the column at once, and delete them a few per event-loop turn:
        unparenting or deleting hundreds in one go (a long chat closed, a version flipped far
        up) would freeze the window for a third of a second."""
        for widget in widgets:
            self.layout_.removeWidget(widget)
            widget.hide()
        self._doomed.extend(widgets)
        if self._doomed and not self._deleting:
            self._deleting = True
            QTimer.singleShot(NEXT_SLICE_MS, self._delete_some)

    def _delete_some(self) -> None:
        batch, self._doomed = self._doomed[:DELETE_SLICE], self._doomed[DELETE_SLICE:]
        for widget in batch:
            widget.deleteLater()
        if self._doomed:
            QTimer.singleShot(NEXT_SLICE_MS, self._delete_some)
        else:
            self._deleting = False

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
        """Any reply can be written again: the new version is added beside it."""
        for widget in self._widgets:
            widget.set_can_regenerate(widget.role == "assistant")

    def replace_tail(self, messages: Sequence[Message]) -> None:
        """Show another path of the same conversation (a version flipped): the widgets it
        shares with the path shown stay as they are, the rest are built anew."""
        if self._pending or self._building is not None or self._older:
            self.set_messages(messages, self._live)
            return
        keep = 0
        for widget, message in zip(self._widgets, messages, strict=False):
            if widget.message_id != message.id:
                break
            widget.set_versions(message.versions)
            keep += 1
        self.remove(self._widgets[keep:])
        self._pending = list(messages[keep:])
        self._scroll_when_built = False
        self._build_at_end(self._generation)

    def _build_at_end(self, generation: int) -> None:
        """Build the pending messages below those shown, a slice per event-loop turn."""
        if generation != self._generation:
            return
        deadline = time.perf_counter() + BUILD_SLICE_S
        while self._pending and time.perf_counter() < deadline:
            message = self._pending.pop(0)
            widget = self.add_message(
                message.role, message_id=message.id, status=message.status, meta=message.meta
            )
            if message.images:
                widget.set_images(stored_refs(message.images))
            widget.set_versions(message.versions)
            widget.set_text(message.content)
            widget.finish(message.status, message.meta)
        if self._pending:
            QTimer.singleShot(NEXT_SLICE_MS, lambda: self._build_at_end(generation))
        else:
            self.update_regenerate()
            self.conversation_shown.emit()

    def set_hidden(self, widgets: Sequence[MessageWidget], hidden: bool) -> None:
        """Hide messages while their delete can still be undone (they are still on disk)."""
        for widget in widgets:
            widget.setVisible(not hidden)
            widget.hidden_for_undo = hidden

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

"""Delete, with Undo: a message disappears at once and leaves the disk only when the chance to
bring it back is over (a few seconds, another action in the chat, or closing the window).

The widgets are hidden meanwhile; the history still holds the message, so a crash or a kill in
those seconds loses nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.common.i18n import tr

if TYPE_CHECKING:
    from app.chat.message.widget import MessageWidget
    from app.chat.view import ChatView
    from engine.store import Message, Store

UNDO_MS = 8000  # how long a deleted message can be brought back


@dataclass(eq=False)
class PendingDelete:
    message_id: int
    widgets: list[MessageWidget]  # hidden meanwhile
    view_token: int  # which opening of the chat view it was deleted from


class UndoDelete(QObject):
    # What to say while a delete can be undone ("" when the chance is over).
    offered = Signal(str)

    def __init__(
        self,
        view: ChatView,
        io: Callable[[Callable[[Store], Any], Callable[[Any], None]], None],
        opening: Callable[[], int],
        changed: Callable[[], None],
    ) -> None:
        super().__init__()
        self.view = view
        self._io = io  # runs a job on the history off the UI thread, then its callback
        self._opening = opening  # which opening of the chat view is on screen
        self._changed = changed  # the conversation shown changed (the context meter follows)
        self.pending: PendingDelete | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(UNDO_MS)
        self.timer.timeout.connect(lambda: self.commit())

    def delete(self, widget: MessageWidget) -> None:
        """Hide the message (a version with what followed it) and offer to bring it back."""
        if widget.message_id is None:
            return
        self.commit()
        hidden = [widget]
        if len(widget.versions) > 1:  # a version goes with what followed it
            hidden = self.view.widgets_from(widget)
        self.view.set_hidden(hidden, True)
        self.pending = PendingDelete(widget.message_id, hidden, self._opening())
        if widget.role == "assistant":
            self.offered.emit(tr("Chat", "Reply deleted."))
        else:
            self.offered.emit(tr("Chat", "Message deleted."))
        self.timer.start()
        self._changed()

    def undo(self) -> bool:
        """Bring back the message being deleted; False when there is none."""
        pending, self.pending = self.pending, None
        self.timer.stop()
        self.offered.emit("")
        if pending is None:
            return False
        if pending.view_token == self._opening():
            self.view.set_hidden(pending.widgets, False)
            self._changed()
        return True

    def commit(self, then: Callable[[], None] | None = None) -> None:
        """Delete from disk what is waiting to be; ``then`` runs once it is gone (at once when
        nothing waits), so that what follows works on the chat as shown."""
        pending, self.pending = self.pending, None
        self.timer.stop()
        if pending is None:
            if then is not None:
                then()
            return
        self.offered.emit("")
        message_id = pending.message_id

        def gone(path: list[Message]) -> None:
            if pending.view_token == self._opening():
                self.view.remove([w for w in pending.widgets if w in self.view.messages])
                self.view.replace_tail(path)
                self._changed()
            if then is not None:
                then()

        def job(store: Store) -> list[Message]:
            message = store.get_message(message_id)
            store.delete_message(message_id)
            return store.messages(message.conversation_id) if message is not None else []

        self._io(job, gone)

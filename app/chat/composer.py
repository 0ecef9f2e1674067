"""Where the user writes: Enter sends, Shift+Enter starts a new line, Esc stops a reply.

Images come in by the attach button, a drop or a paste (app/chat/attachments.py) and wait as
thumbnails above the text until the message is sent. Documents given the same ways (PDF, DOCX,
HTML, Markdown, text) are handed to the chat's own collection (app/chat/chat_files.py) and shown
above the text for as long as they belong to the chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFocusEvent, QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
)

from app.chat.attachments import (
    IMAGE_PATTERNS,
    MAX_IMAGES,
    Attachment,
    ImageSource,
    carries_images,
    file_filter,
    read_source,
    sources_from_mime,
)
from app.chat.chat_files import ChatFile, is_document
from app.chat.files_strip import FilesStrip
from app.chat.image_strip import ImageStrip
from app.common.i18n import tr
from app.common.workers import WorkerPool

MAX_LINES = 8
DOCUMENT_PATTERNS = "*.pdf *.docx *.html *.htm *.md *.markdown *.txt *.text"


def no_documents() -> str:
    """The "Answer from" choice of no collection."""
    return tr("Chat", "No documents")


class ComposerEdit(QPlainTextEdit):
    submitted = Signal()
    stop_requested = Signal()
    focus_changed = Signal(bool)
    images_given = Signal(object)  # QMimeData with images, pasted or dropped on the text

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return carries_images(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        # Paste and drop both land here: images go to the composer's strip, text into the text.
        if carries_images(source):
            self.images_given.emit(source)
            return
        super().insertFromMimeData(source)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.stop_requested.emit()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.focus_changed.emit(True)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.focus_changed.emit(False)


class Composer(QFrame):
    """Emits ``send_requested`` with the text; the owner clears it (``take_text``, and
    ``take_images`` for the attached images) once the message is accepted, so nothing typed or
    attached is lost when it cannot be sent yet."""

    send_requested = Signal(str)
    stop_requested = Signal()
    collection_changed = Signal(str)  # the collection to answer from; "" for none
    images_changed = Signal()  # an image was attached or removed
    documents_given = Signal(list)  # list[Path]: documents for the chat's own collection
    file_remove_requested = Signal(str)  # a chat file's path

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("Composer")
        self.setAcceptDrops(True)
        self._generating = False
        self.attachments: list[Attachment] = []
        self._reading = 0  # images being read
        self._send_when_read = False
        self.pool = WorkerPool("images", 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(4)
        self.files_strip = FilesStrip()
        self.files_strip.remove_requested.connect(self.file_remove_requested)
        layout.addWidget(self.files_strip)
        self.strip = ImageStrip()
        self.strip.remove_requested.connect(self.remove_image)
        layout.addWidget(self.strip)
        self.image_error = QLabel("")
        self.image_error.setObjectName("ImageError")
        self.image_error.setWordWrap(True)
        self.image_error.setVisible(False)
        layout.addWidget(self.image_error)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.attach_button = QToolButton()
        self.attach_button.setObjectName("AttachButton")
        self.attach_button.setText("+")
        self.attach_button.setToolTip(
            tr(
                "Chat",
                "Attach documents (PDF, Word, HTML, Markdown, text) for replies to answer from, "
                "or images (up to {n} a message); you can also drop them here",
            ).format(n=MAX_IMAGES)
        )
        self.attach_button.setAccessibleName(tr("Chat", "Attach files"))
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attach_button.clicked.connect(self.choose_files)
        self.edit = ComposerEdit()
        self.edit.setFrameShape(QFrame.Shape.NoFrame)
        self.edit.setPlaceholderText(
            tr("Chat", "Message Cove  (Enter to send, Shift+Enter for a new line)")
        )
        self.edit.setAccessibleName(tr("Chat", "Message"))
        self.edit.setTabChangesFocus(True)
        self.edit.setStyleSheet("QPlainTextEdit { background: transparent; }")
        self.edit.document().contentsChanged.connect(self._fit_height)
        self.edit.submitted.connect(self._submit)
        self.edit.stop_requested.connect(self.stop_requested)
        self.edit.focus_changed.connect(self._focus_changed)
        self.edit.images_given.connect(self.add_from_mime)
        self.button = QPushButton(tr("Chat", "Send"))
        self.button.setObjectName("Primary")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.clicked.connect(self._button_clicked)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addLayout(row)
        under = QHBoxLayout()
        under.setSpacing(6)
        self.documents_label = QLabel(tr("Chat", "Answer from"))
        self.documents_label.setProperty("muted", True)
        self.documents = QComboBox()
        self.documents.setObjectName("DocumentsChoice")
        self.documents.setToolTip(
            tr(
                "Chat",
                "Answer from a document collection: the reply cites its passages by file and page",
            )
        )
        self.documents.addItem(no_documents(), "")
        self.documents.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.documents.currentIndexChanged.connect(
            lambda _i: self.collection_changed.emit(self.collection)
        )
        self.hint = QLabel("")
        self.hint.setProperty("muted", True)
        self.hint.setWordWrap(True)
        self.hint.setVisible(False)
        under.addWidget(self.documents_label)
        under.addWidget(self.documents)
        under.addWidget(self.hint, 1)
        under.addStretch(0)
        layout.addLayout(under)
        self.set_collections([])
        self._fit_height()

    @property
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)

    def take_text(self) -> str:
        text = self.edit.toPlainText()
        self.edit.clear()
        return text

    def set_generating(self, generating: bool) -> None:
        self._generating = generating
        self.button.setText(tr("Chat", "Stop") if generating else tr("Chat", "Send"))
        self.button.setToolTip(
            tr("Chat", "Stop the reply (Esc)") if generating else tr("Chat", "Send (Enter)")
        )

    @property
    def collection(self) -> str:
        """The collection chosen to answer from, or "" for none."""
        return str(self.documents.currentData() or "")

    def set_collections(self, names: list[str]) -> None:
        """The collections there are to answer from; the choice stays while it exists."""
        chosen = self.collection
        self.documents.blockSignals(True)
        self.documents.clear()
        self.documents.addItem(no_documents(), "")
        for name in names:
            self.documents.addItem(name, name)
        index = self.documents.findData(chosen) if chosen in names else 0
        self.documents.setCurrentIndex(max(index, 0))
        self.documents.blockSignals(False)
        shown = bool(names)
        self.documents.setVisible(shown)
        self.documents_label.setVisible(shown)
        if self.collection != chosen:
            self.collection_changed.emit(self.collection)

    def choose_collection(self, name: str) -> None:
        index = self.documents.findData(name)
        if index >= 0:
            self.documents.setCurrentIndex(index)

    def set_hint(self, text: str) -> None:
        self.hint.setText(text)
        self.hint.setVisible(bool(text))

    def focus(self) -> None:
        self.edit.setFocus()

    # -- images ----------------------------------------------------------------------------------

    @property
    def reading(self) -> bool:
        """Whether images given are still being read (they join the strip when read)."""
        return self._reading > 0

    def choose_files(self) -> QFileDialog:
        """The file dialog, opened without blocking the window (a screen reader's press of
        Attach files returns at once); the files chosen are added when it is accepted."""
        dialog = QFileDialog(
            self,
            tr("Chat", "Attach files"),
            str(Path.home()),
            ";;".join(
                (
                    tr("Chat", "Documents and images ({patterns})").format(
                        patterns=f"{DOCUMENT_PATTERNS} {IMAGE_PATTERNS}"
                    ),
                    tr("Chat", "Documents ({patterns})").format(patterns=DOCUMENT_PATTERNS),
                    file_filter(),
                    tr("Chat", "All files (*)"),
                )
            ),
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.filesSelected.connect(lambda paths: self.add_files([Path(p) for p in paths]))
        # The keyboard comes back to the window, also where no window manager gives it back.
        dialog.finished.connect(lambda _result: self.window().activateWindow())
        dialog.open()
        return dialog

    def add_files(self, paths: Sequence[Path]) -> None:
        """Files given to the composer: documents go to the chat, the rest are read as images."""
        documents = [p for p in paths if is_document(p)]
        if documents:
            self.documents_given.emit(documents)
        self._add([ImageSource(p.name, path=p) for p in paths if not is_document(p)])

    def set_files(self, files: Sequence[ChatFile]) -> None:
        """The chat's own files, with how far each is read."""
        self.files_strip.set_files(files)

    def add_image_bytes(self, data: bytes, name: str) -> None:
        self._add([ImageSource(name, data=data)])

    def add_from_mime(self, mime: QMimeData) -> None:
        """A drop or a paste: its documents and image files, or the image it holds."""
        sources = sources_from_mime(mime)
        documents = [s.path for s in sources if s.path is not None and is_document(s.path)]
        if documents:
            self.documents_given.emit(documents)
        self._add([s for s in sources if s.path is None or not is_document(s.path)])

    def _add(self, sources: Sequence[ImageSource]) -> None:
        room = MAX_IMAGES - len(self.attachments) - self._reading
        if not sources:
            return
        errors: list[str] = []
        if len(sources) > room:
            left = len(sources) - max(room, 0)
            errors.append(
                tr("Chat", "A message takes up to {max} images: 1 was not attached.").format(
                    max=MAX_IMAGES
                )
                if left == 1
                else tr(
                    "Chat", "A message takes up to {max} images: {n} were not attached."
                ).format(max=MAX_IMAGES, n=left)
            )
            sources = sources[: max(room, 0)]
        self._show_errors(errors)
        for source in sources:
            self._reading += 1
            self.pool.submit(partial(read_source, source), self._read, self._read_failed)

    def _read(self, attachment: Attachment) -> None:
        self._reading -= 1
        self.attachments.append(attachment)
        self.strip.set_attachments(self.attachments)
        self.images_changed.emit()
        self._after_read()

    def _read_failed(self, exc: BaseException) -> None:
        self._reading -= 1
        self._show_errors([str(exc)], keep=True)
        self._after_read()

    def _after_read(self) -> None:
        if self._reading == 0 and self._send_when_read:
            self._send_when_read = False
            self._submit()

    def _show_errors(self, errors: list[str], keep: bool = False) -> None:
        if keep and self.image_error.isVisible():
            errors = [self.image_error.text(), *errors]
        self.image_error.setText("\n".join(e.strip() for e in errors if e.strip()))
        self.image_error.setVisible(bool(self.image_error.text()))

    def remove_image(self, index: int) -> None:
        if 0 <= index < len(self.attachments):
            del self.attachments[index]
            self.strip.set_attachments(self.attachments)
            self._show_errors([])
            self.images_changed.emit()

    def take_images(self) -> list[Attachment]:
        taken, self.attachments = self.attachments, []
        self.strip.set_attachments([])
        self._show_errors([])
        self.images_changed.emit()
        return taken

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if carries_images(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if carries_images(event.mimeData()):
            self.add_from_mime(event.mimeData())
            event.acceptProposedAction()
        else:
            super().dropEvent(event)

    def _submit(self) -> None:
        if self.reading:  # Enter right after a paste: send once the image is read
            self._send_when_read = True
            return
        if self.text.strip() or self.attachments:
            self.send_requested.emit(self.text)

    def _button_clicked(self) -> None:
        if self._generating:
            self.stop_requested.emit()
        else:
            self._submit()

    def _fit_height(self) -> None:
        metrics = self.edit.fontMetrics()
        lines = max(1, min(MAX_LINES, self.edit.document().lineCount()))
        # Wrapped lines count too once the document is laid out.
        layout_height = self.edit.document().size().height()
        line_height = metrics.lineSpacing()
        if layout_height > 0:
            lines = max(lines, min(MAX_LINES, round(layout_height)))
        height = lines * line_height + 2 * int(self.edit.document().documentMargin()) + 4
        self.edit.setFixedHeight(max(line_height * 2, height))

    def _focus_changed(self, focused: bool) -> None:
        self.setProperty("focused", focused)
        self.style().unpolish(self)
        self.style().polish(self)

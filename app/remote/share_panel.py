"""Settings › Engine, below: "Let other computers on this network use this engine". It runs
``cove serve --lan`` with the model in use (app/remote/lan_share.py) and shows what others need:
the address, the key (only when it was made now: it is shown once, a digest is kept) and the
certificate's fingerprint, which their Cove shows on its first connection."""

from __future__ import annotations

import html
import socket
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.common.i18n import tr

if TYPE_CHECKING:
    from app.common.engine_service import EngineService
    from app.remote.lan_share import LanShare


def grouped(fingerprint: str) -> str:
    """A SHA-256 fingerprint on two lines of 16 pairs, easier to compare by eye."""
    pairs = fingerprint.split(":")
    half = (len(pairs) + 1) // 2
    return ":".join(pairs[:half]) + "\n" + ":".join(pairs[half:])


def hint(text: str, indent: int = 22) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("muted", True)
    label.setContentsMargins(indent, 0, 0, 4)
    return label


def shared_at(address: str) -> str:
    """The address others type: the server says it listens on every address (0.0.0.0); they
    reach it by this computer's name."""
    name = socket.gethostname() or "this-computer"
    for every in ("0.0.0.0", "[::]"):
        address = address.replace(f"//{every}:", f"//{name}:")
    return address


class SharePanel(QWidget):
    def __init__(self, share: LanShare, engine: EngineService) -> None:
        super().__init__()
        self.lan = share
        self.engine = engine
        self.problem = ""  # why sharing stopped, when it stopped by itself
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        row = QHBoxLayout()
        self.share = QCheckBox(
            tr("Engine settings", "Let other computers on this network use this engine")
        )
        row.addWidget(self.share, 1)
        row.addWidget(QLabel(tr("Engine settings", "Port")))
        self.port = QSpinBox()
        self.port.setAccessibleName(tr("Engine settings", "Port"))
        self.port.setRange(1024, 65535)
        self.port.setValue(share.port)
        row.addWidget(self.port)
        layout.addLayout(row)
        self.note = hint("")
        layout.addWidget(self.note)
        origins_row = QHBoxLayout()
        origins_row.setContentsMargins(22, 0, 0, 0)
        origins_label = QLabel(tr("Engine settings", "Web pages allowed"))
        self.origins = QLineEdit(", ".join(share.origins))
        self.origins.setAccessibleName(tr("Engine settings", "Web pages allowed"))
        self.origins.setPlaceholderText("chrome-extension://*, https://notes.example.org")
        origins_label.setBuddy(self.origins)
        self.origins.editingFinished.connect(self._origins_edited)
        origins_row.addWidget(origins_label)
        origins_row.addWidget(self.origins, 1)
        layout.addLayout(origins_row)
        layout.addWidget(
            hint(
                tr(
                    "Engine settings",
                    "Web pages and browser extensions from elsewhere that may use this engine, "
                    "with the key (* stands for any text; separate them with commas). Pages "
                    "served by this computer and desktop apps such as Obsidian are allowed "
                    "already; any other page is refused.",
                )
            )
        )

        self.frame = QFrame()
        self.frame.setObjectName("EngineConnection")
        box = QFormLayout(self.frame)
        box.setContentsMargins(12, 10, 12, 10)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        self.key = QLabel("")
        self.key.setObjectName("Fingerprint")
        self.key.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.new_key_button = QPushButton(tr("Engine settings", "Make a new key"))
        self.new_key_button.setObjectName("Secondary")
        self.new_key_button.setToolTip(tr("Engine settings", "The old key stops working"))
        self.new_key_button.clicked.connect(lambda: self.start(new_key=True))
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.new_key_button)
        self.key_note = QLabel("")
        self.key_note.setWordWrap(True)
        self.key_note.setProperty("muted", True)
        self.fingerprint = QLabel("")
        self.fingerprint.setObjectName("Fingerprint")
        self.fingerprint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.addRow(self.state)
        box.addRow(tr("Engine settings", "Key"), key_row)
        box.addRow("", self.key_note)
        box.addRow(tr("Engine settings", "Fingerprint"), self.fingerprint)
        layout.addWidget(self.frame)

        self.share.setChecked(share.running)
        self.share.toggled.connect(self._toggled)
        for said in (share.serving, share.key_shown, share.fingerprint_shown):
            said.connect(lambda _text: self.refresh())
        share.stopped.connect(self._stopped)
        engine.remote_changed.connect(lambda _remote: self.refresh())
        self.refresh()

    def start(self, *, new_key: bool = False) -> None:
        model = self.engine.model
        if model is None or self.engine.remote is not None:
            return
        self.lan.stop()
        self.lan.port = self.port.value()
        self.problem = ""
        self.lan.start(model, new_key=new_key)
        self.refresh()

    def _origins_edited(self) -> None:
        patterns = [p.strip() for p in self.origins.text().split(",") if p.strip()]
        if patterns == self.lan.origins:
            return
        self.lan.set_origins(patterns)
        if self.lan.running:  # the serving engine reads them when it starts
            self.start()

    def _toggled(self, on: bool) -> None:
        if on and not self.lan.running:
            self.start()
        elif not on and self.lan.running:
            self.lan.stop()
        self.refresh()

    def _stopped(self, why: str) -> None:
        if not isValid(self):
            return
        self.share.blockSignals(True)
        self.share.setChecked(False)
        self.share.blockSignals(False)
        self.problem = why
        self.refresh()

    def refresh(self) -> None:
        if not isValid(self):
            return
        lan, model, remote = self.lan, self.engine.model, self.engine.remote
        status = self.engine.status
        name = status.model if status is not None and status.model else model
        self.share.setEnabled(lan.running or (remote is None and model is not None))
        self.port.setEnabled(not lan.running and self.share.isEnabled())
        if remote is not None and not lan.running:
            self.note.setText(
                tr(
                    "Engine settings",
                    "Only this computer's engine can be shared: choose This computer first.",
                )
            )
        else:
            self.note.setText(
                tr(
                    "Engine settings",
                    "Serves {model} to this network from an engine of its own (the model loads "
                    "a second time), until Cove closes. Others connect with the address and the "
                    "key, and check the fingerprint their Cove shows.",
                ).format(model=name or tr("Engine settings", "the model in use"))
            )
        self.frame.setVisible(lan.running or bool(self.problem))
        detail = (self.key, self.key_note, self.new_key_button)
        if not lan.running:
            self.state.setText(html.escape(self.problem))
            for widget in detail:
                widget.setVisible(False)
            self.fingerprint.setText("")
            return
        for widget in detail:
            widget.setVisible(True)
        address = html.escape(shared_at(lan.address)) if lan.address else ""
        serving = tr("Engine settings", "Serving at {address}").format(address=address)
        self.state.setText(f"<b>{serving}</b>" if address else tr("Engine settings", "Starting…"))
        if lan.key is not None:
            self.key.setText(lan.key)
            self.key_note.setText(
                tr(
                    "Engine settings",
                    "Shown only now: give it to the people who may use this engine. Cove keeps "
                    "only a digest of it.",
                )
            )
        else:
            self.key.setText(tr("Engine settings", "made earlier"))
            self.key_note.setText(
                tr(
                    "Engine settings",
                    "Only a digest of the key is kept, so it cannot be shown again. Make a new "
                    "one to give out (the old one stops working).",
                )
            )
        self.fingerprint.setText(grouped(lan.fingerprint) if lan.fingerprint else "")

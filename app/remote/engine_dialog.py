"""Settings › Engine: where models run. This computer (Cove's own engine, private to this window)
or another computer: another Cove serving its network (``cove serve --lan``), or any
OpenAI-compatible server, by address and key.

Over https the other computer's certificate is pinned on first use: its fingerprint is shown so the
person can compare it with the one that computer printed. A changed certificate is refused with a
warning; trusting the new one takes a confirmation that shows the new fingerprint.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.common.i18n import tr
from app.remote.share_panel import SharePanel, grouped, hint
from engine.errors import CertificateChanged

if TYPE_CHECKING:
    from app.remote.engine_mode import EngineMode
    from engine.remote import Found, RemoteEngine


def local_hint() -> str:
    return tr(
        "Engine settings",
        "Cove's own engine runs your models on this computer: it loads them, checks that they "
        "fit in memory, and keeps each conversation's state.",
    )


def remote_hint() -> str:
    return tr(
        "Engine settings",
        "Another Cove on your network (in Cove's window there, Settings › Engine › \"Let other "
        'computers on this network use this engine": it shows an address, a key and a '
        "fingerprint), or any OpenAI-compatible server: LM Studio (http://HOST:1234/v1), "
        "llama-server, vLLM, Ollama (http://HOST:11434/v1). Your conversations and documents "
        "stay here; each message and the passages it cites are sent to that computer.",
    )


def key_hint() -> str:
    return tr("Engine settings", "Kept in this computer's keyring (or a file only you can read).")


class EngineDialog(QDialog):
    def __init__(self, mode: EngineMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = mode
        self.engine = mode.engine
        self.setWindowTitle(tr("Engine settings", "Engine"))
        self.setMinimumWidth(620)
        # asks before trusting a changed certificate: (title, question) -> yes
        self.confirm: Callable[[str, str], bool] = self._ask
        self.new_fingerprint: str | None = None  # what a changed certificate shows now
        self._changed_url = ""
        self.found_menu: QMenu | None = None  # the engines found on the network, last time

        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Engine settings", "Where your models run"))))
        self.local_choice = QRadioButton(tr("Engine settings", "This computer"))
        self.remote_choice = QRadioButton(tr("Engine settings", "Another computer"))
        group = QButtonGroup(self)
        group.addButton(self.local_choice)
        group.addButton(self.remote_choice)
        layout.addWidget(self.local_choice)
        layout.addWidget(hint(local_hint()))
        layout.addWidget(self.remote_choice)
        layout.addWidget(hint(remote_hint()))

        form = QFormLayout()
        form.setContentsMargins(22, 0, 0, 0)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://desk.local:8080/v1")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.url.setAccessibleName(tr("Engine settings", "Address of the other computer's engine"))
        self.key.setAccessibleName(tr("Engine settings", "Key"))
        self.key.setPlaceholderText(
            tr("Engine settings", "the key that computer gave (none if the server needs none)")
        )
        address_row = QHBoxLayout()
        address_row.addWidget(self.url, 1)
        self.find_button = QPushButton(tr("Engine settings", "Find on this network"))
        self.find_button.setObjectName("Secondary")
        self.find_button.setToolTip(
            tr(
                "Engine settings",
                "Cove engines that let this network use them and announce themselves: their "
                "name and certificate fingerprint. Finding one does not trust it.",
            )
        )
        self.find_button.clicked.connect(self.find_engines)
        address_row.addWidget(self.find_button)
        form.addRow(tr("Engine settings", "Address"), address_row)
        form.addRow(tr("Engine settings", "Key"), self.key)
        form.addRow("", hint(key_hint(), indent=0))
        layout.addLayout(form)

        # The connection: where, how it is protected, the model, the pinned fingerprint.
        self.connection = QFrame()
        self.connection.setObjectName("EngineConnection")
        box = QVBoxLayout(self.connection)
        box.setContentsMargins(12, 10, 12, 10)
        box.setSpacing(4)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        self.models = QLabel("")
        self.models.setWordWrap(True)
        self.models.setProperty("muted", True)
        self.fingerprint_title = QLabel(tr("Engine settings", "Certificate fingerprint (SHA-256)"))
        self.fingerprint = QLabel("")
        self.fingerprint.setObjectName("Fingerprint")
        self.fingerprint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fingerprint_note = QLabel("")
        self.fingerprint_note.setWordWrap(True)
        for widget in (
            self.state,
            self.models,
            self.fingerprint_title,
            self.fingerprint,
            self.fingerprint_note,
        ):
            box.addWidget(widget)
        layout.addWidget(self.connection)

        # A refusal: a changed certificate (with the way to trust it), a wrong key, no answer.
        self.problem_frame = QFrame()
        self.problem_frame.setObjectName("Notice")
        problem = QVBoxLayout(self.problem_frame)
        problem.setContentsMargins(12, 10, 12, 10)
        self.problem = QLabel("")
        self.problem.setTextFormat(Qt.TextFormat.RichText)
        self.problem.setWordWrap(True)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        problem.addWidget(self.problem)
        trust_row = QHBoxLayout()
        trust_row.addStretch(1)
        self.trust_button = QPushButton(tr("Engine settings", "Trust the new certificate…"))
        self.trust_button.setObjectName("Secondary")
        self.trust_button.clicked.connect(self._trust)
        trust_row.addWidget(self.trust_button)
        problem.addLayout(trust_row)
        layout.addWidget(self.problem_frame)
        layout.addSpacing(6)
        layout.addWidget(
            QLabel("<b>{}</b>".format(tr("Engine settings", "Sharing this computer's engine")))
        )
        self.share_panel = SharePanel(mode.share, self.engine)
        layout.addWidget(self.share_panel)
        layout.addStretch(1)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        close = self.close_button = QPushButton(tr("Engine settings", "Close"))
        close.setObjectName("Secondary")
        close.clicked.connect(self.accept)
        self.apply_button = QPushButton(tr("Engine settings", "Connect"))
        self.apply_button.setObjectName("Primary")
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(self.apply)
        buttons.addWidget(close)
        buttons.addWidget(self.apply_button)
        layout.addLayout(buttons)

        choice = mode.choice
        remote = self.engine.remote
        self.url.setText(remote.url if remote is not None else choice.url)
        self.key.setText(choice.api_key or "")
        (self.remote_choice if remote is not None else self.local_choice).setChecked(True)
        self.local_choice.toggled.connect(self._mode_toggled)
        self.url.returnPressed.connect(self.apply)
        self.key.returnPressed.connect(self.apply)
        self.engine.remote_connected.connect(self._connected)
        self.engine.remote_failed.connect(self._failed)
        self._hide_problem()
        self._mode_toggled()
        if remote is not None:
            self.show_connection(remote)
        else:
            self._show_local()

    # -- applying ------------------------------------------------------------------------------

    def apply(self) -> None:
        self._hide_problem()
        if self.local_choice.isChecked():
            self.mode.use_this_computer()
            self._show_local()
            return
        url = self.url.text().strip()
        if not url:
            self._show_problem(
                tr("Engine settings", "Enter the other computer's address, like {example}").format(
                    example="https://desk.local:8080/v1"
                )
            )
            return
        self._connecting(url)
        self.mode.connect_to(url, self.key.text().strip())

    def find_engines(self) -> None:
        """Look for announced Cove engines for a few seconds, then offer them in a menu."""
        from engine.remote import browse

        self.find_button.setEnabled(False)
        self.find_button.setText(tr("Engine settings", "Looking…"))

        def done(found: list[Found]) -> None:
            if not isValid(self):
                return
            self.find_button.setEnabled(True)
            self.find_button.setText(tr("Engine settings", "Find on this network"))
            self.offer(found)

        def failed(exc: BaseException) -> None:
            if isValid(self):
                done([])
                self._show_problem(
                    html.escape(
                        tr("Engine settings", "Could not look on the network: {error}").format(
                            error=exc
                        )
                    )
                )

        self.engine.control_pool.submit(lambda: browse(3.0), done, failed)

    def offer(self, found: list[Found]) -> None:
        if not found:
            advice = tr(
                "Engine settings",
                "No Cove announced itself on this network. On the other computer, open Cove's "
                'Settings › Engine and tick "Let other computers on this network use this '
                'engine"; or type its address. On a computer without a screen, run {command} '
                "there.",
            )
            command = "<code>cove serve --lan --advertise</code>"
            self._show_problem(html.escape(advice).format(command=command))
            return
        menu = QMenu(self)
        for engine in found:
            label = f"{engine.name} — {engine.host}:{engine.port}"
            if engine.fingerprint:
                label += f" · {engine.fingerprint[:11]}…"
            action = menu.addAction(label)
            action.triggered.connect(lambda _checked=False, e=engine: self._chosen(e))
        self.found_menu = menu
        menu.popup(self.find_button.mapToGlobal(self.find_button.rect().bottomLeft()))

    def _chosen(self, engine: Found) -> None:
        self.remote_choice.setChecked(True)
        self.url.setText(engine.url)
        self.key.setFocus()

    def _connecting(self, url: str) -> None:
        from engine.remote import where

        self.apply_button.setEnabled(False)
        self.connection.setVisible(True)
        self.state.setText(tr("Engine settings", "Connecting to {where}…").format(where=where(url)))
        for widget in (self.models, self.fingerprint_title, self.fingerprint):
            widget.setVisible(False)
        self.fingerprint_note.setVisible(False)

    def _mode_toggled(self, *_args: object) -> None:
        remote = self.remote_choice.isChecked()
        for widget in (self.url, self.key):
            widget.setEnabled(remote)
        using_remote = self.engine.remote is not None
        self.apply_button.setText(
            tr("Engine settings", "Connect")
            if remote
            else tr("Engine settings", "Use this computer")
        )
        self.apply_button.setEnabled(remote or using_remote or self.engine.engine is None)

    # -- what the engine service says -----------------------------------------------------------

    def _connected(self, remote: RemoteEngine) -> None:
        if not isValid(self):
            return
        self._hide_problem()
        self.remote_choice.setChecked(True)
        self.show_connection(remote)

    def show_connection(self, remote: RemoteEngine) -> None:
        self.apply_button.setEnabled(True)
        self.connection.setVisible(True)
        connected = tr("Engine settings", "Connected to {where}").format(where=remote.where)
        self.state.setText(f"<b>{html.escape(connected)}</b> · {remote.security}")
        models = self.engine.remote_models
        count = (
            tr("Engine settings", "1 model there")
            if len(models) == 1
            else tr("Engine settings", "{n} models there").format(n=len(models))
        )
        self.models.setText(
            tr("Engine settings", "Chats use {model} ({count}). {note}").format(
                model=self.engine.model, count=count, note=remote.note
            )
        )
        self.models.setVisible(True)
        trusted = remote.trusted
        shown = trusted is not None
        for widget in (self.fingerprint_title, self.fingerprint, self.fingerprint_note):
            widget.setVisible(shown)
        if trusted is None:
            self.fingerprint_note.setText("")
            return
        self.fingerprint.setText(grouped(trusted.fingerprint))
        if trusted.first_use:
            self.fingerprint_note.setText(
                tr(
                    "Engine settings",
                    "First connection: Cove pinned this certificate. Check that it is the "
                    "fingerprint that Cove shows on {where} (Settings › Engine); if it is not, "
                    "choose This computer and tell whoever runs that computer.",
                ).format(where=remote.where)
            )
        else:
            self.fingerprint_note.setText(
                tr(
                    "Engine settings",
                    "Pinned at the first connection: a different certificate would be refused.",
                )
            )

    def _show_local(self) -> None:
        self.connection.setVisible(True)
        self.state.setText("<b>{}</b>".format(tr("Engine settings", "Models run on this computer")))
        for widget in (self.models, self.fingerprint_title, self.fingerprint):
            widget.setVisible(False)
        self.fingerprint_note.setVisible(False)

    def _failed(self, exc: BaseException) -> None:
        if not isValid(self):
            return
        self.apply_button.setEnabled(True)
        remote = self.engine.remote
        if remote is not None:
            self.show_connection(remote)  # still in use
        elif self.engine.engine is not None:
            self._show_local()
        else:
            self.connection.setVisible(False)
        if isinstance(exc, CertificateChanged):
            self._certificate_changed(str(exc))
            return
        self._show_problem(html.escape(str(exc)))

    def _certificate_changed(self, message: str) -> None:
        from engine.remote import where

        url = self.url.text().strip()
        self._changed_url = url
        self.new_fingerprint = None
        self._show_problem(
            tr(
                "Engine settings",
                "<b>The certificate of {where} has changed.</b> It is not the one Cove pinned "
                "when it first connected. Someone on the network may be impersonating that "
                "computer, so Cove did not connect.<br>If that computer's Cove made a new "
                "certificate (it was reinstalled, or its data folder replaced), compare the "
                "fingerprint it shows now with the new one below before trusting it.",
            ).format(where=html.escape(where(url)))
        )
        self.problem.setToolTip(message)
        self.trust_button.setVisible(True)
        self.trust_button.setEnabled(False)

        def shown(fingerprint: str) -> None:
            if isValid(self) and url == self._changed_url:
                self.new_fingerprint = fingerprint
                self.problem.setText(
                    self.problem.text() + "<br><br>"
                    + html.escape(tr("Engine settings", "It now shows:")) + "<br><tt>"
                    + grouped(fingerprint).replace("\n", "<br>") + "</tt>"
                )  # fmt: skip
                self.trust_button.setEnabled(True)

        def unknown(exc: BaseException) -> None:
            if isValid(self):
                self.problem.setText(self.problem.text() + f"<br><br>{html.escape(str(exc))}")

        self.mode.presented_fingerprint(url, shown, unknown)

    def _trust(self) -> None:
        from engine.remote import where

        fingerprint, url = self.new_fingerprint, self._changed_url
        if fingerprint is None or not url:
            return
        question = tr(
            "Engine settings",
            "Trust the new certificate of {where}?\n\nDo this only if the Cove on that computer "
            "shows this same fingerprint (its Settings › Engine):\n\n{fingerprint}\n\nIf you "
            "cannot check, choose No: Cove stays disconnected from it.",
        ).format(where=where(url), fingerprint=grouped(fingerprint))
        if not self.confirm(tr("Engine settings", "Trust the new certificate?"), question):
            return
        self._hide_problem()
        self._connecting(url)
        self.mode.connect_to(url, self.key.text().strip(), trust=fingerprint)

    def _show_problem(self, text: str) -> None:
        """``text`` is rich text: escape what came from elsewhere."""
        self.problem.setText(text)
        self.problem.setToolTip("")
        self.trust_button.setVisible(False)
        self.problem_frame.setVisible(True)

    def _hide_problem(self) -> None:
        self.problem_frame.setVisible(False)
        self.trust_button.setVisible(False)

    def _ask(self, title: str, question: str) -> bool:
        answer = QMessageBox.warning(
            self,
            title,
            question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

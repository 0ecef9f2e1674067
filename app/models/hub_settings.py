"""Hugging Face settings: the access token for gated and private models, a mirror's address, and a
CA bundle for a proxy that inspects TLS. Certificate checks cannot be turned off. The environment
(``HF_TOKEN``, ``HF_ENDPOINT``) still wins over what is saved here, as it does everywhere."""

from __future__ import annotations

import os

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.common.i18n import tr
from engine.hub import DEFAULT_ENDPOINT, HubSettings


class HubSettingsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Hugging Face settings", "Hugging Face settings"))
        self.setMinimumWidth(520)
        current = HubSettings.load()
        form = QFormLayout(self)
        self.token = QLineEdit(current.token or "")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText(
            tr("Hugging Face settings", "hf_… (only for gated or private models)")
        )
        self.endpoint = QLineEdit(current.endpoint or "")
        self.endpoint.setPlaceholderText(DEFAULT_ENDPOINT)
        self.ca_bundle = QLineEdit(current.ca_bundle or "")
        self.ca_bundle.setPlaceholderText(tr("Hugging Face settings", "the system's certificates"))
        browse = QPushButton(tr("Hugging Face settings", "Choose…"))
        browse.setObjectName("Secondary")
        browse.clicked.connect(self._choose_ca)
        ca_row = QHBoxLayout()
        ca_row.addWidget(self.ca_bundle, 1)
        ca_row.addWidget(browse)
        form.addRow(tr("Hugging Face settings", "Access token"), self.token)
        form.addRow(tr("Hugging Face settings", "Hub address"), self.endpoint)
        form.addRow(tr("Hugging Face settings", "CA bundle"), ca_row)
        notes = []
        if os.environ.get("HF_TOKEN"):
            notes.append(
                tr(
                    "Hugging Face settings",
                    "HF_TOKEN is set in the environment and is used instead of this token.",
                )
            )
        if os.environ.get("HF_ENDPOINT"):
            notes.append(
                tr(
                    "Hugging Face settings",
                    "HF_ENDPOINT is set in the environment and wins over this address.",
                )
            )
        notes.append(
            tr(
                "Hugging Face settings",
                "The token is kept in Cove's data folder, readable by you alone, and sent only "
                "to the hub's own address.",
            )
        )
        note = QLabel(" ".join(notes))
        note.setObjectName("Muted")
        note.setWordWrap(True)
        form.addRow(note)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def settings(self) -> HubSettings:
        def text(edit: QLineEdit) -> str | None:
            return edit.text().strip() or None

        return HubSettings(
            token=text(self.token), endpoint=text(self.endpoint), ca_bundle=text(self.ca_bundle)
        )

    def accept(self) -> None:
        self.settings().save()
        super().accept()

    def _choose_ca(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            tr("Hugging Face settings", "CA bundle"),
            "",
            ";;".join(
                (
                    tr("Hugging Face settings", "Certificates (*.pem *.crt *.cer)"),
                    tr("Hugging Face settings", "All files (*)"),
                )
            ),
        )
        if path:
            self.ca_bundle.setText(path)

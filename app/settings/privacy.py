"""Privacy: what Cove sends (nothing, unless asked), the switches it holds off, and the folder
where everything it keeps lives."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.common.i18n import tr
from engine.paths import data_dir, shown
from engine.privacy import TELEMETRY_OFF


class PrivacySection(QWidget):
    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Settings", "Privacy"))))
        stays = QLabel(
            tr(
                "Settings",
                "Everything stays on this computer. What you type, the replies, your documents "
                "and your chat history never leave it: there is no account and no telemetry.",
            )
        )
        stays.setWordWrap(True)
        layout.addWidget(stays)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Settings", "When Cove uses the network"))))
        network = QLabel(
            "<ul style='margin-left:-20px'><li>{}</li><li>{}</li><li>{}</li></ul>".format(
                tr("Settings", "When you download a model: only the files you chose."),
                tr(
                    "Settings",
                    "When you choose to use another computer's engine (Settings, Engine).",
                ),
                tr(
                    "Settings",
                    "When you share this computer's engine on your network: other computers "
                    "need its key.",
                ),
            )
        )
        network.setWordWrap(True)
        layout.addWidget(network)
        switches = QLabel(
            tr(
                "Settings",
                "The reporting switches of the libraries Cove uses are held off, whatever "
                "this computer's settings say: {names}.",
            ).format(names=", ".join(sorted(TELEMETRY_OFF)))
        )
        switches.setWordWrap(True)
        switches.setProperty("muted", True)
        layout.addWidget(switches)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Settings", "Your data"))))
        self.folder = QLabel(
            tr(
                "Settings",
                "Chats, documents' indexes, models and settings are kept in {folder}.",
            ).format(folder=shown(data_dir()))
        )
        self.folder.setWordWrap(True)
        layout.addWidget(self.folder)
        row = QHBoxLayout()
        self.open_button = QPushButton(tr("Settings", "Open the data folder"))
        self.open_button.setObjectName("Secondary")
        self.open_button.clicked.connect(self.open_folder)
        row.addWidget(self.open_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(1)

    def open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(data_dir())))

"""Settings for MCP servers: the servers whose tools chats may offer, each with its state (its
tools, or why it failed), added by hand or from an ``mcp.json`` of Claude Desktop, LM Studio or
Cursor, removed, reconnected; and the tools that were always allowed, to forget."""

from __future__ import annotations

import shlex
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.common.mcp_service import McpService
from app.common.theme import Colors
from engine.errors import McpConfigError
from engine.mcp_servers import ServerStatus, config

SHOWN_TOOLS = 6  # tools named in a server's line; the rest are counted


def intro() -> str:
    return tr(
        "MCP",
        "Tools from the servers listed here are offered to the model in your chats, and each call "
        "asks for your consent first. A server is a program that runs on this computer, or an "
        "address it connects to, with whatever access that program or address has: add only "
        "servers you trust. Nothing starts until you add one.",
    )


def failed(status: ServerStatus | None, server: config.ServerConfig) -> bool:
    return not server.disabled and status is not None and status.state != "ready"


def status_text(status: ServerStatus | None, server: config.ServerConfig) -> str:
    if server.disabled:
        return tr("MCP", "off")
    if status is None:
        return tr("MCP", "connecting…")
    if status.state == "ready":
        names = ", ".join(t.offered for t in status.tools[:SHOWN_TOOLS])
        count = len(status.tools)
        if count > SHOWN_TOOLS:
            return tr("MCP", "{n} tools: {names} and {more} more").format(
                n=count, names=names, more=count - SHOWN_TOOLS
            )
        if count == 1:
            return tr("MCP", "1 tool: {names}").format(names=names)
        return tr("MCP", "{n} tools: {names}").format(n=count, names=names)
    return tr("MCP", "failed: {reason}").format(reason=status.error)


class AddServerDialog(QDialog):
    def __init__(self, taken: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("MCP", "Add an MCP server"))
        self.setMinimumWidth(520)
        self.taken = taken
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.name.setPlaceholderText("time")
        self.target = QLineEdit()
        self.target.setPlaceholderText("mcp-server-time --local-timezone Europe/Paris")
        form.addRow(tr("MCP", "Name"), self.name)
        form.addRow(tr("MCP", "Command or address"), self.target)
        hint = QLabel(
            tr(
                "MCP",
                "A command starts the server on this computer (stdio); an http:// or https:// "
                "address connects to a running one (Streamable HTTP).",
            )
        )
        hint.setWordWrap(True)
        hint.setProperty("muted", True)
        form.addRow(hint)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setObjectName("NoticeText")
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.server: config.ServerConfig | None = None

    def _accept(self) -> None:
        name, target = self.name.text().strip(), self.target.text().strip()
        try:
            if name in self.taken:
                raise McpConfigError(
                    tr("MCP", "There is already a server called {name}.").format(name=repr(name))
                )
            if target.startswith(("http://", "https://")):
                entry: dict[str, object] = {"url": target}
            else:
                words = shlex.split(target)
                entry = {"command": words[0] if words else "", "args": words[1:]}
            (self.server,) = config.parse({"mcpServers": {name: entry}}, "this server")
        except (McpConfigError, ValueError) as exc:
            self.error.setText(str(exc))
            return
        self.accept()


class McpServersDialog(QDialog):
    def __init__(self, service: McpService, colors: Colors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.colors = colors
        self.setWindowTitle(tr("MCP", "MCP servers"))
        self.setMinimumSize(640, 420)
        layout = QVBoxLayout(self)
        intro_label = QLabel(intro())
        intro_label.setWordWrap(True)
        layout.addWidget(intro_label)
        self.enabled = QCheckBox(tr("MCP", "Offer these tools in chats"))
        self.enabled.setChecked(service.enabled)
        self.enabled.toggled.connect(self._set_enabled)
        layout.addWidget(self.enabled)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QListWidget.SelectionMode.SingleSelection)
        layout.addWidget(self.list, 1)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setObjectName("NoticeText")
        layout.addWidget(self.problem)
        row = QHBoxLayout()
        self.add_button = QPushButton(tr("MCP", "Add…"))
        self.import_button = QPushButton(tr("MCP", "Import mcp.json…"))
        self.remove_button = QPushButton(tr("MCP", "Remove"))
        self.reconnect_button = QPushButton(tr("MCP", "Reconnect"))
        self.forget_button = QPushButton(tr("MCP", "Forget “Always allow”"))
        for button in (
            self.add_button,
            self.import_button,
            self.remove_button,
            self.reconnect_button,
            self.forget_button,
        ):
            row.addWidget(button)
        row.addStretch(1)
        close = self.close_button = QPushButton(tr("MCP", "Close"))
        close.clicked.connect(self.accept)
        row.addWidget(close)
        layout.addLayout(row)
        self.add_button.clicked.connect(self._add)
        self.import_button.clicked.connect(self._import)
        self.remove_button.clicked.connect(self._remove)
        self.reconnect_button.clicked.connect(service.start)
        self.forget_button.clicked.connect(self._forget)
        service.statuses_changed.connect(self._refresh)
        self._refresh()

    def servers(self) -> list[config.ServerConfig]:
        return self.service.servers()

    def _refresh(self, *_args: object) -> None:
        statuses = {s.name: s for s in self.service.statuses()}
        self.list.clear()
        for server in self.servers():
            status = statuses.get(server.name)
            starting = self.service.starting
            text = tr("MCP", "connecting…") if starting else status_text(status, server)
            item = QListWidgetItem(f"{server.name}  ·  {server.describe()}\n    {text}")
            item.setData(Qt.ItemDataRole.UserRole, server.name)
            if not starting and failed(status, server):
                item.setForeground(QColor(self.colors.error_text))
            self.list.addItem(item)
        always = self.service.consent.always_allowed()
        self.forget_button.setEnabled(bool(always))
        self.forget_button.setToolTip(
            tr("MCP", "Always allowed: {tools}").format(
                tools="; ".join(f"{s}: {', '.join(t)}" for s, t in always.items())
            )
            if always
            else tr("MCP", "No tool is always allowed")
        )
        self.problem.setText(self.service.error)
        self.problem.setVisible(bool(self.service.error))
        self.remove_button.setEnabled(self.list.count() > 0)

    def _set_enabled(self, on: bool) -> None:
        self.service.enabled = on

    def _add(self) -> None:
        current = self.servers()
        dialog = AddServerDialog({s.name for s in current}, self)
        if dialog.exec() and dialog.server is not None:
            self.service.save([*current, dialog.server])
            self._refresh()

    def _import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("MCP", "Import MCP servers"), str(Path.home()), "mcp.json (*.json)"
        )
        if path:
            self.import_file(Path(path))

    def import_file(self, path: Path) -> None:
        """Add the file's servers; a name already listed keeps the listed server."""
        try:
            found = config.load(path)
        except McpConfigError as exc:
            self.problem.setText(str(exc))
            self.problem.setVisible(True)
            return
        current = self.servers()
        names = {s.name for s in current}
        self.service.save([*current, *(s for s in found if s.name not in names)])
        self._refresh()

    def _remove(self) -> None:
        item = self.list.currentItem() or self.list.item(0)
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        self.service.save([s for s in self.servers() if s.name != name])
        self.service.consent.forget(str(name))
        self._refresh()

    def _forget(self) -> None:
        for server in self.service.consent.always_allowed():
            self.service.consent.forget(server)
        self._refresh()

"""The main window: conversations on the left, the chat in the middle, status along the bottom."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.chat.composer import Composer
from app.chat.controller import ChatController
from app.chat.document_answers import DocumentAnswers
from app.chat.page import ChatPage
from app.chat.settings import SettingsPanel
from app.chat.state_dialog import LIMIT_SETTING, stored_limit
from app.chat.view import ChatView
from app.common.document_encoder import DocumentEncoder
from app.common.engine_service import STARTER, EngineService
from app.common.i18n import tr
from app.common.idle_runner import IdleRunner
from app.common.mcp_service import ENABLED_SETTING, McpService
from app.common.theme import ThemeManager
from app.common.workers import WorkerPool
from app.documents.view import DocumentsView
from app.hardware.view import HardwareProbe, HardwareView
from app.models.discover import DiscoverView
from app.models.download_controller import DownloadController
from app.models.view import IMPORTED_SETTING, ModelsView
from app.remote.choice import EngineChoice, save_choice
from app.remote.engine_mode import EngineMode
from app.shell.banner import EngineBanner
from app.shell.chat_setup import ChatSetup
from app.shell.conversations import ConversationList
from app.shell.engine_events import EngineEvents
from app.shell.engine_place import EnginePlace
from app.shell.files_setup import ChatFilesSetup
from app.shell.history_care import HistoryCare
from app.shell.settings_setup import SettingsSetup
from app.shell.shortcuts import ShortcutsSheet
from app.shell.sidebar import Sidebar
from app.shell.status_bar import StatusBar
from app.shell.warm_up import WarmUp
from app.shell.welcome import WelcomeView, check_starter
from app.shell.window_settings import mcp_notice, read_settings
from engine.documents import default_encoder_folder
from engine.generation import DEFAULT_LIMIT_BYTES

if TYPE_CHECKING:
    from app.chat.state_dialog import SavedStateDialog
    from app.mcp.dialog import McpServersDialog
    from app.remote.engine_dialog import EngineDialog
    from app.settings.view import SettingsView
    from engine.client import LocalEngine

DEFAULT_SIZE = (1240, 780)
MIN_SIZE = (820, 520)


class MainWindow(QMainWindow):
    first_painted = Signal(float)  # time.perf_counter() of the first paint

    def __init__(
        self,
        theme: ThemeManager,
        *,
        model: str | None = None,
        engine: LocalEngine | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Cove")
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(*MIN_SIZE)
        self.theme = theme
        self.requested_model = model
        self.state_limit = DEFAULT_LIMIT_BYTES  # conversations' saved state on disk, in bytes
        self.requested_theme: str | None = None  # --theme wins over the saved preference
        self.shared_engine = engine  # a host started elsewhere (tests); not stopped at exit
        self.start_engine = True
        self._painted = False
        self._closing = False
        colors = theme.colors

        self.engine = EngineService(self)
        self.background = WorkerPool("background", 1)
        self.probe = HardwareProbe(self.engine, self)
        self.sidebar = Sidebar()
        self.view = ChatView(colors)
        self.composer = Composer()
        self.controller = ChatController(self.view, self.composer, self.engine)
        self.view.after = self.composer
        self.settings_panel = SettingsPanel()
        self.settings_panel.setVisible(False)
        self.banner = EngineBanner()
        self.history_care = HistoryCare(self.controller, self)
        self.status = StatusBar()
        self.setStatusBar(self.status)
        # Downloads run in this process, beside the engine host: a host crash never stops them.
        self.downloads = DownloadController()
        self.models_view = ModelsView(colors, self.engine.plan, self.downloads,
                                      scorer=self.engine.scorer,
                                      unload_now=self.engine.unload_now)  # fmt: skip
        self.discover = DiscoverView(self.downloads)
        self.models_view.set_discover_tab(self.discover)
        self.models_view.set_comfortable(self.discover.comfortable_tps)
        self.hardware_view = HardwareView(self.probe, colors)
        self.welcome = WelcomeView()

        self.pages = QStackedWidget()
        self.chat_page = ChatPage(self.view, self.composer, self.settings_panel, self._build_menu())
        # The page's widgets that the window is asked about (the chat settings toggle, the notice).
        self.settings_button = self.chat_page.settings_button
        self.context_notice = self.chat_page.context_notice
        # The library's embedding model (tests give their own).
        self.encoder_folder: Callable[[], Path | None] = default_encoder_folder
        self.document_encoder = DocumentEncoder(self.engine, lambda: self.encoder_folder())
        # Background work gives way to other programs; the window's engine is not one of them.
        idle = IdleRunner(own=self._own_processes)
        self.documents_view = DocumentsView(encoder=self.document_encoder, idle=idle)
        self.composer.set_collections([c.name for c in self.documents_view.db.collections()])
        self.documents_view.collections_changed.connect(self.composer.set_collections)
        self.document_answers = DocumentAnswers(
            self.documents_view.db,
            self.document_encoder,
            lambda: self.engine.status.n_ctx if self.engine.status is not None else None,
            lambda name: self.documents_view.indexing(name) or self.chat_files.reading(name),
        )
        self.controller.documents = self.document_answers.request
        # Files given to a chat are read into its own collection.
        self.files_setup = ChatFilesSetup(
            self.documents_view.db, self.document_encoder, self.controller, self.composer, self
        )
        self.chat_files = self.files_setup.files
        # MCP servers' tools: connected in this process (the engine host only runs the model).
        self.mcp = McpService(self)
        self.controller.tools = self.mcp.request
        self.controller.answer_call = self.mcp.broker.answer
        self.mcp.statuses_changed.connect(self._mcp_statuses)
        # This computer's engine or another's: it says what to show, the window shows it.
        self.engine_mode = EngineMode(self.engine, self, save=self._save_engine_choice)
        self.engine_place = EnginePlace(
            self.engine_mode,
            self.status,
            self.models_view,
            self.settings_panel,
            self.view,
            self.document_encoder,
            self._save_setting,
        )
        self.conversations = ConversationList(
            self,
            self.sidebar,
            self.controller,
            self.chat_page,
            self.settings_panel,
            show_chat=lambda: self.show_page("chat"),
            notify=self.status.notify,
        )
        self.chat_setup = ChatSetup(
            self,
            self.controller,
            self.chat_page,
            self.models_view,
            self.engine,
            names_known=lambda: self.engine_events.restate_model(),
        )
        self.status.names = lambda status: self.controller.names.display_name(
            status.model_path, status.model
        )
        names = self.controller.names
        self.models_view.residents.label = lambda name: names.display_name(name) or name
        self.hardware_view.label = lambda name: names.display_name(name) or name
        self.settings = SettingsSetup(self)
        pages = (self.chat_page, self.models_view, self.hardware_view, self.welcome)
        for page in (*pages, self.documents_view, self.settings.view):
            self.pages.addWidget(page)
        right = QWidget()
        right.setObjectName("ChatSurface")
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(self.banner)
        right_layout.addWidget(self.history_care.banner)
        right_layout.addWidget(self.pages, 1)
        splitter = QSplitter()
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, DEFAULT_SIZE[0] - 260])
        splitter.setHandleWidth(1)
        self.setCentralWidget(splitter)
        # What the engine says, shown across the window.
        self.engine_events = EngineEvents(
            self.engine,
            self.controller,
            self.status,
            self.banner,
            self.models_view,
            self.composer,
            self.view,
            self.settings_panel,
            (self.hardware_view, self.probe),
            self._save_setting,
            self,
        )
        self._connect()
        self._shortcuts()
        self.sidebar.installEventFilter(self)

    # -- layout --------------------------------------------------------------------------------

    def _build_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction(
            tr("Window", "Export chat as Markdown…"), lambda: self._export_current("markdown")
        )
        menu.addAction(tr("Window", "Export chat as JSON…"), lambda: self._export_current("json"))
        menu.addAction(tr("Window", "Import chat…"), lambda: self.conversations.import_chat())
        menu.addAction(tr("Window", "Rename chat"), lambda: self.conversations.rename_current())
        menu.addAction(tr("Window", "Delete chat…"), lambda: self.conversations.delete_current())
        return menu

    def open_settings(self) -> SettingsView:
        """Settings (Ctrl+,), at the section last shown."""
        self.show_page("settings")
        return self.settings.view

    def open_saved_state(self) -> SavedStateDialog:
        return self.settings.saved_state()

    def save_state_limit(self, limit: int) -> None:
        self.state_limit = limit
        store = self.controller.store
        if store is not None:
            self.controller.io.submit(lambda: store.set_setting(LIMIT_SETTING, limit))

    def _save_engine_choice(self, choice: EngineChoice) -> None:
        store = self.controller.store
        if store is not None:
            self.controller.io.submit(lambda: save_choice(store, choice))

    def open_engine_settings(self) -> EngineDialog:
        return self.settings.engine()

    def open_mcp_servers(self) -> McpServersDialog:
        return self.settings.mcp()

    def _mcp_statuses(self, statuses: list[Any]) -> None:
        """A server that failed is said at once (each on its own); the others' tools work."""
        text = mcp_notice(statuses, self.mcp.error)
        if text:
            self.status.notify(text)

    def save_mcp_enabled(self, on: bool) -> None:
        store = self.controller.store
        if store is not None:
            self.controller.io.submit(lambda: store.set_setting(ENABLED_SETTING, on))

    def _shortcuts(self) -> None:
        def bind(keys: str | QKeySequence.StandardKey, slot: Any) -> QShortcut:
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)
            return shortcut

        bind("Ctrl+N", self.new_chat)
        bind(QKeySequence.StandardKey.ZoomIn, self.theme.zoom_in)
        bind("Ctrl+=", self.theme.zoom_in)
        bind(QKeySequence.StandardKey.ZoomOut, self.theme.zoom_out)
        bind("Ctrl+0", self.theme.zoom_reset)
        bind("Ctrl+F", self._find)
        bind("Ctrl+Shift+F", lambda: self.sidebar.search.setFocus())
        bind("Ctrl+/", self.show_shortcuts)
        bind("Ctrl+,", self.open_settings)
        # Esc stops a reply from anywhere in the window, but only while there is one: otherwise
        # it belongs to the focused widget (cancelling an edit, closing a menu).
        stop = bind("Escape", self.controller.stop)
        stop.setEnabled(False)
        self.controller.generating_changed.connect(stop.setEnabled)

    def show_shortcuts(self) -> ShortcutsSheet:
        """Every key the window answers to (Ctrl+/)."""
        sheet = ShortcutsSheet(self)
        sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        sheet.show()
        return sheet

    def _find(self) -> None:
        """Find in the open chat; from another page, search every chat."""
        if self.pages.currentWidget() is self.chat_page:
            self.chat_page.find_bar.open_bar()
        else:
            self.sidebar.search.setFocus()

    # -- wiring --------------------------------------------------------------------------------

    def _connect(self) -> None:
        c, e, s = self.controller, self.engine, self.sidebar
        c.store_opened.connect(self._store_opened)
        c.store_failed.connect(
            lambda msg: self.banner.show_crash(msg, [], tr("Window", "No chat history"))
        )
        c.reply_finished.connect(self._reply_finished)
        c.answering_changed.connect(s.set_answering)
        c.notices.context_changed.connect(self._context_changed)
        c.notices.vision_notice.connect(self.chat_page.show_vision_notice)
        c.conversation_opened.connect(lambda _c: self.chat_page.find_bar.forget())
        self.chat_page.vision_models_requested.connect(self.show_vision_models)
        c.notice.connect(self.status.notify)
        s.view_requested.connect(self.show_page)
        self.view.copy_done.connect(self.status.notify)
        self.settings_panel.system_prompt_changed.connect(c.set_system_prompt)
        self.settings_panel.settings_changed.connect(c.set_settings)
        self.settings_panel.reload_requested.connect(
            lambda ctx: e.load(e.model or STARTER, ctx=ctx)
        )
        self.status.model_clicked.connect(lambda: self.show_page("models"))
        self.models_view.back_requested.connect(lambda: self.show_page("chat"))
        self.models_view.imported_changed.connect(self._save_imported)
        self.hardware_view.back_requested.connect(lambda: self.show_page("chat"))
        self.documents_view.back_requested.connect(lambda: self.show_page("chat"))
        self.welcome.start_requested.connect(self._welcome_done)
        self.probe.probed.connect(self.welcome.set_report)
        self.probe.probed.connect(self.discover.set_report)
        self.probe.probed.connect(self.models_view.set_report)
        self.discover.comfortable_changed.connect(self.models_view.set_comfortable)
        self.models_view.discover_shown.connect(self._discover_shown)
        self.downloads.download_finished.connect(lambda _d, _p: self.discover.refresh_installed())
        self.probe.probe_failed.connect(self.welcome.set_probe_error)
        self.theme.theme_changed.connect(self._theme_changed)
        self.theme.font_scale_changed.connect(self._font_scale_changed)

    # -- start, stop ---------------------------------------------------------------------------

    def start(self) -> None:
        """After the window is shown: open the history, then start the engine. Nothing here
        blocks; the window is usable while both happen."""
        self.status.set_engine_text(tr("Window", "Opening the chat history…"))
        WarmUp(self.background, lambda: self.theme.colors, self).start()
        self.controller.open_store()
        self.documents_view.start_watching()
        self.mcp.start()  # an empty list starts nothing

    def _store_opened(self) -> None:
        store = self.controller.store
        assert store is not None
        self.history_care.opened(store)

        self.controller.io.submit(lambda: read_settings(store), self._apply_settings)

    def _apply_settings(self, values: dict[str, Any]) -> None:
        if self.requested_theme is None and values["theme"] in ("system", "light", "dark"):
            self.set_theme(values["theme"], save=False)
        if isinstance(values["font_scale"], int | float):
            self.theme.set_font_scale(float(values["font_scale"]))
        self.mcp.enabled = values["mcp"] is not False
        imported = values["imported"] if isinstance(values["imported"], list) else []
        self.models_view.set_imported([str(p) for p in imported])
        model = str(self.requested_model or values["model"] or STARTER)
        self.state_limit = stored_limit(values["state_limit"])
        if self.state_limit != DEFAULT_LIMIT_BYTES:
            self.engine.started.connect(
                lambda: self.engine.set_state_limit(self.state_limit),
                Qt.ConnectionType.SingleShotConnection,
            )
        self.engine_mode.choice, self.engine_mode.local_model = values["engine"], model
        origins = values["shared origins"]
        if isinstance(origins, list):
            self.engine_mode.share.origins = [str(o) for o in origins if isinstance(o, str)]
        if self.shared_engine is not None:
            self.engine.adopt(self.shared_engine, model)
        elif self.start_engine:
            self.engine_mode.start()
        else:
            self.status.set_engine_text(tr("Window", "No engine"))
        if not values["welcomed"]:
            self.show_page("welcome")

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            self.settings_panel.flush()
            self.hide()
            self.engine.cancel_load()  # before waiting for the model's queue to drain
            self.documents_view.stop_watching()
            self.controller.close()
            self.history_care.close()
            self.downloads.close()  # pauses them; the next start resumes from the partial files
            self.mcp.close()  # ends the servers' processes
            self.engine_mode.share.stop()  # other computers' use of this engine ends with it
            self.engine.shutdown()
            pools = [self.background, self.models_view.pool, self.discover.pool]
            pools += [self.documents_view.pool, self.documents_view.ask_pool, self.composer.pool]
            self.chat_files.close()
            for pool in (*pools, self.engine.control_pool):
                pool.wait(5_000)
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not self._painted and event.type() == QEvent.Type.Paint:
            self._painted = True
            painted = time.perf_counter()
            QTimer.singleShot(0, lambda: self.first_painted.emit(painted))
        return super().eventFilter(watched, event)

    def _own_processes(self) -> list[int]:
        """This computer's processes of the window's own (its engine host, when local)."""
        engine = self.engine.engine
        pid = getattr(engine, "pid", None) if self.engine.remote is None else None
        return [pid] if isinstance(pid, int) else []

    # -- pages ---------------------------------------------------------------------------------

    def _discover_shown(self) -> None:
        """The user is browsing the catalog: ask the hub for its sizes (once per run) and the
        engine for this computer's hardware, for the recommendations."""
        if self.probe.report is None:
            self.probe.refresh()
        if not self.discover.asked_hub:
            self.discover.refresh_from_hub()

    def show_page(self, name: str) -> None:
        page = {
            "chat": self.chat_page,
            "models": self.models_view,
            "hardware": self.hardware_view,
            "welcome": self.welcome,
            "documents": self.documents_view,
            "settings": self.settings.view,
        }[name]
        if name == "models" and (not self.models_view.entries or self.engine.engine):
            self.models_view.refresh()
        if name in ("hardware", "welcome", "models") and self.probe.report is None:
            self.probe.refresh()
        if name == "welcome":
            self._check_starter()
        self.pages.setCurrentWidget(page)
        if name == "chat":
            self.composer.focus()

    def show_vision_models(self) -> None:
        """Models › Discover, filtered to the models that see images."""
        self.show_page("models")
        self.models_view.tabs.setCurrentWidget(self.discover)
        self.discover.search.setText("vision")

    def _welcome_done(self) -> None:
        self.show_page("chat")
        self._save_setting("welcomed", True)

    def _check_starter(self) -> None:
        check_starter(self.welcome, self.engine)

    # -- conversations -------------------------------------------------------------------------

    def new_chat(self) -> None:
        self.conversations.new_chat()

    def _export_current(self, fmt: str) -> None:
        self.conversations.export_current(fmt)

    # -- replies, context ----------------------------------------------------------------------

    def _reply_finished(self, outcome: Any) -> None:
        final = outcome.final
        if final is not None:
            self.status.set_stats(final.stats)

    def _context_changed(self, used: int, limit: int, message: str) -> None:
        self.status.set_context(used, limit, message)
        self.chat_page.show_context_notice(message)

    # -- appearance, settings ------------------------------------------------------------------

    def set_theme(self, preference: str, *, save: bool = True) -> None:
        if preference not in ("system", "light", "dark"):
            return
        self.theme.set_preference(preference)  # type: ignore[arg-type]
        self.settings.appearance().show_theme(preference)
        if save:
            self._save_setting("theme", preference)

    def _theme_changed(self, _scheme: str) -> None:
        colors = self.theme.colors
        self.view.set_colors(colors)
        self.models_view.set_colors(colors)
        self.hardware_view.set_colors(colors)

    def _font_scale_changed(self, scale: float) -> None:
        self._save_setting("font_scale", scale)

    def _save_setting(self, key: str, value: Any) -> None:
        store = self.controller.store
        if store is not None:
            self.controller.io.submit(lambda: store.set_setting(key, value))

    def _save_imported(self, paths: list[str]) -> None:
        self._save_setting(IMPORTED_SETTING, paths)

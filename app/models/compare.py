"""Compare quality: two installed builds of one model answer the same multiple-choice questions
(the everyday task that ships with Cove) through this computer's engine, and the window says in
plain words whether the smaller build loses anything measurable, with the margin of error.

The work runs on a worker thread, one build after the other (each loaded on demand, then let go
unless it is the chat's model); Stop or closing the dialog ends it between two requests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.common.plain_words import quant_label
from app.common.workers import WorkerPool, post_to_ui
from engine.errors import EvaluationCancelled
from engine.evaluation import (
    Outcome,
    RanAs,
    Scorer,
    Task,
    evaluate,
    load_task,
    paired,
    shipped_task,
)
from engine.library import ModelEntry
from engine.units import format_bytes

# The engine this computer runs, for the comparison; raises EngineError saying why there is none.
ScorerFn = Callable[[], Scorer]
# Lets a build go once it is measured (the engine's unload by name); errors are ignored.
UnloadFn = Callable[[str], None]


def build_label(entry: ModelEntry) -> str:
    """ "4-bit, medium quality (Q4_K_M), 469 MiB"."""
    kind = quant_label(entry.quantization) if entry.quantization else entry.kind
    return tr("Compare", "{kind}, {size}").format(kind=kind, size=format_bytes(entry.size_bytes))


class CompareDialog(QDialog):
    compared = Signal()  # both builds are measured and the verdict is shown
    stopped = Signal(str)  # the run ended early: why

    def __init__(
        self,
        entry: ModelEntry,
        builds: Sequence[ModelEntry],
        scorer: ScorerFn,
        *,
        unload: UnloadFn | None = None,
        keep: str | None = None,
        task_path: Path | None = None,
        pool: WorkerPool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Compare", "Compare quality"))
        self.setMinimumWidth(620)
        self._scorer, self._unload, self._keep = scorer, unload, keep
        self.task: Task = load_task(task_path or shipped_task())
        self.builds = [entry, *builds]
        self.outcomes: list[Outcome] = []
        self._cancel = threading.Event()
        # The view's pool outlives a closed dialog, whose last request then ends in the background.
        self._pool = pool or WorkerPool("compare", 1)

        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "Compare",
                "Both builds of {model} answer the same {n} everyday questions, and Cove counts "
                "how often each chooses the right answer. Each build is loaded in turn; on this "
                "computer it takes a few minutes.",
            ).format(model=entry.name, n=len(self.task.questions))
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.first = self._picker(tr("Compare", "First build"), 0)
        self.second = self._picker(tr("Compare", "Second build"), 1)
        form.addRow(tr("Compare", "First build"), self.first)
        form.addRow(tr("Compare", "Second build"), self.second)
        layout.addLayout(form)

        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setAccessibleName(tr("Compare", "Questions answered"))
        layout.addWidget(self.progress)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setVisible(False)
        layout.addWidget(self.status)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(
            [tr("Compare", "Build"), tr("Compare", "Right answers"), tr("Compare", "Time")]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName(tr("Compare", "Results"))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for policy in (self.table.setVerticalScrollBarPolicy,
                       self.table.setHorizontalScrollBarPolicy):  # fmt: skip
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setVisible(False)
        layout.addWidget(self.table)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.verdict)
        self.ran = QLabel("")
        self.ran.setWordWrap(True)
        self.ran.setObjectName("Muted")
        self.ran.setAccessibleName(tr("Compare", "How they ran"))
        self.ran.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.ran.setVisible(False)
        layout.addWidget(self.ran)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.stop_button = QPushButton(tr("Compare", "Stop"))
        self.stop_button.setObjectName("Secondary")
        self.stop_button.setVisible(False)
        self.stop_button.clicked.connect(self.stop)
        self.close_button = QPushButton(tr("Compare", "Close"))
        self.close_button.setObjectName("Secondary")
        self.close_button.clicked.connect(self.reject)
        self.start_button = QPushButton(tr("Compare", "Start comparing"))
        self.start_button.setObjectName("Primary")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        for button in (self.stop_button, self.close_button, self.start_button):
            buttons.addWidget(button)
        layout.addLayout(buttons)
        self.finished.connect(lambda _result: self._cancel.set())

    def _picker(self, name: str, current: int) -> QComboBox:
        box = QComboBox()
        box.setAccessibleName(name)
        for build in self.builds:
            box.addItem(build_label(build))
            box.setItemData(box.count() - 1, build.path.name, Qt.ItemDataRole.ToolTipRole)
        box.setCurrentIndex(min(current, len(self.builds) - 1))
        return box

    # -- the run -------------------------------------------------------------------------------

    def start(self) -> None:
        chosen = [self.builds[self.first.currentIndex()], self.builds[self.second.currentIndex()]]
        if chosen[0].path == chosen[1].path:
            self._say(tr("Compare", "Choose two different builds."))
            return
        self._cancel = threading.Event()
        self.outcomes = []
        self.table.setRowCount(0)
        self.verdict.setText("")
        self.ran.setVisible(False)
        self._running(True)
        total = len(self.task.questions) * len(chosen)
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        cancel, scorer, unload, keep, task = (
            self._cancel, self._scorer, self._unload, self._keep, self.task
        )  # fmt: skip

        def job() -> None:
            engine = scorer()
            for i, build in enumerate(chosen):
                post_to_ui(partial(self._measuring, build))

                def progress(done: int, _all: int, i: int = i) -> None:
                    post_to_ui(lambda: self._progressed(i * len(task.questions) + done))

                outcome = evaluate(engine, build.id, task, progress=progress, cancel=cancel)
                post_to_ui(partial(self._measured, build, outcome))
                if unload is not None and build.id != keep:
                    unload(build.id)

        self._pool.submit(job, lambda _r: self._done(chosen), self._failed)

    def stop(self) -> None:
        self._cancel.set()
        self._say(tr("Compare", "Stopping after the questions being answered…"))

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.first.setEnabled(not running)
        self.second.setEnabled(not running)
        self.stop_button.setVisible(running)
        self.progress.setVisible(running)

    def _measuring(self, build: ModelEntry) -> None:
        self._say(tr("Compare", "Asking {build}…").format(build=build_label(build)))

    def _progressed(self, done: int) -> None:
        self.progress.setValue(done)

    def _measured(self, build: ModelEntry, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        s = outcome.score
        row = self.table.rowCount()
        self.table.insertRow(row)
        cells = (
            build_label(build),
            tr("Compare", "{acc} ± {err} %").format(
                acc=f"{100 * s.acc:.1f}", err=f"{100 * s.acc_stderr:.1f}"
            ),
            tr("Compare", "{s} s").format(s=f"{outcome.seconds:.0f}"),
        )
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(build.path.name if col == 0 else text)
            self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()
        rows = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        frame = 2 * self.table.frameWidth()
        self.table.setFixedHeight(self.table.horizontalHeader().height() + rows + frame)
        self.table.setVisible(True)
        self.adjustSize()

    def _done(self, chosen: list[ModelEntry]) -> None:
        self._running(False)
        self._say("")
        self.verdict.setText(verdict_text(chosen, self.outcomes))
        self.ran.setText(ran_text(chosen, self.outcomes))
        self.ran.setVisible(bool(self.ran.text()))
        self.adjustSize()
        self.compared.emit()

    def _failed(self, exc: BaseException) -> None:
        self._running(False)
        if isinstance(exc, EvaluationCancelled):
            why = tr("Compare", "Stopped. Start comparing asks every question again.")
        else:
            why = tr("Compare", "The comparison stopped: {error}").format(error=exc)
        self._say(why)
        self.stopped.emit(why)


def verdict_text(builds: Sequence[ModelEntry], outcomes: Sequence[Outcome]) -> str:
    """What the numbers say, in words: the share of the same answers, then whether the
    difference is larger than its margin of error (two standard errors of the paired
    differences, about 95 %)."""
    a, b = outcomes
    p = paired(b.answered, a.answered)
    same = tr("Compare", "The two builds chose the same answer to {same} % of the questions.")
    lines = [same.format(same=f"{100 * p.same_answer:.0f}")]
    points, margin = 100 * abs(p.acc_difference), 200 * p.acc_difference_stderr
    if p.acc_difference == 0 and margin == 0:
        lines.append(
            tr(
                "Compare",
                "No difference in quality on these questions: both got the same ones right.",
            )
        )
    elif points <= margin:
        lines.append(
            tr(
                "Compare",
                "No clear difference in quality on these questions: {points} points apart, "
                "within the margin of error (± {margin} points).",
            ).format(points=f"{points:.1f}", margin=f"{margin:.1f}")
        )
    else:
        worse = builds[1] if p.acc_difference < 0 else builds[0]
        lines.append(
            tr(
                "Compare",
                "{build} got {points} points fewer right (margin of error ± {margin} points): "
                "it loses quality on these questions.",
            ).format(build=build_label(worse), points=f"{points:.1f}", margin=f"{margin:.1f}")
        )
    return " ".join(lines)


def way_text(way: RanAs) -> str:
    """ "llama.cpp on CPU, flash attention on, cache f16, batches of 512 tokens"."""
    parts = [tr("Compare", "{runtime} on {device}").format(runtime=way.backend, device=way.device)]
    if way.flash_attn is not None:
        parts.append(
            tr("Compare", "flash attention on")
            if way.flash_attn
            else tr("Compare", "flash attention off")
        )
    if way.kv_type:
        parts.append(tr("Compare", "cache {type}").format(type=way.kv_type))
    if way.n_ubatch:
        parts.append(tr("Compare", "batches of {n} tokens").format(n=way.n_ubatch))
    return ", ".join(parts)


def ran_text(builds: Sequence[ModelEntry], outcomes: Sequence[Outcome]) -> str:
    """How the builds ran, beside the figures: the same way, or what differed (flash attention
    alone moves a small model's answers' likelihoods a little). Empty when the engine did not
    say."""
    if len(outcomes) != 2:
        return ""
    a, b = outcomes[0].ran_as, outcomes[1].ran_as
    if a is None or b is None:
        return ""
    if not a.differences(b):
        return tr("Compare", "Both ran the same way: {way}.").format(way=way_text(a))
    return tr(
        "Compare",
        "The builds ran differently, and part of the difference may come from that: {first} "
        "ran {a}; {second} ran {b}.",
    ).format(first=build_label(builds[0]), a=way_text(a), second=build_label(builds[1]),
             b=way_text(b))  # fmt: skip

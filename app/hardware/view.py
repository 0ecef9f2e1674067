"""Hardware: what the probe found (CPU, RAM, GPUs, NPUs, runtimes) and which device Cove chose, and
why.

The engine host does the probing: it loads native runtimes to ask them what they support, and the
window never loads a runtime (nor can a crashing driver take it down).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from PySide6.QtCore import QObject, QProcess, Qt, QUrl, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget
from shiboken6 import isValid

from app.common.engine_service import EngineService
from app.common.i18n import tr
from app.common.page_header import page_header
from app.common.plain_words import best_device_text, device_text
from app.common.theme import Colors
from app.common.verdicts import verdict_from_plan
from engine.hardware.report import HardwareReport
from engine.launch import module_command
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.client import EngineStatus

PROBE_TIMEOUT_MS = 60_000


class HardwareProbe(QObject):
    """Asks the engine host for its hardware report (once, and again on ``refresh``). If the host
    cannot start, the probe runs as ``cove probe --json`` in a process of its own instead."""

    probed = Signal(object)  # HardwareReport
    probe_failed = Signal(str)

    def __init__(self, engine: EngineService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.report: HardwareReport | None = None
        self.error: str | None = None
        self._busy = False
        self._process: QProcess | None = None
        self._host_failed = False
        engine.start_failed.connect(self._host_down)

    @property
    def running(self) -> bool:
        return self._busy

    def refresh(self) -> None:
        if self._busy:
            return
        self._busy = True
        if self.engine.engine is not None:
            self._ask_host()
        elif self._host_failed:
            self._run_process()
        else:
            self.engine.started.connect(self._ask_host, Qt.ConnectionType.SingleShotConnection)

    def _host_down(self, _message: str) -> None:
        self._host_failed = True
        if self._busy and self._process is None:
            self._run_process()

    def _ask_host(self) -> None:
        engine = self.engine.engine
        if engine is None or self.engine.remote is not None:  # this computer's, not the other's
            self._run_process()
            return
        self.engine.control_pool.submit(
            engine.client.hardware, self._got, lambda exc: self._failed_with(str(exc))
        )

    def _got(self, report: HardwareReport) -> None:
        self._busy = False
        self.report, self.error = report, None
        self.probed.emit(report)

    def _failed_with(self, message: str) -> None:
        self._busy = False
        self.error = message
        self.probe_failed.emit(message)

    def _run_process(self) -> None:
        process = QProcess(self)
        program, *arguments = module_command("engine.cli")
        process.setProgram(program)
        process.setArguments([*arguments, "probe", "--json"])
        process.finished.connect(lambda code, _status: self._finished(process, code))
        process.errorOccurred.connect(lambda _err: self._process_failed(process))
        self._process = process
        process.start()

    def _finished(self, process: QProcess, code: int) -> None:
        # A probe still running when the window closes finishes while Qt deletes it.
        if self._process is not process or not isValid(process) or not isValid(self):
            return
        self._process = None
        out = bytes(process.readAllStandardOutput().data()).decode("utf-8", "replace")
        err = bytes(process.readAllStandardError().data()).decode("utf-8", "replace")
        process.deleteLater()
        try:
            report = HardwareReport.from_dict(json.loads(out)) if code == 0 else None
        except (ValueError, KeyError, TypeError):
            report = None
        if report is None:
            self._failed_with(err.strip() or tr("Hardware", "exit code {code}").format(code=code))
            return
        self._got(report)

    def _process_failed(self, process: QProcess) -> None:
        if self._process is not process or not isValid(process) or not isValid(self):
            return
        if process.state() != QProcess.ProcessState.NotRunning:
            return
        self._process = None
        process.deleteLater()
        self._failed_with(process.errorString())


def _row(label: str, value: str) -> str:
    return f"<tr><td style='padding:2px 16px 2px 0'><b>{label}</b></td><td>{value}</td></tr>"


def speculation_text(status: EngineStatus) -> str:
    """What speculative decoding does for the loaded model here."""
    if status.exact_tokens:
        guesses = tr(
            "Hardware",
            "Guessed tokens are checked in batches wherever that pays. This build computes a "
            "batch exactly as single tokens for the first {count} tokens of a conversation; "
            "past them a batch may round differently, as replies batched together do "
            '(speculation "exact" keeps to them).',
        ).format(count=f"{status.exact_tokens:,}")
    else:
        guesses = tr(
            "Hardware",
            "Guessed tokens are checked in batches wherever that pays. This build computes a "
            "batch slightly differently from single tokens, which may change a near-tie "
            '(speculation "exact" turns it off here).',
        )
    draft = (
        tr("Hardware", "{draft} drafts for it.").format(draft=status.draft)
        if status.draft
        else tr("Hardware", "No draft model is in use.")
    )
    return tr("Hardware", "Speculative decoding: {guesses} {draft}").format(
        guesses=guesses, draft=draft
    )


def background_text(status: EngineStatus) -> str:
    """What the engine's background work is doing, in a line."""
    if not status.background_measuring:
        return tr("Hardware", "Background measuring is off: models run the way the planner chose.")
    if not status.background:
        return tr("Hardware", "Nothing is waiting to be measured.")
    lines = []
    for work in status.background:
        what, why = work.work, work.why
        lines.append(f"{what}: {why}." if why else f"{what}.")
    return " ".join(lines)


def report_html(
    report: HardwareReport,
    status: EngineStatus | None,
    colors: Colors,
    label: Callable[[str], str] = str,
) -> str:
    """The probe's report as a page: found, not found, and the choice with its reasons. Each
    thing in plain words first; the technical names (instruction sets, backends, APIs) after
    them, in grey."""
    esc = html.escape
    cpu, mem, ort, llama = report.cpu, report.memory, report.ort, report.llama_cpp
    muted = f"color:{colors.muted}"

    def detail(text: str) -> str:
        return f" <span style='{muted}'>({esc(text)})</span>" if text else ""

    def none_found() -> str:
        return f"<span style='{muted}'>{esc(tr('Hardware', 'none found'))}</span>"

    out = [f"<h3>{esc(tr('Hardware', 'What Cove chose'))}</h3>"]
    if status is not None and status.model:
        plan = status.plan
        device = str(status.device or "")
        runs = tr(
            "Hardware", "<b>{model}</b> runs on <b>{device}</b>, with a context of {n} tokens."
        ).format(
            model=esc(label(status.model)),
            device=esc(device_text(device) or device),
            n=f"{status.n_ctx or 0:,}",
        )
        how = [part for part in (str(status.backend or ""), device) if part]
        if plan is not None and plan.threads:
            how.append(tr("Hardware", "{n} threads").format(n=plan.threads))
        out.append(f"<p>{runs}{detail(', '.join(how))}</p>")
        if plan is not None:
            verdict = verdict_from_plan(plan)
            why = "".join(f"<li>{esc(d)}</li>" for d in verdict.details)
            reason = tr("Hardware", "Why: {verdict}.").format(verdict=esc(verdict.text))
            out.append(f"<p>{reason}</p><ul>{why}</ul>")
        out.append(f"<p>{esc(speculation_text(status))}</p>")
    best = tr("Hardware", "Models run best here on <b>{device}</b>.").format(
        device=esc(best_device_text(report))
    )
    out.append(f"<p>{best}<br><span style='{muted}'>{esc(report.best_device())}</span></p>")
    out.append(f"<h3>{esc(tr('Hardware', 'This computer'))}</h3><table>")
    out.append(_row(esc(tr("Hardware", "System")), esc(f"{report.os} ({cpu.arch})")))
    out.append(_row(esc(tr("Hardware", "Processor")), esc(cpu.model)))
    cores = tr("Hardware", "{cores} cores, {threads} threads at once").format(
        cores=cpu.physical_cores, threads=cpu.logical_cores
    )
    out.append(_row(esc(tr("Hardware", "Cores")), esc(cores)))
    features = " ".join(cpu.features) or tr("Hardware", "none detected")
    out.append(
        _row(
            f"<span style='{muted}'>{esc(tr('Hardware', 'Instruction sets'))}</span>",
            f"<span style='{muted}'>{esc(features)}</span>",
        )
    )
    memory = tr("Hardware", "{total} total, {free} available").format(
        total=format_bytes(mem.total_bytes), free=format_bytes(mem.available_bytes)
    )
    out.append(_row(esc(tr("Hardware", "Memory")), esc(memory)))
    if report.gpus:
        for gpu in report.gpus:
            memory = (
                tr("Hardware", "{total} shared with the processor, about {usable} usable").format(
                    total=format_bytes(gpu.total_bytes), usable=format_bytes(gpu.budget_bytes)
                )
                if gpu.unified_memory
                else tr("Hardware", "{free} free of {total}").format(
                    free=format_bytes(gpu.free_bytes), total=format_bytes(gpu.total_bytes)
                )
            )
            title = (
                tr("Hardware", "Graphics card {n}").format(n=gpu.index + 1)
                if len(report.gpus) > 1
                else tr("Hardware", "Graphics card")
            )
            out.append(_row(esc(title), esc(gpu.name) + detail(gpu.api.upper())))
            out.append(_row("", esc(memory)))
    else:
        out.append(_row(esc(tr("Hardware", "Graphics card")), none_found()))
    npus = ort.npus()
    out.append(
        _row(
            esc(tr("Hardware", "AI accelerator")),
            (esc(", ".join(npus)) + detail("NPU")) if npus else none_found(),
        )
    )
    out.append(f"</table><h3>{esc(tr('Hardware', 'Software that runs models'))}</h3><table>")
    if llama.available:
        # A build able to offload says so even with no graphics card here: what counts is a
        # device other than the processor.
        on_gpu = llama.supports_gpu_offload and any(
            not d.upper().startswith("CPU") for d in llama.devices
        )
        offload = (
            tr("Hardware", "uses the graphics card")
            if on_gpu
            else tr("Hardware", "uses the processor")
        )
        devices = ", ".join(llama.devices) or tr("Hardware", "unknown")
        out.append(
            _row(
                "llama.cpp",
                esc(f"{llama.version}, {offload}")
                + detail(tr("Hardware", "devices: {devices}").format(devices=devices)),
            )
        )
    else:
        unavailable = tr("Hardware", "unavailable: {reason}").format(reason=llama.reason or "")
        out.append(_row("llama.cpp", esc(unavailable)))
    if ort.available:
        out.append(_row("ONNX Runtime", esc(f"{ort.version}: {ort.describe()}")))
    else:
        unavailable = tr("Hardware", "unavailable: {reason}").format(reason=ort.reason or "")
        out.append(_row("ONNX Runtime", esc(unavailable)))
    out.append(_row("Core ML", esc(report.coreml.reason)))
    out.append("</table>")
    out.append(_measured_html(report, colors))
    if report.absent:
        items = "".join(f"<li><b>{esc(a.what)}</b>: {esc(a.reason)}</li>" for a in report.absent)
        title = esc(tr("Hardware", "Not found"))
        out.append(f"<h3>{title}</h3><ul style='{muted}'>{items}</ul>")
    return "".join(out)


def _measured_html(report: HardwareReport, colors: Colors) -> str:
    """The ways models were measured to run here, fastest first at the default context, with
    the one in use marked."""
    from engine.planner import DEFAULT_CONTEXT
    from engine.tuning.store import TuningStore, machine_key

    esc = html.escape
    store = TuningStore()
    measured = store.measured(machine_key(report))
    if not measured:
        none = tr(
            "Hardware",
            "No model has been measured here yet. A model that can run more than one way (flash "
            "attention on or off, graphics card or processor, its GGUF or ONNX build) is measured "
            "after it is first loaded, once this computer is idle.",
        )
        title = esc(tr("Hardware", "Measured"))
        return f"<h3>{title}</h3><p style='color:{colors.muted}'>{esc(none)}</p>"
    overrides = store.overrides()
    chosen = set(overrides.values())
    title = tr("Hardware", "Measured (a turn at a {n}-token context)").format(
        n=f"{DEFAULT_CONTEXT:,}"
    )
    out = [f"<h3>{esc(title)}</h3>"]
    for model, ways in sorted(measured.items()):
        ways.sort(key=lambda m: m.turn_s(DEFAULT_CONTEXT))
        paths = sorted({str(Path(m.config.path).resolve()) for m in ways})
        pinned = any(path in overrides for path in paths)
        out.append(f"<p><b>{esc(model)}</b></p><ul>")
        for n, m in enumerate(ways):
            low, high = m.spread(DEFAULT_CONTEXT)
            if m.config.label in chosen:
                mark = " " + tr("Hardware", "(your choice)")
            else:
                mark = " " + tr("Hardware", "(fastest)") if n == 0 else ""
            in_use = m.config.label in chosen or (n == 0 and not pinned)
            figures = tr(
                "Hardware",
                "prompt {prompt} tokens/s, replies {start} tokens/s at the start, {half} "
                "halfway; a turn {turn} s ({low}–{high} s over {runs} runs)",
            ).format(
                prompt=f"{m.prefill_tokens_per_s:.0f}",
                start=f"{m.near_tokens_per_s:.0f}",
                half=f"{1 / m.decode_s(DEFAULT_CONTEXT / 2):.0f}",
                turn=f"{m.turn_s(DEFAULT_CONTEXT):.2f}",
                low=f"{low:.2f}",
                high=f"{high:.2f}",
                runs=m.runs,
            )
            out.append(
                f"<li>{esc(m.config.label)}{esc(mark)}: {esc(figures)}"
                f"{_use_link(paths, m.config.label, in_use)}</li>"
            )
        out.append("</ul>")
        if any(m.provisional for m in ways):
            busy = tr(
                "Hardware",
                "Measured while other programs kept the processor busy: measured again later, "
                "when this computer is idle.",
            )
            out.append(f"<p style='color:{colors.muted}'>{esc(busy)}</p>")
        if pinned:
            out.append(f"<li>{_use_link(paths, None, False)}</li>")
    return "".join(out)


WAY_SCHEME = "way"


def _use_link(paths: list[str], label: str | None, chosen: bool) -> str:
    """A link that makes a way the one a model runs by (None: the fastest again), taking effect
    at its next load; nothing for the way already chosen."""
    if chosen:
        return ""
    target = quote(json.dumps({"paths": paths, "label": label}))
    words = (
        tr("Hardware", "Use this way")
        if label is not None
        else tr("Hardware", "Go back to the fastest way")
    )
    return f" <a href='{WAY_SCHEME}:{target}'>{words}</a>"


def choose_way(url: QUrl) -> bool:
    """Keep the way a link chose (engine/tuning/store.py); False for any other link."""
    from engine.tuning.store import TuningStore

    if url.scheme() != WAY_SCHEME:
        return False
    try:
        data = json.loads(unquote(url.path()))
        paths, label = [Path(p) for p in data["paths"]], data["label"]
    except (ValueError, KeyError, TypeError):
        return False
    store = TuningStore()
    for path in paths:
        store.set_override(path, label if isinstance(label, str) else None)
    return True


class HardwareView(QWidget):
    back_requested = Signal()

    def __init__(self, probe: HardwareProbe, colors: Colors) -> None:
        super().__init__()
        self.probe = probe
        self.colors = colors
        # A model's name as people know it (the window knows the installed models' names).
        self.label: Callable[[str], str] = str
        self.status: EngineStatus | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        header = page_header(tr("Hardware", "Hardware"), self.back_requested)
        self.refresh_button = QPushButton(tr("Hardware", "Check again"))
        self.refresh_button.setObjectName("Secondary")
        self.refresh_button.clicked.connect(self.refresh)
        header.addWidget(self.refresh_button)
        layout.addLayout(header)
        self.page = QTextBrowser()
        self.page.setOpenLinks(False)
        self.page.anchorClicked.connect(self._link)
        self.page.setFrameShape(QTextBrowser.Shape.NoFrame)
        layout.addWidget(self.page, 1)
        # Measuring in the background (the ways to run a model, how many replies at once pay):
        # only when this computer is idle, at the lowest priority; a person may turn it off.
        self.background_box = QCheckBox(
            tr("Hardware", "Measure in the background when this computer is idle")
        )
        self.background_box.setChecked(True)
        self.background_box.setToolTip(
            tr(
                "Hardware",
                "Cove measures the fastest way to run a model on this computer only while "
                "nothing else is using the processor, and stops at once when another program "
                "needs it.",
            )
        )
        self.background_box.toggled.connect(self._background_toggled)
        layout.addWidget(self.background_box)
        self.background_line = QLabel("")
        self.background_line.setProperty("muted", True)
        self.background_line.setWordWrap(True)
        layout.addWidget(self.background_line)
        probe.probed.connect(lambda _r: self.show_report())
        probe.probe_failed.connect(lambda _e: self.show_report())
        self.show_report()

    def refresh(self) -> None:
        self.probe.refresh()
        self.show_report()

    def set_status(self, status: EngineStatus | None) -> None:
        self.status = status
        self.show_report()
        self._show_background(status)

    def _show_background(self, status: EngineStatus | None) -> None:
        here = status is not None and self.probe.engine.remote is None
        self.background_box.setEnabled(here)
        if status is None or not here:
            self.background_line.setText("")
            return
        self.background_box.blockSignals(True)
        self.background_box.setChecked(status.background_measuring)
        self.background_box.blockSignals(False)
        self.background_line.setText(background_text(status))

    def _background_toggled(self, on: bool) -> None:
        engine = self.probe.engine.engine
        if engine is None or self.probe.engine.remote is not None:
            return
        service = self.probe.engine
        service.control_pool.submit(
            lambda: engine.client.set_background_measuring(on),
            lambda status: self.set_status(status),
            lambda exc: self.background_line.setText(
                tr("Hardware", "Could not change the setting: {error}").format(error=exc)
            ),
        )

    def set_colors(self, colors: Colors) -> None:
        self.colors = colors
        self.show_report()

    def _link(self, url: QUrl) -> None:
        if choose_way(url):
            self.show_report()  # the choice is marked; the model runs so from its next load

    def show_report(self) -> None:
        if self.probe.report is not None:
            self.page.setHtml(report_html(self.probe.report, self.status, self.colors, self.label))
        elif self.probe.error is not None:
            failed = tr(
                "Hardware",
                "Cove could not look at this computer's hardware. Models still run, on the "
                "processor; Check again tries once more.",
            )
            self.page.setHtml(
                f"<p>{html.escape(failed)}</p>"
                f"<p style='color:{self.colors.muted}'>{html.escape(self.probe.error)}</p>"
            )
        else:
            looking = html.escape(tr("Hardware", "Looking…"))
            self.page.setHtml(f"<p style='color:{self.colors.muted}'>{looking}</p>")

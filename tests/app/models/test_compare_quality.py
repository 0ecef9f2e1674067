"""Compare quality on the Models page: the starter and a second build of it (requantized here by
llama.cpp's own quantizer) answer the same questions through the window's real engine host."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from engine.library.installed import scan_models
from engine.library.same_model import model_key, other_builds

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from tests.app.conftest import WindowFactory

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
TASK = ROOT / "tests" / "fixtures" / "eval" / "cove_tiny_mc.yaml"
WAIT_MS = 300_000


@pytest.fixture(scope="session")
def second_build(tmp_path_factory: pytest.TempPathFactory, starter: Path) -> Path:
    """The starter in another quantization (Q4_0), written by llama.cpp's quantizer."""
    import llama_cpp

    out = tmp_path_factory.mktemp("builds") / "SmolLM2-135M-Instruct.Q4_0.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0
    params.allow_requantize = True
    params.nthread = 1
    assert (
        llama_cpp.llama_model_quantize(
            str(starter).encode(), str(out).encode(), ctypes.byref(params)
        )
        == 0
    )
    return out


def install(second_build: Path) -> Path:
    from engine.paths import models_dir

    folder = models_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(second_build, folder / second_build.name))


def test_builds_of_one_model_are_found_by_name(data_dir: Path, second_build: Path) -> None:
    installed = install(second_build)
    entries = scan_models()
    starter = next(e for e in entries if e.source == "starter")
    assert model_key(starter) == "smollm2-135m-instruct"
    (other,) = other_builds(starter, entries)
    assert other.path == installed and other.quantization == "Q4_0"
    assert other_builds(other, entries)[0].source == "starter"


def test_compare_quality_runs_both_builds_through_the_engine(
    qtbot: QtBot, make_window: WindowFactory, second_build: Path
) -> None:
    install(second_build)
    window = make_window()
    view = window.models_view
    view.compare_task = TASK
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        view.refresh()
    row = next(i for i, e in enumerate(view.entries) if e.source == "starter")
    view.table.selectRow(row)
    assert view.compare_button.isEnabled() and not view.compare_button.isHidden()
    dialog = view.compare_selected()
    assert dialog is not None and not dialog.isHidden()
    assert dialog.first.accessibleName() == "First build"
    assert "4-bit" in dialog.first.currentText() and "Q4_0" in dialog.second.currentText()

    with qtbot.waitSignal(dialog.compared, timeout=WAIT_MS):
        dialog.start_button.click()
    assert dialog.table.rowCount() == 2
    assert [o.model for o in dialog.outcomes] == [b.id for b in dialog.builds[:2]]
    assert all(o.score.questions == 10 and 0 <= o.score.acc <= 1 for o in dialog.outcomes)
    assert "same answer to" in dialog.verdict.text()
    assert "quality on these questions" in dialog.verdict.text()
    # How they ran is said beside the figures: the same way here.
    assert not dialog.ran.isHidden() and dialog.ran.accessibleName() == "How they ran"
    assert dialog.ran.text().startswith("Both ran the same way: llama.cpp on ")
    assert "flash attention o" in dialog.ran.text()
    assert dialog.start_button.isEnabled() and not dialog.stop_button.isVisible()
    # The measured build that the chat does not use is let go.
    host = window.engine.engine
    assert host is not None
    qtbot.waitUntil(
        lambda: all(r.model != second_build.stem for r in host.client.status().residents),
        timeout=WAIT_MS,
    )

    # Stopped midway: said so, and it can start again.
    with qtbot.waitSignal(dialog.stopped, timeout=WAIT_MS) as stopped:
        dialog.start_button.click()
        dialog.stop_button.click()
    assert stopped.args is not None and stopped.args[0].startswith("Stopped.")
    assert dialog.start_button.isEnabled()


def test_the_verdict_says_whether_the_difference_is_beyond_its_margin() -> None:
    from app.models.compare import verdict_text
    from engine.evaluation.metrics import Answered, score
    from engine.evaluation.run import Outcome
    from engine.library.installed import ModelEntry

    def outcome(right: list[bool]) -> Outcome:
        answered = tuple(Answered((-1.0, -2.0) if r else (-2.0, -1.0), (1, 1), 0) for r in right)
        return Outcome("m", score(answered), answered, 1.0)

    def build(code: str) -> ModelEntry:
        return ModelEntry(f"m-{code}.gguf", "m", "GGUF", 100, Path(f"m-{code}.gguf"), "folder",
                          quantization=code)  # fmt: skip

    builds = [build("Q8_0"), build("Q2_K")]
    same = verdict_text(builds, [outcome([True] * 20), outcome([True] * 20)])
    assert "100 %" in same and "both got the same ones right" in same
    close = verdict_text(builds, [outcome([True] * 20), outcome([True] * 19 + [False])])
    assert "No clear difference" in close and "5.0 points apart" in close
    lost = verdict_text(builds, [outcome([True] * 20), outcome([True] * 10 + [False] * 10)])
    assert "Q2_K" in lost and "50.0 points fewer right" in lost and "loses quality" in lost


def test_builds_that_ran_differently_are_said_to() -> None:
    from dataclasses import replace

    from app.models.compare import ran_text
    from engine.evaluation.metrics import Answered, score
    from engine.evaluation.ran_as import RanAs
    from engine.evaluation.run import Outcome
    from engine.library.installed import ModelEntry

    answered = (Answered((-1.0, -2.0), (1, 1), 0),)
    on = RanAs("llama.cpp", "CPU", True, "f16", 512, 512, 4, 32)

    def outcome(way: RanAs | None) -> Outcome:
        return Outcome("m", score(answered), answered, 1.0, way)

    builds = [ModelEntry(f"m-{q}.gguf", "m", "GGUF", 100, Path(f"m-{q}.gguf"), "folder",
                         quantization=q) for q in ("Q8_0", "Q2_K")]  # fmt: skip
    same = ran_text(builds, [outcome(on), outcome(replace(on, sequences=1))])
    assert same == (
        "Both ran the same way: llama.cpp on CPU, flash attention on, cache f16, "
        "batches of 512 tokens."
    )
    differ = ran_text(builds, [outcome(on), outcome(replace(on, flash_attn=False))])
    assert differ.startswith("The builds ran differently")
    assert "Q8_0" in differ and "flash attention on" in differ
    assert "Q2_K" in differ and "flash attention off" in differ
    assert ran_text(builds, [outcome(on), outcome(None)]) == ""

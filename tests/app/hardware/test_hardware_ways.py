"""The Hardware page's measured ways: a link makes one the way a model runs, another goes back
to the fastest; the page never asks for a terminal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QUrl

if TYPE_CHECKING:
    from app.common.theme import ThemeManager


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def links(html: str) -> list[tuple[str, str]]:
    """(target, words) of each link on the page."""
    import re

    return [(m[1], m[2]) for m in re.finditer(r"href='([^']+)'>([^<]+)<", html)]


def test_a_measured_way_is_chosen_by_a_link(data_dir: Path, theme: ThemeManager) -> None:
    from app.hardware.view import _measured_html, choose_way
    from engine.tuning.configs import Config
    from engine.tuning.figures import Measurement, Sample
    from engine.tuning.store import TuningStore, machine_key
    from tests.support.machines import cpu_only_8gb

    report = cpu_only_8gb()
    model = data_dir / "models" / "tiny-Q4_K_M.gguf"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"GGUF")
    store = TuningStore()
    for flash, tps in ((True, 40.0), (False, 30.0)):
        config = Config(str(model), "llama.cpp", "cpu", 0, flash)
        sample = Sample(300.0, 300, tps, 1300, tps * 0.9, 2.0)
        store.save(machine_key(report), model.name, Measurement(config, 1.0, (sample,)))
    page = _measured_html(report, theme.colors)
    assert "cove tune" not in page
    found = links(page)
    assert [words for _href, words in found] == ["Use this way"]  # the fastest is in use
    assert choose_way(QUrl(found[0][0]))
    assert store.override(model) is not None and "flash attention off" in str(store.override(model))
    page = _measured_html(report, theme.colors)
    assert "(your choice)" in page
    back = [href for href, words in links(page) if words == "Go back to the fastest way"]
    assert len(back) == 1 and choose_way(QUrl(back[0]))
    assert store.override(model) is None
    assert not choose_way(QUrl("https://example.com/"))

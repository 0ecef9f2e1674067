"""The status bar's speeds: the last reply's, and the reading of the last long prompt, which
stays until another long prompt is read."""

from __future__ import annotations

from typing import Any

from engine.types import GenerationStats


def test_the_last_long_prompt_s_reading_speed_stays_in_the_status(qapp: Any) -> None:
    from app.shell.status_bar import StatusBar

    bar = StatusBar()
    long = GenerationStats(
        prompt_tokens=8200, cached_tokens=200, completion_tokens=32, ttft_s=19.5,
        prompt_tokens_per_s=410.4, decode_tokens_per_s=21.3,
    )  # fmt: skip
    bar.set_stats(long)
    assert bar.speed.text() == (
        "21.3 tokens/s · first token 19.50 s · last long prompt: 8,000 tokens read at 410 tokens/s"
    )
    short = GenerationStats(
        prompt_tokens=8300, cached_tokens=8200, completion_tokens=10, ttft_s=0.3,
        prompt_tokens_per_s=300.0, decode_tokens_per_s=25.0,
    )  # fmt: skip
    bar.set_stats(short)
    assert bar.speed.text().startswith(
        "25.0 tokens/s · first token 0.30 s · last long prompt: 8,000"
    )
    bar.set_context(4100, 8192, "")
    assert bar.context_label.text() == "Context 4.1k / 8.2k"

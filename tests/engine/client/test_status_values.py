"""The engine's status as typed values (engine/client/protocol.py): what the host sends reads
back the same, an older or another host's fewer keys read as their defaults, and what cannot be
read is skipped instead of breaking the status."""

from __future__ import annotations

import json

from engine.client.protocol import (
    BackgroundWork,
    EngineStatus,
    LongPrompt,
    ResidentModel,
    SavedState,
    status_from,
)


def test_a_status_goes_through_json_and_back_whole() -> None:
    status = EngineStatus(
        model="starter",
        background=(
            BackgroundWork("Measuring", "paused", "another program", "2026-12-02T14:05:00Z", 2),
        ),
        residents=(
            ResidentModel("starter", "/models/starter.gguf", "llama.cpp", "CPU", 4096, 4, True, 512,
                          512, "f16", 1, 2, 123_456, False, 600.0, 1_780_000_000.5),
        ),
        last_long_prompt=LongPrompt("starter", 1200, 2.5, 480.0, "2026-12-02T14:00:00+00:00"),
    )  # fmt: skip
    sent = json.loads(json.dumps(status.to_dict()))
    assert sent["residents"][0]["kv_type"] == "f16" and sent["background"][0]["failed_tries"] == 2
    assert status_from(sent) == status


def test_fewer_keys_read_as_defaults_and_unreadable_entries_are_skipped() -> None:
    status = status_from(
        {
            "model": "m",
            "residents": [{"model": "m", "n_ctx": 2048}, "garbled", {"model": "x", "parallel": 0}],
            "background": [{"work": "Measuring", "state": "running"}, 3],
            "last_long_prompt": "garbled",
            "a_newer_field": {"ignored": True},
        }
    )  # fmt: skip
    first, second = status.residents
    assert first == ResidentModel("m", n_ctx=2048)
    assert first.parallel == 1 and first.keep_alive_s is None and first.flash_attn is None
    assert second.parallel == 1  # never fewer than one sequence
    assert status.background == (BackgroundWork("Measuring", "running", ""),)
    assert status.last_long_prompt is None


def test_saved_state_reads_an_engine_without_it() -> None:
    assert SavedState.from_dict({"enabled": False, "bytes": 0}) == SavedState(False)
    full = SavedState(True, 2**30, 4 * 2**30, 3, 0)
    assert SavedState.from_dict(json.loads(json.dumps(full.to_dict()))) == full

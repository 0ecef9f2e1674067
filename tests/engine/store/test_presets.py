"""Chat presets on a real chat history file: round trips, the built-in presets kept safe, the
default across reopening, import and export, and damaged files and entries."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.store import ChatSettings, Store
from engine.store.presets import BUILT_IN, Preset, Presets

MINE = Preset(
    "Pirate",
    system_prompt="Answer like a pirate.",
    settings=ChatSettings(temperature=1.1, top_p=0.9, top_k=20, max_tokens=300, ctx=8192),
    model="qwen2.5-1.5b-instruct",
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cove.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    with Store(db) as opened:
        yield opened


@pytest.fixture
def presets(store: Store) -> Presets:
    return Presets(store)


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_built_in_presets_ship_first_and_sound_right(presets: Presets) -> None:
    names = [p.name for p in presets.all()]
    assert names == ["General assistant", "Coding helper", "Document summariser"]
    assert all(p.built_in and p.system_prompt for p in BUILT_IN)
    coding = presets.get("Coding helper")
    assert coding is not None and coding.settings.temperature == pytest.approx(0.2)
    summariser = presets.get("document summariser")  # names match regardless of case
    assert summariser is not None and summariser.settings.temperature == pytest.approx(0.3)
    assert "[1]" in summariser.system_prompt


def test_a_preset_round_trips_through_json_and_the_store(db: Path, presets: Presets) -> None:
    assert Preset.from_json(MINE.to_json()) == MINE
    assert "built_in" not in MINE.to_json()
    presets.save(MINE)
    presets.save(Preset("Another", "Be brief."))
    assert [p.name for p in presets.all()][3:] == ["Another", "Pirate"]
    with Store(db) as reopened:
        assert Presets(reopened).get("Pirate") == MINE


def test_saving_a_name_again_replaces_it(presets: Presets) -> None:
    presets.save(MINE)
    presets.save(Preset("pirate", "Arr."))
    mine = [p for p in presets.all() if not p.built_in]
    assert [(p.name, p.system_prompt) for p in mine] == [("pirate", "Arr.")]


def test_a_preset_needs_a_name() -> None:
    for data in ({}, {"name": ""}, {"name": "   "}, {"name": 3}, ["Pirate"], None):
        with pytest.raises(ValueError, match=r"name|object"):
            Preset.from_json(data)
    with pytest.raises(ValueError, match="needs a name"):
        Preset(" ")
    assert Preset("  Two   words ").name == "Two words"


def test_reading_a_preset_is_lenient() -> None:
    preset = Preset.from_json(
        {
            "name": "Odd",
            "system_prompt": 12,
            "settings": {"temperature": "hot", "top_k": 5, "from_the_future": True},
            "model": "",
            "also_new": [1, 2],
        }
    )
    assert preset == Preset("Odd", "", ChatSettings(top_k=5), None)


def test_built_in_presets_cannot_be_changed_or_deleted(store: Store, presets: Presets) -> None:
    with pytest.raises(ValueError, match=r'built-in.*another name.*"Coding helper \(my version\)"'):
        presets.save(Preset("Coding helper", "Something else"))
    with pytest.raises(ValueError, match="built-in"):
        presets.save(Preset("coding  HELPER"))
    with pytest.raises(ValueError, match="cannot be deleted"):
        presets.delete("General assistant")
    assert store.get_setting("presets") is None
    assert presets.get("Coding helper") == BUILT_IN[1]


def test_deleting_a_preset(presets: Presets) -> None:
    presets.save(MINE)
    presets.set_default("Pirate")
    presets.delete("Pirate")
    assert presets.get("Pirate") is None
    assert presets.default() is None  # a deleted default leaves none
    presets.delete("Never existed")


def test_the_default_is_kept_across_reopening(db: Path, presets: Presets) -> None:
    assert presets.default() is None
    presets.save(MINE)
    presets.set_default("pirate")
    with Store(db) as reopened:
        assert Presets(reopened).default() == MINE
        Presets(reopened).set_default("Coding helper")
    with Store(db) as reopened:
        assert Presets(reopened).default() == BUILT_IN[1]
        Presets(reopened).set_default(None)
        assert Presets(reopened).default() is None
    with pytest.raises(ValueError, match='no preset named "Nobody"'):
        presets.set_default("Nobody")


def test_export_and_import_round_trip(tmp_path: Path, presets: Presets) -> None:
    presets.save(MINE)
    presets.save(Preset("Terse", "One line answers.", ChatSettings(temperature=0.0)))
    path = tmp_path / "mine.json"
    exported = presets.export_json(["Pirate", "Terse", "Coding helper"], path)
    assert [p.name for p in exported] == ["Pirate", "Terse", "Coding helper"]
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "cove.presets" and document["version"] == 1
    assert len(document["presets"]) == 3

    with Store(tmp_path / "other.db") as other:
        imported = Presets(other).import_json(path)
        assert [p.name for p in imported] == ["Pirate", "Terse", "Coding helper (imported)"]
        assert Presets(other).get("Pirate") == MINE
        copy = Presets(other).get("Coding helper (imported)")
        assert copy is not None and not copy.built_in
        assert copy.system_prompt == BUILT_IN[1].system_prompt
        assert Presets(other).get("Coding helper") == BUILT_IN[1]

    with pytest.raises(ValueError, match='no preset named "Nobody"'):
        presets.export_json(["Nobody"], tmp_path / "none.json")
    assert not (tmp_path / "none.json").exists()
    every = presets.export_json(None, tmp_path / "all.json")
    assert [p.name for p in every] == ["Pirate", "Terse"]


def test_import_reads_one_preset_or_a_bare_list(tmp_path: Path, presets: Presets) -> None:
    one = write(tmp_path / "one.json", MINE.to_json())
    assert presets.import_json(one) == [MINE]
    several = write(tmp_path / "list.json", [{"name": "A"}, {"name": "General assistant"}])
    imported = presets.import_json(several)
    assert [p.name for p in imported] == ["A", "General assistant (imported)"]
    again = write(
        tmp_path / "again.json",
        [{"name": "General assistant"}, {"name": "General assistant (imported)"}],
    )
    names = [p.name for p in presets.import_json(again)]
    assert names == ["General assistant (imported 2)", "General assistant (imported)"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json {", "not valid JSON"),
        ('{"format": "something.else", "presets": []}', "not a Cove presets file"),
        ('{"format": "cove.presets", "version": 1}', 'no list of "presets"'),
        ('{"format": "cove.presets", "version": 1, "presets": []}', "holds no presets"),
        ('{"theme": "dark"}', "does not hold presets"),
        ("42", "does not hold presets"),
        ('[{"name": "Good"}, {"system_prompt": "no name"}]', "Preset 2 in bad.json"),
        ('[{"name": "Good"}, "text"]', "Preset 2 in bad.json cannot be read"),
        ('[{"name": "Same"}, {"name": "same"}]', "Presets 1 and 2 .* both named"),
    ],
)
def test_bad_files_are_refused_and_change_nothing(
    tmp_path: Path, store: Store, presets: Presets, content: str, message: str
) -> None:
    presets.save(MINE)
    before = store.get_setting("presets")
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        presets.import_json(bad)
    assert store.get_setting("presets") == before


def test_unreadable_files_are_refused(tmp_path: Path, presets: Presets) -> None:
    with pytest.raises(ValueError, match=r"Could not read missing\.json"):
        presets.import_json(tmp_path / "missing.json")
    binary = tmp_path / "picture.json"
    binary.write_bytes(b"\xff\xfe\x00\x80garbage")
    with pytest.raises(ValueError, match="not a text file"):
        presets.import_json(binary)


def test_damaged_stored_entries_are_skipped_and_kept(store: Store, presets: Presets) -> None:
    store.set_setting(
        "presets",
        [
            "not an object",
            {"no": "name"},
            {"name": ""},
            {"name": "Coding helper", "system_prompt": "a hijacked built-in"},
            MINE.to_json(),
            {"name": "pirate", "system_prompt": "a second of the same name"},
            {"name": "Future", "settings": {"temperature": 99}, "sparkles": True},
        ],
    )
    mine = [p for p in presets.all() if not p.built_in]
    assert [p.name for p in mine] == ["Future", "Pirate"]
    assert presets.get("Pirate") == MINE
    assert presets.get("Future") == Preset("Future")  # an out-of-range setting keeps its default
    assert presets.get("Coding helper") == BUILT_IN[1]

    presets.save(Preset("Future", "Now readable."))
    stored = store.get_setting("presets")
    assert "not an object" in stored and {"no": "name"} in stored  # left for whoever can read it
    future = [e for e in stored if isinstance(e, dict) and e.get("name") == "Future"]
    assert future == [{**Preset("Future", "Now readable.").to_json(), "sparkles": True}]


def test_a_damaged_settings_value_is_no_crash(store: Store, presets: Presets) -> None:
    store.set_setting("presets", {"oops": "an object"})
    store.set_setting("default_preset", 17)
    assert [p.name for p in presets.all()] == [p.name for p in BUILT_IN]
    assert presets.default() is None
    store.set_setting("default_preset", "Gone")
    assert presets.default() is None
    presets.save(MINE)
    assert presets.get("Pirate") == MINE

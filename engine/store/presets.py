"""Chat presets: a name, a system prompt, sampling settings and optionally a model, to start a chat
from (as LM Studio's presets and Jan's assistants).

Three presets ship with Cove (``BUILT_IN``) and cannot be changed or deleted, so a new user always
has good starting points and an edited copy never silently replaces them. The user's own presets
and the default for new chats live in the history's app settings (``Store.get_setting``), under
``"presets"`` and ``"default_preset"``. Reading them is lenient: an entry that a crash, a hand edit
or a newer Cove left unreadable is skipped (and kept as it is), never a reason for the chat window
not to open.

Presets travel between computers as a small JSON file, ``{"format": "cove.presets", "version": 1,
"presets": [...]}``. Importing checks the whole file before saving anything, so a bad file changes
nothing and its error says what is wrong with it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.store.types import ChatSettings

__all__ = ["BUILT_IN", "Preset", "Presets"]

FORMAT = "cove.presets"
VERSION = 1
PRESETS_KEY = "presets"
DEFAULT_KEY = "default_preset"
MAX_NAME_LENGTH = 100
# A presets file is a few kilobytes; anything far larger is some other file picked by mistake,
# and is not read into memory whole.
MAX_FILE_BYTES = 5 * 1024 * 1024
IMPORTED_SUFFIX = " (imported)"


def _clean_name(name: str) -> str:
    """Names compare as the user reads them: runs of spaces and line breaks count as one space."""
    return " ".join(name.split())


def _key(name: str) -> str:
    """Two presets whose names differ only in case would be indistinguishable in a menu."""
    return _clean_name(name).casefold()


@dataclass(frozen=True, slots=True)
class Preset:
    """A named starting point for a chat. ``model`` is a model's name or path (None: keep the
    chat's model); ``built_in`` marks the presets that ship with Cove, which are never stored."""

    name: str
    system_prompt: str = ""
    settings: ChatSettings = field(default_factory=ChatSettings)
    model: str | None = None
    built_in: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError("a preset's name must be text")
        name = _clean_name(self.name)
        if not name:
            raise ValueError("a preset needs a name")
        if len(name) > MAX_NAME_LENGTH:
            raise ValueError(f"a preset's name must be at most {MAX_NAME_LENGTH} characters")
        object.__setattr__(self, "name", name)  # frozen: the cleaned name is the name

    def to_json(self) -> dict[str, Any]:
        """The preset as stored and exported. ``built_in`` is left out: a copy of a built-in
        preset, once stored or imported elsewhere, is the user's own."""
        return {
            "name": self.name,
            "system_prompt": self.system_prompt,
            "settings": self.settings.to_json(),
            "model": self.model,
        }

    @classmethod
    def from_json(cls, data: object) -> Preset:
        """Read a stored or imported preset leniently: a missing or mistyped prompt, setting or
        model keeps its default, and fields from a newer Cove are ignored. Only the name is
        required, since a preset without one cannot be shown or chosen: ValueError."""
        if not isinstance(data, dict):
            raise ValueError("a preset must be a JSON object with a name")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a preset needs a name")
        prompt = data.get("system_prompt")
        model = data.get("model")
        return cls(
            name=name,
            system_prompt=prompt if isinstance(prompt, str) else "",
            settings=ChatSettings.from_json(data.get("settings")),
            model=model if isinstance(model, str) and model.strip() else None,
        )


BUILT_IN: tuple[Preset, ...] = (
    Preset(
        name="General assistant",
        system_prompt=(
            "You are a helpful, friendly assistant. "
            "Answer clearly and concisely, and give more detail only when it is asked for or "
            "truly needed. "
            "If you are not sure of something, say so plainly instead of guessing, and never "
            "make up facts, names or sources. "
            "Use Markdown for structure where it helps: short paragraphs, lists, tables and "
            "code blocks."
        ),
        settings=ChatSettings(temperature=0.7),
        built_in=True,
    ),
    Preset(
        name="Coding helper",
        system_prompt=(
            "You are an expert programmer who helps with code. "
            "Be precise: write complete, correct code that runs as given, with the imports it "
            "needs. "
            "Put code in fenced Markdown blocks tagged with the language, for example "
            "```python. "
            "Explain briefly what the code does and why, and point out anything the person must "
            "change or install. "
            "If the request is ambiguous, or you are unsure an API exists, say so rather than "
            "inventing one."
        ),
        settings=ChatSettings(temperature=0.2),
        built_in=True,
    ),
    Preset(
        name="Document summariser",
        system_prompt=(
            "You summarise and answer questions about the documents and sources you are given. "
            "Use only what the sources say: do not add facts from your own knowledge, and do not "
            "guess. "
            "Cite each point with its source's number in square brackets, such as [1] or [2]. "
            "If the sources do not contain the answer, say clearly that it is not in them. "
            "Keep summaries faithful and well organised, keeping the main points, figures and "
            "conclusions."
        ),
        settings=ChatSettings(temperature=0.3),
        built_in=True,
    ),
)


class SettingsStore(Protocol):
    """What presets need of the chat history (``engine.store.Store``): app-wide JSON settings."""

    def get_setting(self, key: str, default: Any = None) -> Any: ...

    def set_setting(self, key: str, value: Any) -> None: ...


class Presets:
    """The built-in presets and the user's, kept in ``store``'s app settings.

    Names are unique regardless of case and spacing: saving "coding  Helper" would replace
    "Coding helper", so it is refused like any built-in's name."""

    def __init__(self, store: SettingsStore) -> None:
        self._store = store
        self._lock = threading.Lock()  # each change is a read, then a write of the whole list

    # Reading

    def all(self) -> list[Preset]:
        """The built-in presets in their shipped order, then the user's, sorted by name."""
        mine = sorted(self._user_presets(), key=lambda p: (_key(p.name), p.name))
        return [*BUILT_IN, *mine]

    def get(self, name: str) -> Preset | None:
        wanted = _key(name)
        return next((p for p in self.all() if _key(p.name) == wanted), None)

    def default(self) -> Preset | None:
        """The preset new chats start from; None when none was chosen, or it is gone."""
        name = self._store.get_setting(DEFAULT_KEY)
        return self.get(name) if isinstance(name, str) else None

    # Changing

    def save(self, preset: Preset) -> Preset:
        """Add ``preset`` to the user's presets, or replace the one of that name. A built-in
        preset's name is refused (ValueError). Returns the preset as stored."""
        _refuse_built_in_name(preset.name)
        stored = Preset(preset.name, preset.system_prompt, preset.settings, preset.model)
        with self._lock:
            self._write(_merged(self._raw_entries(), [stored]))
        return stored

    def delete(self, name: str) -> None:
        """Remove one of the user's presets (no preset of that name: nothing happens). Built-in
        presets cannot be deleted (ValueError). A deleted default leaves new chats with none."""
        if _is_built_in(name):
            raise ValueError(f'"{_clean_name(name)}" is a built-in preset and cannot be deleted.')
        wanted = _key(name)
        with self._lock:
            entries = self._raw_entries()
            kept = [e for e in entries if _entry_key(e) != wanted]
            if len(kept) != len(entries):
                self._write(kept)
            default = self._store.get_setting(DEFAULT_KEY)
            if isinstance(default, str) and _key(default) == wanted:
                self._store.set_setting(DEFAULT_KEY, None)

    def set_default(self, name: str | None) -> None:
        """Start new chats from the preset ``name``, or from none (None). An unknown name is a
        ValueError."""
        if name is None:
            self._store.set_setting(DEFAULT_KEY, None)
            return
        preset = self.get(name)
        if preset is None:
            raise ValueError(f'There is no preset named "{_clean_name(name)}".')
        self._store.set_setting(DEFAULT_KEY, preset.name)

    # Files

    def export_json(self, names: Iterable[str] | None, path: Path | str) -> list[Preset]:
        """Write the presets ``names`` (None: all the user's own) to ``path`` as a presets file,
        and return them. An unknown name is a ValueError and writes nothing; a file that cannot
        be written raises OSError."""
        if names is None:
            chosen = [p for p in self.all() if not p.built_in]
        else:
            chosen = []
            for name in names:
                preset = self.get(name)
                if preset is None:
                    raise ValueError(f'There is no preset named "{_clean_name(name)}" to export.')
                if preset not in chosen:
                    chosen.append(preset)
        document = {
            "format": FORMAT,
            "version": VERSION,
            "presets": [p.to_json() for p in chosen],
        }
        text = json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False)
        Path(path).write_text(text + "\n", encoding="utf-8")
        return chosen

    def import_json(self, path: Path | str) -> list[Preset]:
        """Save the presets in the file at ``path`` (a presets file, one preset's object, or a
        list of them) and return them as saved. One that has a built-in preset's name is saved
        with " (imported)" added; one with the name of a preset of the user's replaces it.

        The whole file is checked first: when it cannot be read, is not JSON, holds no presets
        or has an unreadable entry, nothing is saved and the ValueError says what is wrong."""
        path = Path(path)
        presets = _read_presets_file(path)
        renamed = _rename_built_in_names(presets)
        with self._lock:
            self._write(_merged(self._raw_entries(), renamed))
        return renamed

    # Stored entries

    def _raw_entries(self) -> list[Any]:
        """The stored list as it is, damaged entries included, so that a change to one preset
        never throws away another that only a newer Cove (or a careful hand) can read."""
        value = self._store.get_setting(PRESETS_KEY, [])
        return list(value) if isinstance(value, list) else []

    def _user_presets(self) -> list[Preset]:
        found: dict[str, Preset] = {}
        for entry in self._raw_entries():
            try:
                preset = Preset.from_json(entry)
            except ValueError:
                continue  # damaged: skipped, and left in place
            key = _key(preset.name)
            if _is_built_in(preset.name) or key in found:
                continue  # a built-in's name, or a second one of a name: the first wins
            found[key] = preset
        return list(found.values())

    def _write(self, entries: list[Any]) -> None:
        self._store.set_setting(PRESETS_KEY, entries)


def _is_built_in(name: str) -> bool:
    wanted = _key(name)
    return any(_key(p.name) == wanted for p in BUILT_IN)


def _refuse_built_in_name(name: str) -> None:
    if _is_built_in(name):
        clean = _clean_name(name)
        raise ValueError(
            f'"{clean}" is a built-in preset and cannot be changed. '
            f'Save your version under another name, such as "{clean} (my version)".'
        )


def _entry_key(entry: object) -> str | None:
    """The key of a stored entry's name, when it has a readable one."""
    if isinstance(entry, dict):
        name = entry.get("name")
        if isinstance(name, str) and name.strip():
            return _key(name)
    return None


def _merged(entries: list[Any], presets: list[Preset]) -> list[Any]:
    """``entries`` with ``presets`` added, each replacing the stored entries of its name. Fields a
    newer Cove stored with a replaced entry are kept."""
    result = list(entries)
    for preset in presets:
        key = _key(preset.name)
        old = [e for e in result if _entry_key(e) == key]
        extra = old[0] if old and isinstance(old[0], dict) else {}
        result = [e for e in result if _entry_key(e) != key]
        result.append({**extra, **preset.to_json()})
    return result


def _read_presets_file(path: Path) -> list[Preset]:
    where = path.name or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{where} is too large to be a presets file.")
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ValueError(f"Could not read {where}: {exc.strerror or exc}.") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where} is not a text file, so it holds no presets.") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{where} is not valid JSON ({exc}).") from exc

    entries: object
    if isinstance(data, list):
        entries = data
    elif isinstance(data, dict) and "format" in data:
        if data["format"] != FORMAT:
            raise ValueError(
                f"{where} is not a Cove presets file (its format is {data['format']!r})."
            )
        entries = data.get("presets")
        if not isinstance(entries, list):
            raise ValueError(f'{where} has no list of "presets".')
    elif isinstance(data, dict) and "name" in data:
        entries = [data]
    else:
        raise ValueError(
            f"{where} does not hold presets: expected a Cove presets file, a preset or a list "
            "of presets."
        )
    if not entries:
        raise ValueError(f"{where} holds no presets.")

    presets: list[Preset] = []
    seen: dict[str, int] = {}
    for number, entry in enumerate(entries, start=1):
        try:
            preset = Preset.from_json(entry)
        except ValueError as exc:
            label = _entry_label(entry)
            raise ValueError(f"Preset {number}{label} in {where} cannot be read: {exc}.") from exc
        key = _key(preset.name)
        if key in seen:
            raise ValueError(
                f'Presets {seen[key]} and {number} in {where} are both named "{preset.name}".'
            )
        seen[key] = number
        presets.append(preset)
    return presets


def _entry_label(entry: object) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"].strip():
        return f' ("{_clean_name(entry["name"])}")'
    return ""


def _rename_built_in_names(presets: list[Preset]) -> list[Preset]:
    """Imported presets that would take a built-in's name get " (imported)" added (and a number,
    should that name be taken in the same file too)."""
    taken = {_key(p.name) for p in presets}
    result: list[Preset] = []
    for preset in presets:
        if not _is_built_in(preset.name):
            result.append(preset)
            continue
        base = preset.name[: MAX_NAME_LENGTH - len(IMPORTED_SUFFIX) - 3]
        name, number = f"{base}{IMPORTED_SUFFIX}", 2
        while _key(name) in taken:
            name, number = f"{base} (imported {number})", number + 1
        taken.add(_key(name))
        result.append(Preset(name, preset.system_prompt, preset.settings, preset.model))
    return result

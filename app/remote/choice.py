"""Where the window's models run, as saved: this computer's engine, or another computer's at an
address (in the settings table) with a key (in the platform's keyring, else a file only its owner
reads). Qt-free; read and written on the store's worker thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.remote import delete_secret, load_secret, save_secret

if TYPE_CHECKING:
    from engine.store import Store

MODE_SETTING = "engine_mode"  # "local" or "remote"
URL_SETTING = "engine_url"
MODEL_SETTING = "engine_remote_model"  # the model chosen there (the local one is "model")
KEY_SECRET = "engine-api-key"


@dataclass(frozen=True, slots=True)
class EngineChoice:
    remote: bool = False
    url: str = ""  # kept when switching back to this computer, to offer it again
    api_key: str | None = None
    model: str | None = None


def read_choice(store: Store) -> EngineChoice:
    url = store.get_setting(URL_SETTING, "")
    url = url if isinstance(url, str) else ""
    model = store.get_setting(MODEL_SETTING)
    return EngineChoice(
        remote=store.get_setting(MODE_SETTING) == "remote" and bool(url),
        url=url,
        api_key=load_secret(KEY_SECRET) if url else None,
        model=model if isinstance(model, str) else None,
    )


def save_choice(store: Store, choice: EngineChoice) -> None:
    store.set_setting(MODE_SETTING, "remote" if choice.remote else "local")
    if not choice.remote:
        return
    store.set_setting(URL_SETTING, choice.url)
    store.set_setting(MODEL_SETTING, choice.model)
    if choice.api_key:
        save_secret(KEY_SECRET, choice.api_key)
    else:
        delete_secret(KEY_SECRET)

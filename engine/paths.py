"""Where Cove keeps its files: the one place that decides, so that the chat history, the models
folder and the engine's logs never disagree about it.

``COVE_DATA_DIR`` moves everything (tests and the self-test use a temporary folder);
``COVE_MODELS_DIR`` moves only the models. Without them, the platform's per-user folders
(platformdirs) are used.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

APP_NAME = "Cove"
DATA_DIR_ENV = "COVE_DATA_DIR"
MODELS_DIR_ENV = "COVE_MODELS_DIR"
STATE_DIR_ENV = "COVE_STATE_DIR"
DB_FILENAME = "cove.sqlite3"


def data_dir() -> Path:
    """``$COVE_DATA_DIR`` if set, else the platform's per-user data folder."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # only needed to find the default folder

    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def db_path() -> Path:
    """The chat history's SQLite file."""
    return data_dir() / DB_FILENAME


def models_dir() -> Path:
    """``$COVE_MODELS_DIR`` if set, else ``models`` in the data folder."""
    override = os.environ.get(MODELS_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return data_dir() / "models"


def cache_dir() -> Path:
    """``cache`` in a forced data folder, else the platform's per-user cache folder: what Cove
    can fetch again (the hub's file listings, kept for browsing offline)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser() / "cache"
    import platformdirs

    return platformdirs.user_cache_path(APP_NAME, appauthor=False)


def state_dir() -> Path:
    """``$COVE_STATE_DIR`` if set, else ``state`` in the data folder: conversations' saved
    model state (engine/generation/state_cache.py). It holds what the conversations said, so it
    lives with the chat history, not in a cache folder that other tools clean or back up
    differently."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return data_dir() / "state"


def assets_dir() -> Path:
    """The files Cove ships beside its code: icons, the model catalog."""
    return Path(__file__).resolve().parents[1] / "assets"


def log_dir() -> Path:
    """``logs`` in a forced data folder, else the platform's log folder (the temporary folder when
    there is no writable home)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser() / "logs"
    try:
        import platformdirs

        return platformdirs.user_log_path(APP_NAME, appauthor=False)
    except Exception:  # no writable home: fall back to the temp folder
        return Path(tempfile.gettempdir()) / "cove-logs"


def engine_log_path() -> Path:
    """The engine host's log: one per app process in the shared log folder, one fixed file in a
    forced data folder (which belongs to one run)."""
    if os.environ.get(DATA_DIR_ENV):
        return log_dir() / "engine.log"
    return log_dir() / f"engine-{os.getpid()}.log"


def shown(path: Path | str) -> str:
    """A path as a person reads it: the home folder written as ``~``."""
    full = Path(path).expanduser()
    try:
        inside = full.relative_to(Path.home())
    except ValueError:
        return str(full)
    return "~" if inside == Path() else f"~/{inside}"

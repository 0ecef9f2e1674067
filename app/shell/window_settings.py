"""The window's own settings as the history keeps them (theme, text size, whether the welcome was
seen, the model, imported models, MCP tools, saved state's limit, the engine chosen, the origins
allowed to use this engine), read in one go when the history opens; and the notice when MCP
servers fail to start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.chat.state_dialog import LIMIT_SETTING
from app.common.i18n import tr
from app.common.mcp_service import ENABLED_SETTING
from app.models.view import IMPORTED_SETTING
from app.remote.choice import read_choice
from app.remote.lan_share import SHARED_ORIGINS_SETTING

if TYPE_CHECKING:
    from engine.store import Store


def read_settings(s: Store) -> dict[str, Any]:
    """Every setting the window applies when it opens (read off the UI thread)."""
    return {
        "theme": s.get_setting("theme"),
        "font_scale": s.get_setting("font_scale"),
        "welcomed": s.get_setting("welcomed", False),
        "model": s.get_setting("model"),
        "imported": s.get_setting(IMPORTED_SETTING, []),
        "mcp": s.get_setting(ENABLED_SETTING, True),
        "state_limit": s.get_setting(LIMIT_SETTING),
        "engine": read_choice(s),
        "shared origins": s.get_setting(SHARED_ORIGINS_SETTING, []),
    }


def mcp_notice(statuses: list[Any], error: str | None) -> str | None:
    """What to say when servers failed to start (each named), or the list could not be read."""
    failed = [s for s in statuses if s.state == "failed"]
    if failed:
        names = ", ".join(s.name for s in failed)
        if len(failed) > 1:
            return tr(
                "Window", "MCP servers {names} could not start: see Settings › MCP servers"
            ).format(names=names)
        return tr("Window", "MCP server {name} could not start: see Settings › MCP servers").format(
            name=names
        )
    if error:
        return tr("Window", "The MCP server list could not be read: {reason}").format(reason=error)
    return None

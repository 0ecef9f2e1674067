"""Another computer's engine as the person gave it, and connecting to it: its pinned certificate
checked, its chat models listed and the chosen one's status read (blocking: on a worker thread)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from app.common.i18n import tr
from engine.errors import EngineError, ModelNotFound

if TYPE_CHECKING:
    from engine.client import EngineStatus
    from engine.remote import RemoteEngine


@dataclasses.dataclass(frozen=True, slots=True)
class RemoteTarget:
    """Another computer's engine, as the person gave it."""

    url: str
    api_key: str | None
    model: str | None = None  # the model chosen there (None: the first it lists)


def connect_remote(
    target: RemoteTarget, trust_fingerprint: str | None
) -> tuple[RemoteEngine, list[str], EngineStatus]:
    """The engine at ``target``, its chat models, and the status of the one to use (the one
    asked for when it has it, else its first); let go again when that fails."""
    from engine.remote import RemoteEngine

    remote = RemoteEngine.connect(target.url, target.api_key, expect_fingerprint=trust_fingerprint)
    try:
        models = remote.chat_models()
        model = target.model
        chosen = model if model in models else (models[0] if models else None)
        if chosen is None:
            raise ModelNotFound(
                tr(
                    "Engine",
                    "The engine at {where} has no chat model. Load one on that "
                    "computer, then connect again.",
                ).format(where=remote.where)
            )
        return remote, models, remote.status(chosen)
    except BaseException:
        remote.stop()
        raise


def connect_failed_text(url: str, exc: BaseException) -> str:
    return tr("Engine", "Could not connect to the engine at {url}. {reason}").format(
        url=url, reason=error_text(exc)
    )


def error_text(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, EngineError | ValueError) else f"{type(exc).__name__}: {exc}"

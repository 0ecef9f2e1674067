"""What the chat says beside its messages: how much of the context the conversation uses (exact
after a reply, when the engine counted the prompt and the reply; estimated from characters
before), and that the loaded model cannot see the images attached or already in the chat."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.chat.composer import Composer
from app.chat.view import ChatView
from app.common.engine_service import EngineService
from app.common.i18n import tr
from engine.images import no_vision_message
from engine.store import ReplyMeta

CHARS_PER_TOKEN = 4.0  # before the engine has counted anything for this conversation
TOKENS_PER_MESSAGE = 6  # the chat template's role markers around each message
WARN_AT = 0.8


class ChatNotices(QObject):
    context_changed = Signal(int, int, str)  # (tokens used, limit or 0, message)
    # The loaded model cannot see the images attached or in the chat: what to tell the user
    # ("" when nothing needs saying).
    vision_notice = Signal(str)

    def __init__(
        self,
        view: ChatView,
        composer: Composer,
        engine: EngineService,
        system_prompt: Callable[[], str],
    ) -> None:
        super().__init__()
        self.view, self.composer, self.engine = view, composer, engine
        self.system_prompt = system_prompt
        self.tokens_per_char: float | None = None  # learned from the engine's counts
        self.refused = ""  # the engine's last "cannot see images", until the model changes
        composer.images_changed.connect(self.check_vision)

    def refresh(self) -> None:
        self.update_context()
        self.check_vision()

    def counted(self, prompt_tokens: int, prompt_chars: int) -> None:
        """The engine counted a prompt: estimates use its rate from now on."""
        if prompt_tokens and prompt_chars:
            self.tokens_per_char = prompt_tokens / max(1, prompt_chars)

    def images_held(self, blind: str) -> None:
        """Images attached to a message the loaded model cannot see: they wait, and why."""
        self.vision_notice.emit(no_vision_message(blind))

    def images_refused(self, error: str) -> None:
        """The engine refused a reply for its images: it knew better than the status."""
        self.refused = error
        self.vision_notice.emit(error)

    # -- images the model cannot see -------------------------------------------------------------

    def blind_model(self) -> str | None:
        """The loaded model's name when it is known not to see images; None when it sees them
        or nothing is loaded yet (then the engine is the judge)."""
        status = self.engine.status
        if status is None or not status.model or status.vision:
            return None
        return status.model

    def check_vision(self) -> None:
        """Say so when the loaded model cannot see the images attached, or the chat's images."""
        blind = self.blind_model()
        if blind is None:
            self.refused = ""
            self.vision_notice.emit("")
        elif self.composer.attachments:
            self.vision_notice.emit(no_vision_message(blind))
        elif self.view.has_images():
            self.vision_notice.emit(
                tr(
                    "Chat",
                    "{model} cannot see images, so this chat's images are left out of its "
                    "replies. Load a vision model ({examples}) to ask about them.",
                ).format(model=blind, examples="Gemma 3, Qwen2.5-VL, SmolVLM")
            )
        else:
            self.vision_notice.emit(self.refused)

    # -- context meter ---------------------------------------------------------------------------

    def update_context(self) -> None:
        """Tokens the conversation uses against the loaded context."""
        status = self.engine.status
        limit = int(status.n_ctx) if status is not None and status.n_ctx else 0
        items = self.view.history()  # (role, text, meta), including messages not yet shown
        used = 0
        exact_from = -1
        for i in range(len(items) - 1, -1, -1):
            stats = ReplyMeta.of(items[i][2]).stats
            if stats is not None and stats.prompt_tokens:
                used = stats.prompt_tokens + stats.completion_tokens
                exact_from = i
                break
        rate = self.tokens_per_char or 1 / CHARS_PER_TOKEN
        if exact_from < 0:
            system = self.system_prompt()
            used = round(len(system) * rate) + (TOKENS_PER_MESSAGE if system else 0)
        for _role, text, _meta in items[exact_from + 1 :]:
            used += round(len(text) * rate) + TOKENS_PER_MESSAGE
        truncation = (ReplyMeta.of(items[-1][2]).truncation or "") if items else ""
        if truncation:
            message = truncation
        elif limit and used >= limit * WARN_AT:
            message = tr(
                "Chat",
                "The conversation fills {share} of the {limit}-token context: the oldest "
                "messages will be left out soon (the system prompt is kept). Start a new chat, "
                "or load the model with a larger context.",
            ).format(share=f"{used / limit:.0%}", limit=limit)
        else:
            message = ""
        self.context_changed.emit(used, limit, message)

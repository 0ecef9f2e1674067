"""Continuing the conversation's last assistant message (vLLM's and Hugging Face transformers'
``continue_final_message``): the prompt ends inside that message, its turn left open, so that
the model extends the text instead of starting a new reply.

A chat template knows how to open and close a turn but has no way to leave one open. The
conversation is therefore rendered as usual with a mark after the final message's text, and the
prompt is cut where the mark stands: everything the template writes after the text (the end of
the turn, the next generation prompt) goes, and the text itself stays exactly as the template
shows it (trimmed, escaped). Transformers searches for the text itself instead; a mark cannot be
mistaken for a piece of the generation prompt (a short reply such as "a" or "<" would be), and it
finds an empty message's place too: the opening of the assistant's turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.errors import InvalidRequest
from engine.types import ChatMessage, GenerationParams

# Plain letters: no template trims, escapes or splits them.
MARK = "CoveContinuesTheFinalMessageHere"


def continues(messages: Sequence[ChatMessage], params: GenerationParams) -> bool:
    """Whether the reply continues the last message: asked for, and that message is the
    assistant's (another role's has no reply to continue, and the flag is ignored).

    Raises ``InvalidRequest`` where continuing would change what the reply means: the message's
    tool calls would be cut off, and a grammar would start over in the middle of the text."""
    if not (params.continue_final_message and messages and messages[-1].role == "assistant"):
        return False
    if messages[-1].tool_calls:
        raise InvalidRequest(
            "An assistant message with tool calls cannot be continued (continue_final_message): "
            "the calls would be lost. Send the tool results as a new turn instead."
        )
    if params.grammar is not None:
        raise InvalidRequest(
            "A reply that must match a JSON schema or a required tool call cannot be continued "
            "(continue_final_message): the constraint would start over in the middle of it."
        )
    return True


def mark_final(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """``messages`` with ``MARK`` after the final message's text, ready to render."""
    *rest, final = messages
    return [*rest, replace(final, content=final.content + MARK)]


def continue_final(rendered: str) -> str:
    """A conversation rendered from ``mark_final``'s messages, cut where the final message's
    text ends: the prompt from which the model extends that text.

    Raises ``InvalidRequest`` when the template does not show the text (some leave assistant
    turns out, or rewrite them): there is then nothing to continue from."""
    at = rendered.rfind(MARK)
    if at < 0:
        raise InvalidRequest(
            "This model's chat template does not show the assistant's message in the prompt, "
            "so the reply cannot be continued (continue_final_message). Send it without "
            "continue_final_message to get a new reply."
        )
    return rendered[:at]

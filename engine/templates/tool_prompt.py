"""Tools and tool turns in a prompt: through the model's own chat template where it renders
``tools`` (Qwen, Llama 3.1+, Mistral, Hermes ...), else through a fallback at the message level.

The fallback (SmolLM2's template and the built-in ones know nothing of tools): the tools and the
call format go into the system message, an assistant's earlier calls are written as
``<tool_call>{...}</tool_call>`` in its text, and a tool's result becomes a user turn wrapped in
``<tool_response>``. Any template renders that, and the reply is parsed like a Hermes one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.tools import Tool
from engine.types import ChatMessage

FALLBACK_INSTRUCTIONS = (
    "You can call these tools. To call one, reply with only this, one block per call:\n"
    '<tool_call>\n{{"name": <tool name>, "arguments": <arguments as a JSON object>}}\n'
    "</tool_call>\n"
    "A tool's result comes back in <tool_response></tool_response>. Answer without a tool when "
    "none is needed.\n\nTools:\n{tools}"
)


def renders_tools(source: str) -> bool:
    """Whether a chat template uses the ``tools`` variable itself."""
    return "tools" in source


def template_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Messages as chat templates read them (Hugging Face's convention: a call's arguments as
    an object, a tool result with its call's id)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        item: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.tool_calls:
            item["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in m.tool_calls
            ]
        if m.tool_call_id is not None:
            item["tool_call_id"] = m.tool_call_id
        if m.name is not None:
            item["name"] = m.name
        out.append(item)
    return out


def fallback_messages(messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> list[ChatMessage]:
    """The conversation with tools and tool turns written as plain text turns."""
    out: list[ChatMessage] = []
    if tools:
        listed = "\n".join(json.dumps(t.to_openai()["function"]) for t in tools)
        note = FALLBACK_INSTRUCTIONS.format(tools=listed)
        if messages and messages[0].role == "system":
            out.append(ChatMessage("system", messages[0].content + "\n\n" + note))
            messages = messages[1:]
        else:
            out.append(ChatMessage("system", note))
    for m in messages:
        if m.role == "tool":
            body = f"<tool_response>\n{m.content}\n</tool_response>"
            if out and out[-1].role == "user" and out[-1].content.endswith("</tool_response>"):
                out[-1] = ChatMessage("user", out[-1].content + "\n" + body)
            else:
                out.append(ChatMessage("user", body))
        elif m.tool_calls:
            blocks = [
                "<tool_call>\n"
                + json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False)
                + "\n</tool_call>"
                for c in m.tool_calls
            ]
            text = "\n".join(([m.content] if m.content else []) + blocks)
            out.append(ChatMessage("assistant", text))
        else:
            out.append(ChatMessage(m.role, m.content))
    return out

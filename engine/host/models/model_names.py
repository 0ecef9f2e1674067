"""The model names clients send, mapped to the models this engine has: agent clients name
hosted models (``claude-sonnet-4-5``, ``gpt-5-codex``) unless told otherwise, so
``cove serve --alias 'claude-*=qwen2.5-coder-7b'`` answers them with a model of this computer's,
and ``--any-model-name`` answers every unknown name with the loaded model (off by default: an
unknown name is a 404 that lists the installed models and says how to alias)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import InvalidRequest

MAX_LISTED = 12


@dataclass(frozen=True, slots=True)
class NameRules:
    # (glob pattern, model name) in the order given; the first that matches applies.
    aliases: tuple[tuple[str, str], ...] = ()
    any_name: bool = False

    def target(self, name: str) -> str | None:
        """The model an alias maps ``name`` to (patterns match case-insensitively)."""
        for pattern, model in self.aliases:
            if fnmatch.fnmatchcase(name.casefold(), pattern.casefold()):
                return model
        return None


def parse_alias(text: str) -> tuple[str, str]:
    """``PATTERN=MODEL`` (``claude-*=qwen2.5-coder-7b``, ``gpt-4o=starter``)."""
    pattern, sep, model = text.partition("=")
    pattern, model = pattern.strip(), model.strip()
    if not sep or not pattern or not model:
        raise InvalidRequest(
            f"--alias {text!r}: write PATTERN=MODEL, e.g. 'claude-*=qwen2.5-coder-7b'."
        )
    return pattern, model


def unknown_model(name: str, serving: str | None, installed: Sequence[str]) -> str:
    """Why ``name`` is not answered, with what is there and how to map the name."""
    shown = ", ".join(repr(n) for n in installed[:MAX_LISTED])
    more = f" and {len(installed) - MAX_LISTED} more" if len(installed) > MAX_LISTED else ""
    here = f"This engine serves {serving!r}. " if serving else ""
    listed = f"Installed: {shown}{more}. " if installed else ""
    example = serving or "MODEL"
    return (
        f"The model {name!r} is not a model of this engine. {here}{listed}"
        f"Name one of these, or map the client's name with 'cove serve --alias "
        f'"{_pattern_for(name)}={example}"\' (or --any-model-name to answer every name with '
        "the loaded model)."
    )


def _pattern_for(name: str) -> str:
    family = name.split("-")[0]
    return f"{family}-*" if family and family != name else name


def installed_names() -> list[str]:
    """The names a request can give for the installed chat models (``starter``, file stems,
    ONNX folders)."""
    from engine.library.installed import scan_models

    try:
        entries = scan_models()
    except OSError:
        return []
    return [e.id if e.source == "starter" else e.path.stem for e in entries]

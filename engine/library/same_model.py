"""Builds of one model: installed GGUF files that differ only in how they were quantised
(``qwen2.5-0.5b-instruct-q4_k_m.gguf`` and ``…-q8_0.gguf``), as a person compares them. Read from
file names, which the hubs' GGUF repositories keep to the one pattern: the model's name, then the
quantisation; anything after it (``-requantized``, ``-imat``) is the build's own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.formats.quant_words import is_quant_code
from engine.library.installed import ModelEntry


def model_key(entry: ModelEntry) -> str | None:
    """What names the model behind a GGUF build, lower case (None for other formats, or a file
    name that declares no quantisation)."""
    if entry.kind != "GGUF":
        return None
    stem = entry.path.name.removesuffix(".gguf").removesuffix(".GGUF")
    words = re.split(r"[.\-]", stem)
    for i, word in enumerate(words):
        if i and is_quant_code(word):
            return "-".join(words[:i]).lower()
    return None


def other_builds(entry: ModelEntry, entries: Sequence[ModelEntry]) -> list[ModelEntry]:
    """The other installed builds of ``entry``'s model: from its repository, or named alike."""
    key = model_key(entry)
    found = []
    for other in entries:
        if other.path == entry.path or other.kind != entry.kind:
            continue
        other_key = model_key(other)
        if key is not None and other_key is not None:
            alike = key == other_key
        else:  # a name that declares no quantisation: the same repository says it
            alike = entry.repo is not None and other.repo == entry.repo
        if alike:
            found.append(other)
    return found

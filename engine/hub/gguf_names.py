"""What a GGUF file's name says: its quantisation, and whether it is a whole model (not a split
shard, not a vision projector)."""

from __future__ import annotations

import re

from engine.formats.quant_words import is_quant_code
from engine.hub.api import RemoteFile

_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.IGNORECASE)


def quant_of(file: str) -> str | None:
    """The quantisation a GGUF file's name declares (``...-Q4_K_M.gguf`` -> ``Q4_K_M``)."""
    stem = file.rsplit("/", 1)[-1]
    stem = stem[: -len(".gguf")] if stem.lower().endswith(".gguf") else stem
    for token in reversed(re.split(r"[.\-]", stem)):
        if is_quant_code(token):
            return token.upper()
    return None


def single_ggufs(files: list[RemoteFile]) -> list[RemoteFile]:
    """GGUF files that are a whole model: not split shards, not vision projectors."""
    return [
        f
        for f in files
        if f.path.lower().endswith(".gguf")
        and not _SHARD.search(f.path)
        and "mmproj" not in f.path.lower()
    ]


# A projector's precision, best first: llama.cpp's own conversions ship f16; q8_0 loses a little.
_PROJECTOR_TYPES = ("f16", "bf16", "q8_0", "f32")


def projector_for(model: str, files: list[RemoteFile]) -> RemoteFile | None:
    """The vision projector a repository ships for ``model`` (a GGUF path in it): an ``mmproj``
    GGUF, the one whose name shares most with the model's, then the best precision."""
    found = [f for f in files if f.path.lower().endswith(".gguf") and "mmproj" in f.path.lower()]
    if not found:
        return None
    stem = _base(model)

    def rank(f: RemoteFile) -> tuple[int, int, str]:
        name = _base(f.path).replace("mmproj-", "")
        shared = next(
            (i for i, (a, b) in enumerate(zip(name, stem, strict=False)) if a != b),
            min(len(name), len(stem)),
        )
        kind = (quant_of(f.path) or "").lower()
        order = _PROJECTOR_TYPES.index(kind) if kind in _PROJECTOR_TYPES else len(_PROJECTOR_TYPES)
        return (-shared, order, f.path)

    return min(found, key=rank)


def _base(path: str) -> str:
    """A GGUF file's name without its folder, extension and quantisation, lower case."""
    name = path.rsplit("/", 1)[-1].lower().removesuffix(".gguf")
    quant = quant_of(path)
    if quant and name.endswith(quant.lower()):
        name = name[: -len(quant)].rstrip("-._")
    return name

"""What a GGUF file's name says: its quantisation, and whether it is a whole model (not a split
shard, not a vision projector)."""

from __future__ import annotations

import re

from engine.library.hub import RemoteFile

_QUANT = re.compile(r"^(I?Q\d+(_[A-Z0-9]+)*|B?F16|F32|MXFP4|TQ\d_\d)$", re.IGNORECASE)
_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.IGNORECASE)


def quant_of(file: str) -> str | None:
    """The quantisation a GGUF file's name declares (``...-Q4_K_M.gguf`` -> ``Q4_K_M``)."""
    stem = file.rsplit("/", 1)[-1]
    stem = stem[: -len(".gguf")] if stem.lower().endswith(".gguf") else stem
    for token in reversed(re.split(r"[.\-]", stem)):
        if _QUANT.match(token):
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

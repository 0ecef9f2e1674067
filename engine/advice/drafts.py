"""A smaller model drafting for a larger one (speculative decoding with a draft model).

The draft model guesses a few tokens greedily, one cheap step each; the large model checks them
in one batch through the same path as prompt-lookup guesses (engine/generation/speculation.py),
so what it says does not depend on the drafter. Guesses are token ids, so the two models must share
their vocabulary: compared from both files (the rule of llama.cpp's
``common_speculative_are_compatible``: the same tokenizer kind and special tokens, sizes within 128,
the same text for every token from id 5 on), never from their names. The catalog names the drafts
each family has (``CatalogModel.drafts``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine.formats.gguf import GGUFFile, read_gguf

if TYPE_CHECKING:
    from engine.planner.plan import Plan

VOCAB_SIZE_SLACK = 128
FIRST_CHECKED_TOKEN = 5


def incompatibility(target: GGUFFile, draft: GGUFFile) -> str | None:
    """Why ``draft`` cannot draft for ``target`` (None when it can)."""
    t, d = target.metadata, draft.metadata
    name = draft.path.name
    if t.get("tokenizer.ggml.model") != d.get("tokenizer.ggml.model"):
        return (
            f"{name} uses a different kind of tokenizer ({d.get('tokenizer.ggml.model')} against "
            f"{t.get('tokenizer.ggml.model')})"
        )
    for key in ("tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"):
        if t.get(key) != d.get(key):
            return f"{name} has other special tokens ({key.rsplit('.', 1)[-1]})"
    tokens, drafts = t.get("tokenizer.ggml.tokens"), d.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list) or not isinstance(drafts, list):
        return f"{name} or the model lists no vocabulary"
    if abs(len(tokens) - len(drafts)) > VOCAB_SIZE_SLACK:
        return f"{name} has {len(drafts)} tokens against the model's {len(tokens)}"
    for i in range(FIRST_CHECKED_TOKEN, min(len(tokens), len(drafts))):
        if tokens[i] != drafts[i]:
            return f"{name} spells token {i} differently ({drafts[i]!r} against {tokens[i]!r})"
    return None


@dataclass(frozen=True, slots=True)
class DraftChoice:
    """A draft model considered for a model: where it is, and whether it can be used."""

    id: str
    path: Path | None  # None: not installed
    reason: str | None  # why it cannot draft (None: it can)
    bytes: int = 0  # its weights and cache, as planned
    plan: Plan | None = field(default=None, compare=False)  # how it would load (when it can)

    @property
    def usable(self) -> bool:
        return self.path is not None and self.reason is None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "path": str(self.path) if self.path else None,
            "installed": self.path is not None,
            "compatible": self.reason is None if self.path is not None else None,
            "reason": self.reason,
            "bytes": self.bytes,
        }


def beside(choice: DraftChoice, free_bytes: int) -> DraftChoice:
    """``choice``, refused when it does not fit in ``free_bytes`` (the memory left beside the
    model it drafts for) with the planner's headroom kept."""
    from engine.planner.plan import usable_bytes
    from engine.units import format_bytes

    if not choice.usable or choice.bytes <= usable_bytes(free_bytes):
        return choice
    return replace(choice, reason=f"does not fit beside the model ({format_bytes(choice.bytes)})")


def draft_choices(target: Path, ctx: int) -> list[DraftChoice]:
    """The drafts the catalog names for the model at ``target``, each checked."""
    from engine.errors import CatalogError
    from engine.library.builds import install_path, installed_build
    from engine.library.catalog import load_catalog
    from engine.paths import models_dir

    try:
        catalog = load_catalog()
    except CatalogError:
        return []
    models = models_dir()
    entry = next(
        (
            m
            for m in catalog.models
            if any(v.format == "gguf" and v.file and v.file == target.name for v in m.variants)
        ),
        None,
    )
    if entry is None:
        return []
    info = read_gguf(target)
    choices = []
    for draft_id in entry.drafts:
        draft = catalog.get(draft_id)
        variant = installed_build(models, draft) if draft is not None else None
        if variant is None or variant.format != "gguf":
            choices.append(DraftChoice(draft_id, None, "not installed"))
            continue
        choices.append(check_draft(info, install_path(models, variant), ctx, draft_id))
    return choices


def check_draft(target: GGUFFile, path: Path, ctx: int, name: str | None = None) -> DraftChoice:
    from engine.backends.loader import plan_model

    draft = read_gguf(path)
    reason = incompatibility(target, draft)
    plan = plan_model(str(path), ctx=ctx)[2] if reason is None else None
    planned = plan.total_bytes if plan is not None else 0
    return DraftChoice(name or path.stem, path, reason, planned, plan)

"""What a loaded model can do, set once when it loads: the engine reads this value instead of
asking the model object which attributes it happens to have."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Capabilities:
    """A loaded model's abilities, for the host, the generation loop and the status."""

    runtime: str  # its runtime's name, for messages
    constrains: bool = False  # holds a reply to a grammar (``params.grammar``)
    scores_prompts: bool = False  # logits for every prompt position (``params.score_prompt``)
    vision: bool = False  # reads the images of user messages
    # Up to how many cached tokens a batch's logits are bit for bit those of single steps
    # (measured at load; 0: not even there). Speculation "exact" checks guesses only within it.
    exact_cells: int = 0
    sequences: int = 1  # replies it generates at once

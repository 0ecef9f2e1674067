"""Draft-model speculation: which files may draft for which (from their vocabularies), and the
plumbing on the real starter drafting for itself (no compatible pair of different small models
exists here)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.advice.drafts import check_draft, incompatibility
from engine.backends.draft import DraftModel
from engine.backends.llama.single import LlamaCppModel
from engine.formats.gguf import read_gguf
from engine.generation.speculation import DraftPolicy
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect
from tests.support.tiny_gguf import MATRIX, with_vocab, write_model

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)


def test_files_with_the_same_vocabulary_may_draft(tmp_path: Path) -> None:
    big = write_model(tmp_path / "big.gguf", MATRIX["llama"], seed=1)
    small = write_model(tmp_path / "small.gguf", MATRIX["qwen2"], seed=2)
    assert incompatibility(read_gguf(big), read_gguf(small)) is None


@pytest.mark.parametrize(
    ("shape", "needle"),
    [
        pytest.param(with_vocab(MATRIX["llama"], 4096), "tokens against", id="size"),
        pytest.param(with_vocab(MATRIX["llama"], 1024, token_chars=9), "spells", id="spelling"),
    ],
)
def test_a_file_with_another_vocabulary_is_refused(
    tmp_path: Path, shape: object, needle: str
) -> None:
    big = write_model(tmp_path / "big.gguf", MATRIX["llama"])
    other = write_model(tmp_path / "other.gguf", shape)  # type: ignore[arg-type]
    reason = incompatibility(read_gguf(big), read_gguf(other))
    assert reason is not None and needle in reason and "other.gguf" in reason


def test_the_starter_cannot_draft_for_a_model_of_another_tokenizer(
    starter: Path, tmp_path: Path
) -> None:
    big = write_model(tmp_path / "big.gguf", MATRIX["llama"])
    choice = check_draft(read_gguf(big), starter, 2048)
    assert not choice.usable
    assert choice.reason is not None and "tokenizer" in choice.reason


class _Eager(DraftPolicy):
    """Always guess four: the plumbing is under test here, not whether it pays."""

    def length(self, available: int) -> int:
        return min(available, 4)


@pytest.fixture(scope="module")
def pair(starter: Path) -> Iterator[LlamaCppModel]:
    plan = make_plan(read_gguf(starter), RESOURCES, requested_ctx=2048)
    model = LlamaCppModel(starter, plan)
    choice = check_draft(read_gguf(starter), starter, plan.n_ctx)
    assert choice.usable, choice.reason
    model.attach_draft(DraftModel.load(starter, plan))
    yield model
    model.close()


def test_the_starter_drafting_for_itself_changes_nothing_and_is_almost_always_right(
    pair: LlamaCppModel,
) -> None:
    # No phrase of this prompt comes back in a reply, so guesses come from the draft model.
    messages = [ChatMessage("user", "Name a colour.")]
    params = GenerationParams(
        temperature=0.0, repeat_penalty=1.0, max_tokens=48, speculation="exact"
    )
    guesser = pair._guesser
    drafter, guesser.drafter = guesser.drafter, None
    pair.reset()
    plain, _ = collect(pair.chat(messages, params))
    guesser.drafter = drafter
    guesser.policy = _Eager()
    pair.reset()
    text, final = collect(pair.chat(messages, params))
    assert final.stats is not None
    assert text == plain
    if pair.exact_cells:
        assert final.stats.draft_tokens > 0
        # The same model, the same greedy choice: nearly every guess is kept.
        assert final.stats.accepted_tokens >= 0.9 * final.stats.draft_tokens
    assert pair.draft_name == pair.name


def test_plan_json_lists_the_catalogs_drafts(starter: Path) -> None:
    from tests.cove_process import cove

    out = cove("plan", "starter", "--json")
    assert out.returncode == 0, out.stderr
    # The starter is not a catalog model: it has no drafts, and says so as an empty list.
    assert json.loads(out.stdout)["drafts"] == []

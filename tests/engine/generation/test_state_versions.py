"""The saved model state follows a conversation's versions and branches: flipping back to an
earlier version of a reply, or branching a new chat from it, reads again nothing that is already
saved for that prefix (engine/generation/state_cache.py keeps each version's state apart, found
by its tokens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.generation.state_cache import MIN_GAIN, StateCache
from engine.types import ChatMessage
from tests.engine.cpu_plans import plan
from tests.engine.state_conversations import conversation, reply

pytestmark = pytest.mark.slow

# Long enough that restoring a version's state pays more than reading it again.
REPLY_TOKENS = 2 * MIN_GAIN


def test_an_earlier_version_and_a_branch_reuse_its_saved_state(
    starter: Path, tmp_path: Path
) -> None:
    cache = StateCache(tmp_path / "state")
    question = conversation(turns=1, tag="versions ")
    long = {"max_tokens": REPLY_TOKENS, "ignore_eos": True}
    with LlamaCppModel(starter, plan(starter)) as model:
        model.keep_states(cache)
        first, asked = reply(model, question, conversation="1", **long)
        # Regenerate: another version of the same reply, from the same question.
        second, again = reply(model, question, conversation="1", temperature=1.0, seed=7, **long)
        if second == first:
            pytest.skip("the second version came out the same as the first")
        assert again.cached_tokens >= asked.prompt_tokens - 1  # the question, from memory
        cache.flush()
        # Flip back to the first version and go on: its reply is not read again.
        follow = [*question, ChatMessage("assistant", first), ChatMessage("user", "Why?")]
        _, flipped = reply(model, follow, conversation="1")
        assert flipped.cached_tokens > asked.prompt_tokens + MIN_GAIN
        # Something else in between; then a branch from the second version, a new chat.
        reply(model, conversation(turns=1, tag="elsewhere "), conversation="2")
        cache.flush()
        branch = [*question, ChatMessage("assistant", second), ChatMessage("user", "More?")]
        _, branched = reply(model, branch, conversation="3")
        assert branched.cached_tokens > asked.prompt_tokens + MIN_GAIN

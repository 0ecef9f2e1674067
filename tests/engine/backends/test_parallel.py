"""Several replies at once from one llama.cpp context (engine/backends/llama/parallel.py) on the
real starter model, and the plan that counts their KV caches (engine/planner/plan.py)."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from engine.backends.llama import LlamaCppBackend
from engine.backends.llama.parallel import ParallelLlamaCpp
from engine.backends.llama.single import LlamaCppModel
from engine.errors import EngineBusy
from engine.formats.gguf import read_gguf
from engine.planner.gguf import make_plan
from engine.planner.plan import AUTO_PARALLEL, Device, Plan, Resources, with_parallel
from engine.types import ChatMessage, Chunk, GenerationParams
from tests.conftest import collect

GREEDY = GenerationParams(temperature=0.0, max_tokens=24)
RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
SEQUENCES = 3


def plan_for(path: Path, ctx: int, parallel: int | None) -> Plan:
    return with_parallel(make_plan(read_gguf(path), RESOURCES, requested_ctx=ctx), parallel)


@pytest.fixture(scope="module")
def parallel(starter: Path) -> Iterator[ParallelLlamaCpp]:
    model = LlamaCppBackend().load(starter, plan_for(starter, 1024, SEQUENCES))
    assert isinstance(model, ParallelLlamaCpp)
    yield model
    model.close()


@pytest.fixture(scope="module")
def single(starter: Path) -> Iterator[LlamaCppModel]:
    model = LlamaCppBackend().load(starter, plan_for(starter, 1024, 1))
    assert isinstance(model, LlamaCppModel)
    yield model
    model.close()


def ask(text: str) -> list[ChatMessage]:
    return [ChatMessage("user", text)]


def test_the_plan_counts_a_kv_cache_per_sequence(starter: Path) -> None:
    one = plan_for(starter, 1024, 1)
    four = plan_for(starter, 1024, 4)
    assert (one.parallel, four.parallel) == (1, 4)
    assert four.budgets[0].kv_cache == 4 * one.budgets[0].kv_cache
    assert four.budgets[0].weights == one.budgets[0].weights
    assert four.n_ctx == one.n_ctx  # each sequence keeps the whole context
    assert Plan.from_dict(four.to_dict()) == four


def test_auto_takes_as_many_as_fit_within_its_share(starter: Path) -> None:
    assert plan_for(starter, 1024, None).parallel == AUTO_PARALLEL
    base = make_plan(read_gguf(starter), RESOURCES, requested_ctx=8192)
    kv = base.budgets[0].kv_cache
    # Memory for the model and about two more caches within auto's quarter of what is usable.
    tight = replace(base, budgets=(replace(base.budgets[0], free=int(kv * 2 / 0.25 / 0.9) + 1),))
    assert 1 < with_parallel(tight, None).parallel < AUTO_PARALLEL


def test_asked_for_more_than_fit_gives_fewer_and_says_why(starter: Path) -> None:
    base = make_plan(read_gguf(starter), RESOURCES, requested_ctx=8192)
    room = base.budgets[0].total + 2 * base.budgets[0].kv_cache
    tight = replace(base, budgets=(replace(base.budgets[0], free=int((room + 2**28) / 0.9)),))
    plan = with_parallel(tight, 8)
    assert 1 < plan.parallel < 8
    assert any("replies at a time, not 8" in r for r in plan.reasons)


def test_runtimes_with_one_sequence_keep_one_and_say_so(starter: Path) -> None:
    base = replace(make_plan(read_gguf(starter), RESOURCES, requested_ctx=1024), backend="onnx")
    assert with_parallel(base, None).parallel == 1
    told = with_parallel(base, 4)
    assert told.parallel == 1 and any("One reply at a time" in r for r in told.reasons)


def test_interleaved_replies_match_the_same_replies_alone(
    parallel: ParallelLlamaCpp, single: LlamaCppModel
) -> None:
    """Two replies driven in turn from one thread: each step evaluates one sequence's token, as
    the single context does, so each reply is the one that model gives alone; and each says
    that it shared its context (speculation gives way to batching)."""
    questions = ["Name a colour.", "Count to five."]
    plain = replace(GREEDY, speculation="off")  # beside another reply, none speculates
    alone = [collect(single.chat(ask(q), plain))[0] for q in questions]
    streams = [iter(parallel.chat(ask(q), GREEDY)) for q in questions]
    texts: list[list[str]] = [[], []]
    finals: list[Chunk | None] = [None, None]
    while any(f is None for f in finals):
        for i, stream in enumerate(streams):
            if finals[i] is not None:
                continue
            chunk = next(stream)
            if chunk.is_terminal:
                finals[i] = chunk
            else:
                texts[i].append(chunk.text)
    assert ["".join(t) for t in texts] == alone
    for final in finals:
        assert final is not None and final.finish_reason in ("stop", "length")
        assert final.stats is not None and final.stats.batched_tokens > 0
    assert parallel.busy == 0


def test_replies_in_threads_all_end_properly(parallel: ParallelLlamaCpp) -> None:
    results: list[tuple[str, Chunk] | None] = [None] * SEQUENCES
    start = threading.Barrier(SEQUENCES)

    def run(i: int) -> None:
        start.wait()
        results[i] = collect(parallel.chat(ask(f"Say something about {i} apples."), GREEDY))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(SEQUENCES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    for result in results:
        assert result is not None
        text, final = result
        assert final.finish_reason in ("stop", "length") and text
        assert final.stats is not None and final.stats.completion_tokens > 0
    assert parallel.busy == 0


def test_a_request_beyond_the_sequences_is_told_busy(parallel: ParallelLlamaCpp) -> None:
    held = [
        cast(Generator[Chunk, None, None], parallel.chat(ask(f"Tell a story {i}."), GREEDY))
        for i in range(SEQUENCES)
    ]
    for stream in held:
        assert not next(stream).is_terminal
    _, final = collect(parallel.chat(ask("And one more."), GREEDY))
    assert final.finish_reason == "error" and final.code == EngineBusy.code
    for stream in held:
        stream.close()  # a client gone: its sequence is free at once
    assert parallel.busy == 0
    _, final = collect(parallel.chat(ask("And one more."), GREEDY))
    assert final.finish_reason in ("stop", "length")


def test_a_cancelled_reply_frees_its_sequence_and_the_others_go_on(
    parallel: ParallelLlamaCpp,
) -> None:
    cancel = threading.Event()
    long = GenerationParams(temperature=0.0, max_tokens=200)
    doomed = iter(parallel.chat(ask("Write a long essay about the sea."), long, cancel))
    other = iter(parallel.chat(ask("Write a poem about bread."), GREEDY))
    assert not next(doomed).is_terminal
    assert not next(other).is_terminal
    cancel.set()
    _, final = collect(doomed)
    assert final.finish_reason == "cancelled"
    _, final = collect(other)
    assert final.finish_reason in ("stop", "length")
    assert parallel.busy == 0


def test_a_follow_up_reuses_the_history_cached_in_its_sequence(
    parallel: ParallelLlamaCpp,
) -> None:
    """Two conversations take turns: each follow-up lands on the sequence that holds its own
    history, so only its new tokens are read."""
    a = ask("My name is Ada. Remember it.")
    b = ask("My dog is called Rex. Remember it.")
    reply_a, _ = collect(parallel.chat(a, GREEDY))
    reply_b, _ = collect(parallel.chat(b, GREEDY))
    for history, reply in ((a, reply_a), (b, reply_b)):
        follow = [*history, ChatMessage("assistant", reply), ChatMessage("user", "Say it.")]
        _, final = collect(parallel.chat(follow, GREEDY))
        assert final.stats is not None
        assert final.stats.cached_tokens >= len(parallel.tokenize(history[0].content))


def test_a_bad_request_ends_in_its_terminal_chunk(parallel: ParallelLlamaCpp) -> None:
    huge = ask("word " * 5000)
    _, final = collect(parallel.chat(huge, GREEDY))
    assert final.finish_reason in ("stop", "length", "error")
    _, final = collect(parallel.complete("word " * 5000, GREEDY))
    assert final.finish_reason == "error" and final.error
    assert parallel.busy == 0


def test_a_long_start_another_sequence_holds_is_copied_not_read_again(
    parallel: ParallelLlamaCpp,
) -> None:
    """Two requests with the same long system prompt at once: the second takes another
    sequence, which gets the shared start copied from the first's cache (it counts as cached),
    even though the first is still generating."""
    system = ChatMessage(
        "system",
        "You are the help desk of the Fenwick Loom harbour. Answer in one short sentence, "
        "politely, and never invent opening hours, fees or tide times that you were not given. "
        "The harbour office is on the north quay, beside the crane, and the slipway is south.",
    )
    first = cast(
        Generator[Chunk, None, None],
        parallel.chat([system, *ask("Where is the office?")], GREEDY),
    )
    try:
        assert not next(first).is_terminal  # its prompt is read: it is generating now
        text, final = collect(parallel.chat([system, *ask("Where is the slipway?")], GREEDY))
    finally:
        first.close()
    assert final.finish_reason in ("stop", "length") and text
    assert final.stats is not None
    assert final.stats.cached_tokens >= len(parallel.tokenize(system.content))
    assert parallel.busy == 0


def berths(harbour: str) -> ChatMessage:
    """A system prompt of about 500 tokens, from its first words on its harbour's own."""
    facts = [
        f"Berth {n} of the {harbour} harbour takes boats up to {8 + n} metres; its water "
        f"and power posts are numbered {100 + n} and {200 + n}, and it is booked at the office."
        for n in range(12)
    ]
    return ChatMessage("system", f"{harbour}: answer from these facts only. " + " ".join(facts))


def finals_together(streams: list[Iterator[Chunk]]) -> list[Chunk]:
    """Each stream read to its end in a thread of its own, all at once (each call took its
    sequence when it was made); their terminal chunks, in order."""
    results: list[tuple[str, Chunk] | None] = [None] * len(streams)

    def run(i: int) -> None:
        results[i] = collect(streams[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(streams))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r[1] for r in results if r is not None]


def test_requests_arriving_together_read_their_common_start_once(
    parallel: ParallelLlamaCpp,
) -> None:
    """Three requests with one long system prompt at the same moment: the first reads it, the
    other two wait for that reading and copy its cells instead of reading it beside it."""
    system = berths("Fenwick Loom")
    length = len(parallel.tokenize(system.content))
    assert 300 < length < 700  # long, and within each sequence's 1,024 tokens
    before = parallel.read_once
    questions = ["Which berth takes 12 metres?", "What is post 105?", "Where do I book?"]
    # Each call takes its sequence at once; the first sets out to read the prompt.
    finals = finals_together([parallel.chat([system, *ask(q)], GREEDY) for q in questions])
    assert parallel.read_once - before == 2
    assert [f.finish_reason in ("stop", "length") for f in finals] == [True] * 3
    cached = sorted(f.stats.cached_tokens if f.stats else 0 for f in finals)
    assert cached[0] < length <= cached[1] <= cached[2]
    assert parallel.busy == 0
    cells_match_tokens(parallel)


def test_a_start_saved_on_disk_is_restored_once_then_shared(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a restart, three requests with a system prompt whose state was saved on disk:
    one sequence restores it from the file, the other two copy its cells instead of reading
    the file (or the prompt) again."""
    from engine.generation.state_cache import StateCache

    cache = StateCache(tmp_path / "state")
    system = berths("Saltmarsh")
    with LlamaCppBackend().load(starter, plan_for(starter, 1024, SEQUENCES)) as before:
        assert isinstance(before, ParallelLlamaCpp)
        before.keep_states(cache)
        length = len(before.tokenize(system.content))
        collect(before.chat([system, *ask("Which berth takes 10 metres?")], GREEDY))
    cache.flush()
    assert list(cache.folder.glob("*.kvstate"))

    reads: list[int] = []
    read = cache.read

    def counted(entry: Any) -> bytes | None:
        data = read(entry)
        reads.append(len(data or b""))
        return data

    monkeypatch.setattr(cache, "read", counted)
    with LlamaCppBackend().load(starter, plan_for(starter, 1024, SEQUENCES)) as after:
        assert isinstance(after, ParallelLlamaCpp)
        after.keep_states(cache)
        questions = ["What is post 104?", "Where do I book?", "Which post is 203?"]
        finals = finals_together([after.chat([system, *ask(q)], GREEDY) for q in questions])
        assert after.read_once == 2
        cells_match_tokens(after)
    assert len(reads) == 1 and reads[0] > 0
    assert all(f.finish_reason in ("stop", "length") for f in finals) and len(finals) == 3
    assert all(f.stats is not None and f.stats.cached_tokens >= length for f in finals)


def test_a_request_does_not_wait_for_a_reply_nobody_reads(
    parallel: ParallelLlamaCpp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply that took its sequence but whose stream nobody reads yet reads nothing: a request
    with the same start waits a moment for it, then reads the start itself."""
    from engine.backends.llama import parallel as llama_parallel

    monkeypatch.setattr(llama_parallel, "WAIT_START_S", 0.2)
    system = berths("Saltmarsh Reach")
    length = len(parallel.tokenize(system.content))
    before = parallel.read_once
    unread = parallel.chat([system, *ask("Where do I book?")], GREEDY)
    text, final = collect(parallel.chat([system, *ask("What is post 103?")], GREEDY))
    assert final.finish_reason in ("stop", "length") and text
    assert final.stats is not None and final.stats.cached_tokens < length
    assert parallel.read_once == before
    _, last = collect(unread)  # read at last, it runs as any reply
    assert last.finish_reason in ("stop", "length")
    assert parallel.busy == 0


def cells_match_tokens(model: ParallelLlamaCpp) -> None:
    """Every sequence's cells in the KV cache are exactly its cached tokens: nothing evaluated
    for a reply and then not kept stays behind where the sequence goes on."""
    lib, mem = model.model.lib, model.model.mem
    for slot in model.slots:
        last = lib.llama_memory_seq_pos_max(mem, slot.seq)
        assert last + 1 == len(slot.cached_ids), (slot.seq, last, len(slot.cached_ids))


def test_a_token_handed_in_beside_others_is_taken_back_when_the_reply_ends(
    parallel: ParallelLlamaCpp, single: LlamaCppModel
) -> None:
    """Beside other replies a reply hands in its next token before sending its text: when the
    text then ends the reply (a stop string) or its client leaves, the token is taken back,
    and the sequence's cache holds only what it keeps."""
    long = GenerationParams(temperature=0.0, max_tokens=60)
    question = ask("Describe a walk in the forest.")
    plain = replace(long, speculation="off")
    alone, _ = collect(single.chat(question, plain))
    words = alone.split()
    assert len(words) > 6
    stop = " " + words[len(words) // 2]  # a word from the middle of the reply
    start = threading.Barrier(SEQUENCES)
    outcome: dict[str, Chunk] = {}

    def stopped() -> None:
        start.wait()
        outcome["stop"] = collect(parallel.chat(question, replace(long, stop=(stop,))))[1]

    def beside() -> None:
        start.wait()
        outcome["beside"] = collect(parallel.chat(ask("Count to forty."), long))[1]

    def left() -> None:
        start.wait()
        stream = cast(Generator[Chunk, None, None], parallel.chat(ask("Name ten birds."), long))
        for _ in range(3):
            assert not next(stream).is_terminal
        stream.close()  # the client went away

    threads = [threading.Thread(target=run) for run in (stopped, beside, left)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert outcome["stop"].finish_reason in ("stop", "length")
    assert outcome["beside"].finish_reason in ("stop", "length")
    assert parallel.busy == 0
    cells_match_tokens(parallel)
    # The stopped conversation goes on from its sequence's cache.
    _, final = collect(parallel.chat([*question, ChatMessage("assistant", alone)], GREEDY))
    assert final.finish_reason in ("stop", "length")
    cells_match_tokens(parallel)


def test_a_step_read_by_all_its_sequences_at_once_gives_each_its_own_row(
    parallel: ParallelLlamaCpp,
) -> None:
    """A step as replies beside each other make one: a prompt read in one sequence beside the
    next token of the others. llama.cpp computes the single tokens first (it splits a batch
    into micro-batches by sequence), so the rows come out in another order than the batch's,
    and each sequence reads its own from its thread as soon as the step ends. Read by all of
    them at once, every row is what one reader alone reads of the same step, every time."""
    import numpy as np

    weights = parallel.model
    lib, ctx, mem, batcher = weights.lib, weights.ctx, weights.mem, parallel.batcher
    n_vocab = int(lib.llama_vocab_n_tokens(weights.vocab))
    prompt = parallel.tokenize("The quick brown fox jumps over the lazy dog. " * 4)
    singles = parallel.tokenize(" one two three four")[: SEQUENCES - 1]
    assert len(prompt) > 16 and len(singles) == SEQUENCES - 1
    never = threading.Event()
    assert parallel.busy == 0

    def step() -> list[Any]:
        """The step's works, handed in while the step thread cannot look: one step takes them
        all."""
        with batcher.lock:
            for seq in range(SEQUENCES):
                lib.llama_memory_seq_rm(mem, seq, -1, -1)
        with batcher._cond:
            works = [batcher.hand_in(0, prompt, 0, True)]
            works += [batcher.hand_in(s, [t], 0, True) for s, t in enumerate(singles, start=1)]
        return works

    def rows_read(works: list[Any], at_once: bool) -> list[Any]:
        """Each work's row, read in a thread of its own (``at_once``: all asking llama.cpp at
        the same moment), or all by this thread in turn."""
        read: list[Any] = [None] * len(works)
        together = threading.Barrier(len(works))

        def read_own(i: int) -> None:
            rows = batcher.result(works[i], never)
            assert rows is not None
            if at_once:
                together.wait()
            logits = lib.llama_get_logits_ith(ctx, rows[1])
            read[i] = np.ctypeslib.as_array(logits, shape=(n_vocab,)).copy()

        if not at_once:
            for i in range(len(works)):
                read_own(i)
            return read
        threads = [threading.Thread(target=read_own, args=(i,)) for i in range(len(works))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        return read

    try:
        alone = rows_read(step(), at_once=False)
        wrong = 0
        for _ in range(30):
            read = rows_read(step(), at_once=True)
            wrong += any(not np.array_equal(a, b) for a, b in zip(read, alone, strict=True))
        assert wrong == 0, f"{wrong} of 30 steps gave a sequence a row not its own"
    finally:
        for seq in range(SEQUENCES):
            batcher.leave(seq)
        parallel.reset()  # the sequences' cells no longer hold their cached tokens
    assert parallel.busy == 0

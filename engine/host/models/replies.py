"""Running one reply for the host: the blocking generation in a thread, its chunks handed to the
event loop (merged, at most every ``STREAM_FLUSH_S``, with heartbeats while it is quiet), the
counters, and the first reply's speed compared with the prediction once the engine is idle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from engine.client.protocol import LongPrompt
from engine.errors import EngineError
from engine.host.idle.background import Background
from engine.host.models.residents import Resident
from engine.types import Chunk, GenerationStats, TokenLogprob

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

log = logging.getLogger("cove.host")

# Sent on a stream when nothing else has been for this long, so that a client blocked on a read
# regains control (to notice its own cancel) even while a long prompt is evaluated.
HEARTBEAT_S: Final = 0.25
HEARTBEAT: Final = "heartbeat"
# Text is handed from the generating thread to the event loop at most this often (the first piece
# at once). Every hand-off wakes the loop thread, which writes an SSE event that wakes the client:
# per token, those wake-ups take CPU from the runtime's own threads when they use every core
# (docs/PERFORMANCE.md measures it). The window repaints about every 30 ms, so nothing shows later.
STREAM_FLUSH_S: Final = 0.03
# A prompt this long (tokens read, not taken from the cache) is remembered with its reading speed
# (the status's ``last_long_prompt``), as the window's status bar shows it.
LONG_PROMPT: Final = 1000


@dataclass(slots=True)
class Counters:
    completed: int = 0
    cancelled: int = 0
    errors: int = 0


class Replies:
    """Runs the host's replies and counts them."""

    def __init__(
        self,
        background: Background,
        probe: Callable[[], HardwareReport],
        flush_s: float = STREAM_FLUSH_S,
    ) -> None:
        # Idle work, which the comparison of a reply's speed with its prediction waits for.
        self.background = background
        self.probe = probe  # the hardware the prediction is made for
        self.flush_s = flush_s
        self.counters = Counters()
        self.streams = 0  # replies being generated now
        self._speed_checked: Resident | None = None
        # The last prompt of ``LONG_PROMPT`` tokens or more read: its model, tokens, seconds,
        # speed and when it was read.
        self.last_long_prompt: LongPrompt | None = None

    @property
    def generating(self) -> bool:
        return self.streams > 0

    async def run_stream(
        self,
        resident: Resident | None,
        produce: Callable[[], Iterator[Chunk]],
        cancel: threading.Event,
    ) -> AsyncGenerator[Chunk | str, None]:
        """Run a blocking chunk generator (a reply of ``resident``) in a thread and yield its
        chunks here; text chunks that arrived together are merged, and HEARTBEAT is yielded when
        the stream has been quiet.

        Leaving early (the client went away) sets ``cancel`` and waits for the thread to finish,
        so the model is free again when this returns."""
        loop = asyncio.get_running_loop()
        pending: deque[Chunk | BaseException | None] = deque()
        ready = asyncio.Event()
        # The thread appends to ``pending`` itself and wakes the loop only when no wake-up is
        # already on its way: one wake-up (a write to the loop's pipe) for everything that
        # arrived before the loop got to it.
        waking = False

        def wake() -> None:
            nonlocal waking
            waking = False
            ready.set()

        def put(item: Chunk | BaseException | None) -> None:  # on the generating thread
            nonlocal waking
            pending.append(item)
            if not waking:
                waking = True
                with contextlib.suppress(RuntimeError):  # the loop closed: nobody listens
                    loop.call_soon_threadsafe(wake)

        flush_s = self.flush_s
        # The terminal chunk, as the thread produced it: counted once the thread is done, whether
        # or not a consumer (gone with its client) ever read it.
        produced: list[Chunk] = []

        def work() -> None:
            from engine.tuning.load import LoadMeter

            meter = LoadMeter().start()
            held: list[str] = []
            thought: list[str] = []  # a reasoning model's thinking comes before its answer
            scored: list[TokenLogprob] = []
            due = 0.0
            try:
                for chunk in produce():
                    if chunk.scored_prompt is not None:  # before any text: handed on as it is
                        put(chunk)
                        continue
                    if not chunk.is_terminal:
                        held.append(chunk.text)
                        thought.append(chunk.reasoning)
                        scored.extend(chunk.logprobs)
                        now = time.monotonic()
                        if now < due:
                            continue
                        due = now + flush_s
                    if any(thought):
                        put(Chunk(reasoning="".join(thought)))
                    thought.clear()
                    if held:
                        put(Chunk(text="".join(held), logprobs=tuple(scored)))
                        held.clear()
                        scored.clear()
                    if chunk.is_terminal:
                        produced.append(chunk)
                        put(chunk)
                        others = meter.others_share()
                        threading.Thread(
                            target=self._check_speed,
                            args=(resident, chunk, others),
                            name="cove-speed-check",
                            daemon=True,
                        ).start()
            except BaseException as exc:  # the thread boundary: hand the error to the loop
                put(exc)
            finally:
                put(None)

        thread = threading.Thread(target=work, name="cove-generate", daemon=True)
        self.streams += 1
        ended = False
        thread.start()
        finished = counted = False
        try:
            while True:
                if not pending:
                    ready.clear()
                    if not pending:  # nothing landed between the look and the clear
                        quiet = _Quiet(ready)
                        timer = loop.call_later(HEARTBEAT_S, quiet.beat)
                        await ready.wait()
                        timer.cancel()
                        if not pending and not quiet.beaten:
                            continue  # a wake-up for items already taken
                    if not pending:
                        yield HEARTBEAT
                        continue
                item = pending.popleft()
                if item is None:
                    finished = True
                    return
                if isinstance(item, BaseException):
                    raise EngineError(f"The engine failed while generating: {item}") from item
                if item.is_terminal:
                    # The backend released the model before its terminal chunk: a status asked
                    # for once a client has read it must not count this reply.
                    if not ended:
                        ended = True
                        self.streams -= 1
                    self._count(item, resident)
                    counted = True
                    yield item
                    continue
                # Join the chunks that are already waiting: fewer, larger writes when the
                # network side falls behind the model. The thinking comes before the answer, so
                # each joins its own kind.
                joined = [item]
                while pending and isinstance(pending[0], Chunk) and not pending[0].is_terminal:
                    nxt = pending.popleft()
                    assert isinstance(nxt, Chunk)
                    joined.append(nxt)
                yield item if len(joined) == 1 else _joined(joined)
        finally:
            if not finished:
                cancel.set()
                await asyncio.to_thread(thread.join)
            if produced and not counted:
                self._count(produced[-1], resident)
            if not ended:
                self.streams -= 1

    def _check_speed(self, resident: Resident | None, final: Chunk, others: float) -> None:
        """The first reply of a load that counts (engine/speed/check.py) against the speed
        predicted for it: off by more than 30 %, the prediction's rates are corrected. Not on a
        busy machine, whose figures say more about the other programs, nor a reply batched with
        others'. The comparison (which probes the hardware: ONNX Runtime's import alone takes a
        second) waits for an idle moment, so that the next request does not wait for it."""
        from engine.speed.observe import counts, observation_from_stats
        from engine.tuning.load import is_busy

        if (
            resident is None
            or self._speed_checked is resident
            or final.stats is None
            or final.stats.batched_tokens
            or final.finish_reason not in ("stop", "length")
            or not counts(final.stats)  # before the header is read: a tenth of a second of Python
            or is_busy(others)
        ):
            return
        try:
            from engine.speed.check import check
            from engine.speed.facts import read_model_info

            info = read_model_info(resident.path)
            obs = observation_from_stats(resident.path, info, resident.plan, final.stats)
            if obs is None:
                return
            self._speed_checked = resident
            if not self.background.wait_quiet():
                return  # background measuring is off, or the engine is stopping
            from engine.tuning.priority import lower_this_thread

            lower_this_thread()  # this thread's own, and it ends with the comparison
            result = check(self.probe(), resident.path, resident.plan, obs)
            if result is not None:
                log.info("speed of %s here: %s", resident.id, result.to_dict())
        except Exception as exc:  # a speed record is never worth a failed reply
            log.warning("could not compare %s's speed with its prediction: %s", resident.id, exc)

    def _count(self, final: Chunk, resident: Resident | None = None) -> None:
        reading = prompt_reading(final.stats)
        if reading["prompt_read_tokens"] >= LONG_PROMPT and reading["prompt_tokens_per_s"] > 0:
            self.last_long_prompt = LongPrompt(
                model=resident.id if resident is not None else None,
                tokens=int(reading["prompt_read_tokens"]),
                seconds=float(reading["prompt_read_s"]),
                tokens_per_s=float(reading["prompt_tokens_per_s"]),
                at=datetime.now(UTC).isoformat(timespec="seconds"),
            )
        if final.finish_reason == "cancelled":
            self.counters.cancelled += 1
        elif final.finish_reason == "error":
            self.counters.errors += 1
        else:
            self.counters.completed += 1


def prompt_reading(s: GenerationStats | None) -> dict[str, Any]:
    """How the prompt was read: the tokens read (not taken from the cache), in how many
    seconds, and the speed (0 where nothing was read)."""
    read = max(s.prompt_tokens - s.cached_tokens, 0) if s else 0
    speed = s.prompt_tokens_per_s if s and read else 0.0
    return {
        "prompt_read_tokens": read,
        "prompt_read_s": round(read / speed, 3) if speed else 0.0,
        "prompt_tokens_per_s": speed,
    }


class _Quiet:
    """The heartbeat of one wait: set when the stream has been quiet for ``HEARTBEAT_S``."""

    __slots__ = ("_ready", "beaten")

    def __init__(self, ready: asyncio.Event) -> None:
        self.beaten = False
        self._ready = ready

    def beat(self) -> None:
        self.beaten = True
        self._ready.set()


def _joined(chunks: list[Chunk]) -> Chunk:
    """Text chunks that arrived together as one: their answer, their thinking and their tokens'
    log-probabilities, each in order (and a scored prompt, which comes before them)."""
    scored = [c.scored_prompt for c in chunks if c.scored_prompt is not None]
    return Chunk(
        text="".join(c.text for c in chunks),
        reasoning="".join(c.reasoning for c in chunks),
        logprobs=tuple(p for c in chunks for p in c.logprobs),
        scored_prompt=scored[0] if scored else None,
    )

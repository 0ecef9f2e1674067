"""The engine's idle work as a whole, and each piece's turns.

A piece of idle work (measuring the ways to run the chat model, or how many replies at once pay)
runs only when all of these hold, checked every ``WAIT_POLL_S`` while it waits, and says which one
it waits for (``/cove/v1/status``'s ``background``, the window's status bar):
- background measuring is on (a setting kept in the data folder, ``POST /cove/v1/background``;
  ``cove serve --no-background-measuring`` turns it off for one run);
- its pause is over, where earlier tries failed (engine/tuning/retry.py);
- no request has been seen for the settle time, which doubles each time a request stops a run
  (an agent's next turn, a chat's follow-up: a run started between two turns is wasted);
- the rest of the machine has been quiet for ``QUIET_FOR_S`` (engine/tuning/idle.py);
- no other engine host on this data folder is doing its idle work (the window's and a
  ``cove serve``'s would each count the other's runs as another program's): a run holds the data
  folder's idle work lock (engine/instance.py) from its start to its end, and only then.

While it runs, a request, other programs wanting the processor, the setting turned off or the
engine stopping ends it (its ``Stop`` says which).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Final, Literal

from engine.client.protocol import BackgroundWork
from engine.errors import LoadCancelled
from engine.instance import IdleWorkLock, idle_work_lock
from engine.tuning.idle import (
    A_REQUEST,
    ANOTHER_PROGRAM,
    CLOSING,
    QUIET_FOR_S,
    TURNED_OFF,
    WAIT_POLL_S,
    QuietWatch,
    Stop,
)
from engine.tuning.retry import Retries

log = logging.getLogger("cove.host")

# A request's end is often followed by the same client's next one: idle work waits this long
# after the last request before it starts, twice as long after each run a request stopped.
SETTLE_S: Final = 3.0
LONGEST_SETTLE_S: Final = 300.0
# The setting is read from the data folder at most this often (another Cove may change it).
SETTING_READ_S: Final = 10.0
# Set (to anything): idle work neither waits for nor gives way to other programs, only to the
# engine's own requests. For tests of the measuring itself on a machine busy with other work.
ANY_LOAD_ENV: Final = "COVE_BACKGROUND_ANY_LOAD"

IDLE_WORDS: Final = "measuring when this computer is idle"
ANOTHER_COVE_WORDS: Final = "another Cove on this data folder is measuring"

State = Literal["waiting", "running", "paused", "off"]


class IdleGate:
    """Counts the requests in the engine (running or waiting); idle work waits for a quiet moment
    and is stopped when a request arrives."""

    def __init__(self, settle_s: float = SETTLE_S) -> None:
        self.settle_s = settle_s
        self._cond = threading.Condition()
        self._active = 0
        self._last = time.monotonic()
        self._watchers: list[Stop] = []
        self._closed = False

    def enter(self) -> None:
        with self._cond:
            self._active += 1
            for watcher in self._watchers:
                watcher.stop(A_REQUEST)
            self._cond.notify_all()

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._last = time.monotonic()
            self._cond.notify_all()

    def touch(self) -> None:
        """Count the quiet from now (a model just loaded: its first request is likely near)."""
        with self._cond:
            self._last = time.monotonic()

    @property
    def idle(self) -> bool:
        return self._active == 0

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for watcher in self._watchers:
                watcher.stop(CLOSING)
            self._cond.notify_all()

    def poke(self) -> None:
        """Wake the waiting work (a setting changed)."""
        with self._cond:
            self._cond.notify_all()

    def settled(self, settle_s: float) -> bool:
        """No request running, and none seen for ``settle_s``."""
        with self._cond:
            return self._active == 0 and time.monotonic() - self._last >= settle_s

    def nap(self, seconds: float) -> None:
        """Wait up to ``seconds``, less when a request comes or goes or the engine closes."""
        with self._cond:
            if not self._closed:
                self._cond.wait(seconds)

    def watch(self, stop: Stop, settle_s: float) -> bool:
        """Let ``stop`` be set by the next request; False (nothing watched) when a request came
        in the meantime."""
        with self._cond:
            if self._closed or self._active or time.monotonic() - self._last < settle_s:
                return False
            self._watchers.append(stop)
            return True

    def done(self, stop: Stop) -> None:
        with self._cond:
            if stop in self._watchers:
                self._watchers.remove(stop)

    def stop_all(self, why: str) -> None:
        with self._cond:
            for watcher in self._watchers:
                watcher.stop(why)


class Background:
    """Whether the engine measures in the background, the watch on the rest of the machine its
    idle work shares, and the pieces of it there are (for the status)."""

    def __init__(
        self,
        gate: IdleGate,
        *,
        allowed: bool = True,
        watch: QuietWatch | None = None,
        now: Callable[[], float] = time.time,
        folder_lock: IdleWorkLock | None = None,
    ) -> None:
        self.gate = gate
        self.allowed = allowed  # False: off for this run, whatever the setting says
        self.quiet_for_s = QUIET_FOR_S
        self.poll_s = WAIT_POLL_S  # how often waiting work looks again
        self.now = now  # the wall clock that failed tries are kept in
        self.any_load = bool(os.environ.get(ANY_LOAD_ENV))
        self._watch = watch
        self._setting: bool | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()
        self.works: list[IdleWork] = []
        # The one piece of idle work running now: two at once would each measure the other.
        self.running: IdleWork | None = None
        self._own: list[int] = []
        self._folder_lock = folder_lock
        self._folder_guard = threading.Lock()  # not _lock: _release holds that one

    @property
    def folder_lock(self) -> IdleWorkLock:
        """The data folder's idle work lock, shared with other engine hosts on the folder."""
        with self._folder_guard:
            if self._folder_lock is None:
                self._folder_lock = idle_work_lock()
            return self._folder_lock

    @property
    def watch(self) -> QuietWatch:
        with self._lock:
            if self._watch is None:
                self._watch = QuietWatch()
                for pid in self._own:
                    self._watch.reading.adopt(pid)
            return self._watch

    @watch.setter
    def watch(self, watch: QuietWatch) -> None:
        with self._lock:
            self._watch = watch

    def adopt(self, pid: int) -> None:
        """Count ``pid``'s use of the processor as Cove's own, not another program's (the window
        that started this engine)."""
        self._own.append(pid)
        with self._lock:
            if self._watch is not None:
                self._watch.reading.adopt(pid)

    def enabled(self) -> bool:
        if not self.allowed:
            return False
        now = time.monotonic()
        if self._setting is None or now - self._read_at >= SETTING_READ_S:
            from engine.tuning.store import TuningStore

            try:
                self._setting = TuningStore().background_measuring()
            except OSError:
                self._setting = True
            self._read_at = now
        return self._setting

    def set_enabled(self, on: bool) -> None:
        """Turn background measuring on or off, kept in the data folder; turning it off stops
        what runs now."""
        from engine.tuning.store import TuningStore

        TuningStore().set_background_measuring(on)
        self._setting, self._read_at = on, time.monotonic()
        if not on:
            self.gate.stop_all(TURNED_OFF)
        self.gate.poke()
        log.info("background measuring turned %s", "on" if on else "off")

    def wait_quiet(self) -> bool:
        """Block until the engine has settled and the rest of the machine is quiet, for light
        idle work that needs no stopping (comparing a reply's speed with its prediction); False
        when background measuring is off or the engine is stopping."""
        gate, watch = self.gate, self.watch
        while not gate.closed and self.enabled():
            watch.sample()
            quiet = self.any_load or watch.quiet_s() >= self.quiet_for_s
            if gate.settled(gate.settle_s) and quiet:
                return True
            gate.nap(self.poll_s)
        return False

    def work(self, what: str, key: str | None) -> IdleWork:
        work = IdleWork(self, what, key)
        self.works = [w for w in self.works if not w.finished] + [work]
        return work

    def describe(self) -> list[BackgroundWork]:
        return [w.describe() for w in self.works if not w.finished]


class IdleWork:
    """One piece of idle work: it waits for its turn (``wait``), runs, and says how the run
    ended (``done``, ``interrupted``, ``failed``, ``succeeded``). ``key``: where its failed tries
    are kept (None: not kept)."""

    def __init__(self, background: Background, what: str, key: str | None) -> None:
        self.background = background
        self.what = what
        self.key = key
        self.state: State = "waiting"
        self.why = IDLE_WORDS
        self.finished = False
        self._settle_s = background.gate.settle_s
        self._retries: Retries | None = None
        self._ending: dict[int, Any] = {}

    # -- waiting ---------------------------------------------------------------------------

    def retries(self) -> Retries:
        if self._retries is None:
            self._retries = Retries()
            if self.key is not None:
                from engine.tuning.store import TuningStore

                with contextlib.suppress(OSError):
                    self._retries = TuningStore().retries(self.key)
        return self._retries

    def _blocked(self) -> tuple[State, str] | None:
        """What this work waits for now, or None when it may start."""
        background, gate = self.background, self.background.gate
        watch = background.watch
        watch.sample()  # read every time, so that the quiet is counted whatever else it waits for
        if not background.enabled():
            return "off", "background measuring is off"
        retries = self.retries()
        at = retries.next_try()
        if at > background.now():
            when = datetime.datetime.fromtimestamp(at).strftime("%H:%M")
            return "paused", f"{retries.why}; trying again at {when}"
        if background.folder_lock.taken_by_another():
            return "waiting", ANOTHER_COVE_WORDS
        if not gate.settled(self._settle_s):
            return "waiting", "waiting for the engine to be idle"
        if not background.any_load and watch.quiet_s() < background.quiet_for_s:
            return "waiting", IDLE_WORDS
        other = background.running
        if other is not None and other is not self:
            return "waiting", f"waiting for: {other.what[0].lower()}{other.what[1:]}"
        return None

    def wait(self) -> Stop:
        """Block until this work may run; the ``Stop`` that ends it. LoadCancelled once the engine
        is closing."""
        gate = self.background.gate
        while True:
            if gate.closed:
                raise LoadCancelled("The engine is stopping.")
            blocked = self._blocked()
            if blocked is None and self._claim():
                if not self.background.folder_lock.try_acquire():
                    # Another host took its turn since the look: this one waits for the next.
                    self._release()
                    self.state, self.why = "waiting", ANOTHER_COVE_WORDS
                    gate.nap(self.background.poll_s)
                    continue
                stop = Stop(self.background.watch.reading)
                if gate.watch(stop, self._settle_s):
                    if not self.background.any_load:
                        self._ending[id(stop)] = self.background.watch.watch(stop)
                    self.state, self.why = "running", "measuring while this computer is idle"
                    return stop
                self._release()
                continue
            if blocked is None:
                continue  # another piece took its turn first: it is named at the next look
            self.state, self.why = blocked
            gate.nap(self.background.poll_s)

    def _claim(self) -> bool:
        background = self.background
        with background._lock:
            if background.running not in (None, self):
                return False
            background.running = self
            return True

    def _release(self) -> None:
        background = self.background
        with background._lock:
            if background.running is self:
                background.running = None
                background.folder_lock.release()

    def done(self, stop: Stop) -> None:
        """The run that ``stop`` belongs to has ended, however it ended."""
        end = self._ending.pop(id(stop), None)
        if end is not None:
            end()
        self.background.gate.done(stop)
        self._release()
        if self.state == "running":
            self.state, self.why = "waiting", IDLE_WORDS

    # -- how a run ended --------------------------------------------------------------------

    def interrupted(self, why: str) -> None:
        """A run was stopped before it finished: a request makes the next wait longer; another
        program counts as a failed try (a pause before the next)."""
        if why == A_REQUEST:
            self._settle_s = min(self._settle_s * 2, LONGEST_SETTLE_S)
            log.info("a request arrived: %s is taken again when idle", self.what)
        elif why == ANOTHER_PROGRAM:
            self.failed(f"stopped: {ANOTHER_PROGRAM}")

    def failed(self, why: str) -> None:
        self._retries = self.retries().failed(why, self.background.now())
        self._keep()
        when = datetime.datetime.fromtimestamp(self._retries.next_try()).strftime("%H:%M")
        log.info("%s: %s; trying again at %s", self.what, why, when)

    def succeeded(self) -> None:
        self._settle_s = self.background.gate.settle_s
        if self.retries().failures:
            self._retries = Retries()
            self._keep()

    def finish(self) -> None:
        self.finished = True

    def _keep(self) -> None:
        if self.key is None or self._retries is None:
            return
        from engine.tuning.store import TuningStore

        try:
            TuningStore().save_retries(self.key, self._retries)
        except OSError as exc:
            log.warning("could not keep the tries of %s: %s", self.what, exc)

    def describe(self) -> BackgroundWork:
        at = self.retries().next_try() if self.state == "paused" else 0.0
        when = datetime.datetime.fromtimestamp(at).astimezone() if at else None
        return BackgroundWork(
            work=self.what,
            state=self.state,
            why=self.why,
            next_try=when.isoformat(timespec="seconds") if when is not None else None,
            failed_tries=self.retries().failures,
        )

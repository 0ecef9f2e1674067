"""What a Cove engine host and its clients agree on beyond OpenAI's shapes: how a private host is
started and announces itself, the JSON of its status, model list, plans and errors, and the ``cove``
extras of a completion. Both sides import this module; neither imports the other.

Everything here is pure: values in, JSON-ready dicts out, and back. A reply that cannot be read
raises ``ProtocolError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from engine import errors
from engine.errors import EngineError, InsufficientMemory, ProtocolError
from engine.planner.plan import Plan
from engine.types import Chunk, Truncation

# The child's environment variable that carries the per-launch token, and the line the host prints
# on stdout once it serves (followed by JSON: port, pid).
TOKEN_ENV = "COVE_HOST_TOKEN"
# The background work that probes this computer's speed, as ``EngineStatus.background`` names it:
# once it is done, the hardware report carries the speed profile.
SPEED_WORK = "Measuring this computer's speed"
READY_PREFIX = "COVE-HOST-READY "


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One entry of ``GET /v1/models``. Other OpenAI-compatible servers may send only ``id``."""

    id: str
    kind: str | None = None  # Cove hosts: "chat" or "embedding"
    created: int = 0
    owned_by: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "model",
            "created": self.created,
            "owned_by": self.owned_by,
            "kind": self.kind,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelInfo:
        kind = data.get("kind")
        return cls(
            id=str(data["id"]),
            kind=kind if isinstance(kind, str) else None,
            created=int(data.get("created") or 0),
            owned_by=str(data.get("owned_by") or ""),
        )


@dataclass(frozen=True, slots=True)
class ScoredPrompts:
    """Prompts scored together: each one's tokens' log-probabilities given the tokens before
    them (the first token's is None), and the model that scored them as the engine names it
    (its status's ``residents`` say how that model runs)."""

    rows: list[list[float | None]]
    model: str | None


_T = TypeVar("_T")


def _int(value: object, default: int = 0) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _each(read: Callable[[Mapping[str, Any]], _T], items: object) -> Iterator[_T]:
    """Each JSON object of a list read with ``read``; anything else skipped."""
    if isinstance(items, list | tuple):
        yield from (read(item) for item in items if isinstance(item, Mapping))


def _text(value: object) -> str | None:
    return str(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class BackgroundWork:
    """One piece of the engine's idle work and what it waits for."""

    work: str
    state: str  # "waiting", "running", "paused" (after failed tries) or "off"
    why: str  # in words
    next_try: str | None = None  # ISO time, when paused
    failed_tries: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BackgroundWork:
        return cls(
            work=str(data.get("work") or ""),
            state=str(data.get("state") or "waiting"),
            why=str(data.get("why") or ""),
            next_try=_text(data.get("next_try")),
            failed_tries=_int(data.get("failed_tries")),
        )


@dataclass(frozen=True, slots=True)
class ResidentModel:
    """A chat model in memory: how it runs, the replies it is running and waiting, its size,
    and when it is unloaded if left idle."""

    model: str
    path: str = ""
    backend: str | None = None
    device: str | None = None
    n_ctx: int = 0
    parallel: int = 1
    # The way it runs, which moves a small model's log-likelihoods a little.
    flash_attn: bool | None = None
    n_batch: int | None = None
    n_ubatch: int | None = None
    kv_type: str | None = None
    slots_in_use: int = 0
    queued: int = 0
    size_bytes: int = 0
    on_demand: bool = False
    keep_alive_s: float | None = None  # None: kept until unloaded
    expires_at: float | None = None  # seconds since the epoch; None: not counting down

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResidentModel:
        flash = data.get("flash_attn")
        n_batch, n_ubatch = data.get("n_batch"), data.get("n_ubatch")
        return cls(
            model=str(data.get("model") or ""),
            path=str(data.get("path") or ""),
            backend=_text(data.get("backend")),
            device=_text(data.get("device")),
            n_ctx=_int(data.get("n_ctx")),
            parallel=max(_int(data.get("parallel"), 1), 1),
            flash_attn=flash if isinstance(flash, bool) else None,
            n_batch=_int(n_batch) if n_batch is not None else None,
            n_ubatch=_int(n_ubatch) if n_ubatch is not None else None,
            kv_type=_text(data.get("kv_type")) or None,
            slots_in_use=_int(data.get("slots_in_use")),
            queued=_int(data.get("queued")),
            size_bytes=_int(data.get("size_bytes")),
            on_demand=bool(data.get("on_demand")),
            keep_alive_s=_float(data.get("keep_alive_s")),
            expires_at=_float(data.get("expires_at")),
        )


@dataclass(frozen=True, slots=True)
class LongPrompt:
    """The last prompt of 1,000 tokens or more the engine read (not taken from its cache)."""

    model: str | None
    tokens: int
    seconds: float
    tokens_per_s: float
    at: str  # ISO time

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LongPrompt:
        return cls(
            model=_text(data.get("model")),
            tokens=_int(data.get("tokens")),
            seconds=_float(data.get("seconds")) or 0.0,
            tokens_per_s=_float(data.get("tokens_per_s")) or 0.0,
            at=str(data.get("at") or ""),
        )


@dataclass(frozen=True, slots=True)
class SavedState:
    """How much conversation state the engine keeps on disk (``GET /cove/v1/state``)."""

    enabled: bool
    bytes: int = 0
    limit_bytes: int = 0
    snapshots: int = 0  # of the conversation asked about, or of all
    removed: int = 0  # by this request (a DELETE)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SavedState:
        return cls(
            enabled=bool(data.get("enabled", True)),
            bytes=_int(data.get("bytes")),
            limit_bytes=_int(data.get("limit_bytes")),
            snapshots=_int(data.get("snapshots")),
            removed=_int(data.get("removed")),
        )


@dataclass(frozen=True, slots=True)
class EngineStatus:
    model: str | None = None
    model_path: str | None = None
    backend: str | None = None
    device: str | None = None
    n_ctx: int | None = None
    plan: Plan | None = None
    generating: bool = False
    queued: int = 0
    loading: str | None = None
    generations_completed: int = 0
    generations_cancelled: int = 0
    generation_errors: int = 0
    embedding_model: str | None = None
    pid: int | None = None
    draft: str | None = None  # the model drafting for the chat model (speculative decoding)
    # Cached tokens up to which the chat model's batches are bit-exact (speculation "auto").
    exact_tokens: int = 0
    # The chat model reads images (a vision model with its projector loaded).
    vision: bool = False
    # The chat model's template can turn its thinking off (engine/formats/thinking_switch.py).
    thinking_switch: bool = False
    # Replies the chat model generates at once (its sequences), and how many are running now.
    parallel: int = 1
    running: int = 0
    # What the engine measures in its idle moments (the ways to run the chat model), and what
    # its last measurement found.
    measuring: str | None = None
    measured: str | None = None
    # Idle work and what it waits for, and whether background measuring is on.
    background: tuple[BackgroundWork, ...] = ()
    background_measuring: bool = True
    # Every chat model in memory (the default one first).
    residents: tuple[ResidentModel, ...] = ()
    # The last long prompt read; None before the first.
    last_long_prompt: LongPrompt | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["plan"] = self.plan.to_dict() if self.plan is not None else None
        data["background"] = [w.to_dict() for w in self.background]
        data["residents"] = [r.to_dict() for r in self.residents]
        long = self.last_long_prompt
        data["last_long_prompt"] = long.to_dict() if long is not None else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EngineStatus:
        """Keys it does not know are ignored (a newer host may send more)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        plan = known.get("plan")
        known["plan"] = Plan.from_dict(plan) if isinstance(plan, Mapping) else None
        known["background"] = tuple(_each(BackgroundWork.from_dict, known.get("background")))
        known["residents"] = tuple(_each(ResidentModel.from_dict, known.get("residents")))
        long = known.get("last_long_prompt")
        known["last_long_prompt"] = (
            LongPrompt.from_dict(long) if isinstance(long, Mapping) else None
        )
        return cls(**known)


def status_from(data: object) -> EngineStatus:
    try:
        if not isinstance(data, Mapping):
            raise TypeError("not a JSON object")
        return EngineStatus.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"The engine sent a status this Cove cannot read ({exc}).") from None


def plan_from(data: object) -> Plan:
    try:
        if not isinstance(data, Mapping):
            raise TypeError("not a JSON object")
        return Plan.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"The engine sent a plan this Cove cannot read ({exc}).") from None


# -- the ``cove`` extras of a completion ---------------------------------------------------------


def completion_extras(final: Chunk) -> dict[str, Any]:
    """What Cove adds to a final chunk (or a whole response): finish reason, timings,
    truncation."""
    s = final.stats
    t = final.truncation
    return {
        "finish_reason": final.finish_reason,
        "timings": None
        if s is None
        else {
            "ttft_s": s.ttft_s,
            "decode_tokens_per_s": s.decode_tokens_per_s,
            "prompt_tokens_per_s": s.prompt_tokens_per_s,
            "cached_tokens": s.cached_tokens,
            "total_s": s.total_s,
            "draft_tokens": s.draft_tokens,
            "accepted_tokens": s.accepted_tokens,
            "batched_tokens": s.batched_tokens,
        },
        "truncation": None
        if t is None
        else {
            "dropped_messages": t.dropped_messages,
            "shortened_messages": t.shortened_messages,
            "dropped_tokens": t.dropped_tokens,
            "context_limit": t.context_limit,
            "description": t.describe(),
        },
        "context_full": final.context_full,
        "ignored_params": list(final.ignored_params),
    }


def truncation_from(data: object) -> Truncation | None:
    if not isinstance(data, Mapping):
        return None
    try:
        return Truncation(
            dropped_messages=int(data["dropped_messages"]),
            shortened_messages=int(data["shortened_messages"]),
            dropped_tokens=int(data["dropped_tokens"]),
            context_limit=int(data["context_limit"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


# -- errors ----------------------------------------------------------------------------------------


def error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error object; ``code`` is the ``EngineError`` subclass's code."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# What a server that sends no Cove code means by its status.
_BY_STATUS: dict[int, type[EngineError]] = {
    400: errors.InvalidRequest,
    401: errors.EngineAuthError,
    403: errors.EngineAuthError,
    404: errors.ModelNotFound,
    409: errors.LoadCancelled,
    413: errors.InvalidRequest,
    415: errors.InvalidRequest,
    422: errors.InvalidRequest,
    429: errors.EngineBusy,
    507: errors.InsufficientMemory,
}


def error_class(code: object) -> type[EngineError] | None:
    """The EngineError subclass whose ``code`` this is, if any."""
    if not isinstance(code, str):
        return None
    pending: list[type[EngineError]] = [EngineError]
    while pending:
        cls = pending.pop()
        if cls.code == code:
            return cls
        pending.extend(cls.__subclasses__())
    return None


def error_from(error: object, status: int) -> EngineError:
    """The typed error for an OpenAI-style error object (Cove's ``code`` first, else the
    status)."""
    if isinstance(error, Mapping):
        message = str(error.get("message") or f"The engine answered HTTP {status}.")
        code = error.get("code")
        raw_plan = error.get("plan")
    else:
        message, code, raw_plan = str(error), None, None
    cls = error_class(code) or _BY_STATUS.get(status, EngineError)
    if cls is InsufficientMemory:
        plan: Plan | None = None
        if isinstance(raw_plan, Mapping):
            try:
                plan = Plan.from_dict(raw_plan)
            except (KeyError, TypeError, ValueError):
                plan = None  # the message still says why; the breakdown is a bonus
        return InsufficientMemory(message, plan)
    return cls(message)

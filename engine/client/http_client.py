"""The one way the app and the CLI talk to an engine: Cove's own host or any OpenAI-compatible
server (vLLM, llama.cpp's server, Ollama, another Cove), over HTTP.

``chat`` and ``complete`` yield the engine's own :class:`~engine.types.Chunk` stream: text, then
exactly one terminal chunk. Cancelling closes the connection, which is how any OpenAI-compatible
server learns to stop; Cove's host stops within one token. A connection that breaks is reported as
``EngineCrashed`` (with the host's last log lines) when a local host died, else
``EngineUnreachable``. See docs/ENGINE_API.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from engine import errors
from engine.client.protocol import (
    EngineStatus,
    ModelInfo,
    SavedState,
    ScoredPrompts,
    error_from,
    plan_from,
    status_from,
    truncation_from,
)
from engine.errors import (
    EngineCrashed,
    EngineError,
    EngineUnreachable,
    LoadCancelled,
    ProtocolError,
)
from engine.formats.thinking_switch import THINKING_VARIABLE
from engine.hardware.report import HardwareReport
from engine.planner.plan import Plan
from engine.tools import ToolCall
from engine.types import ChatMessage, Chunk, FinishReason, GenerationParams, GenerationStats

__all__ = ["CrashCheck", "EngineClient", "EngineStatus", "ModelInfo"]

# Checks whether the engine behind a broken connection died; returns what happened, or None.
CrashCheck = Callable[[], str | None]

_CANCEL_POLL_S = 0.05


class EngineClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        crash_check: CrashCheck | None = None,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self._timeout = timeout
        self._crash_check = crash_check
        # A pinned certificate's context for another Cove (engine/remote/pins.py).
        self._verify = verify
        self._http: httpx.Client | None = None
        self._model: str | None = None
        self.last_load: tuple[str, int | None] | None = None  # the chat model's
        self.last_embedding_load: str | None = None  # the embedding slot's, for document search
        self.retarget(base_url, api_key)

    def retarget(self, base_url: str, api_key: str | None) -> None:
        """Point this client at another address (a restarted local host gets a new port)."""
        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self._root = self.base_url[: -len("/v1")]
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        old, self._http = (
            self._http,
            httpx.Client(
                headers=headers,
                timeout=httpx.Timeout(self._timeout, read=None),
                verify=self._verify,
                trust_env=False,  # never route an engine's traffic through a configured proxy
            ),
        )
        if old is not None:
            old.close()
        self._model = None

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    # -- model management (Cove hosts) ------------------------------------------------------------

    def list_models(self) -> list[ModelInfo]:
        data = self._request("GET", f"{self.base_url}/models")
        return [
            ModelInfo.from_dict(m)
            for m in data.get("data", [])
            if isinstance(m, dict) and isinstance(m.get("id"), str)
        ]

    def status(self) -> EngineStatus:
        return status_from(self._request("GET", f"{self._root}/cove/v1/status"))

    def hardware(self) -> HardwareReport:
        """The host's hardware report: probed in the host, which owns the runtimes."""
        data = self._request("GET", f"{self._root}/cove/v1/hardware")
        try:
            return HardwareReport.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ProtocolError(
                f"The engine sent a hardware report this Cove cannot read ({exc})."
            ) from None

    def plan(self, model: str, *, ctx: int | None = None) -> Plan:
        """The planner's verdict and breakdown for ``model`` on the host's machine, without
        loading it."""
        body = {"model": model, "ctx": ctx}
        return plan_from(self._request("POST", f"{self._root}/cove/v1/plan", body))

    def saved_state(self, conversation: str | None = None) -> SavedState:
        """How much conversation state the engine keeps on disk, its limit, and how many
        snapshots (of ``conversation`` only, when given)."""
        query = f"?conversation={quote(conversation, safe='')}" if conversation else ""
        return SavedState.from_dict(self._request("GET", f"{self._root}/cove/v1/state{query}"))

    def set_state_limit(self, limit_bytes: int) -> SavedState:
        """Keep at most this much conversation state on disk (0: none)."""
        body = {"limit_bytes": limit_bytes}
        return SavedState.from_dict(self._request("POST", f"{self._root}/cove/v1/state", body))

    def set_background_measuring(self, on: bool) -> EngineStatus:
        """Turn measuring in the background on or off (kept for every later start); the status
        after."""
        body = {"measuring": bool(on)}
        return status_from(self._request("POST", f"{self._root}/cove/v1/background", body))

    def forget_state(self, conversation: str | None = None) -> int:
        """Delete the saved state of one conversation (all, when None); returns how many
        snapshots went."""
        query = f"?conversation={quote(conversation, safe='')}" if conversation else ""
        data = self._request("DELETE", f"{self._root}/cove/v1/state{query}")
        return SavedState.from_dict(data).removed

    def warm(self, model: str) -> None:
        """Load an installed ``model`` now, beside the models in memory, as a request naming it
        would (an empty request on the Ollama route, which loads and answers nothing)."""
        self._request("POST", f"{self._root}/api/generate", {"model": model})

    def unload(self, model: str | None = None) -> None:
        """Unload the default chat model, or the resident one named ``model``."""
        self._request("POST", f"{self._root}/cove/v1/unload", {"model": model} if model else {})
        if model is None or model == self._model:
            self.last_load = None  # the chat model's; the embedding slot stays
            self._model = None

    def load(
        self,
        model: str,
        *,
        ctx: int | None = None,
        progress: Callable[[float], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> EngineStatus:
        """Load a chat model on the host (the resident one is unloaded once the new plan fits).
        Raises ModelNotFound, ModelLoadError, InsufficientMemory (with ``plan``), LoadCancelled."""
        body = {"model": model, "ctx": ctx, "stream": True}
        status: EngineStatus | None = None
        for event in self._events(f"{self._root}/cove/v1/load", body, cancel):
            if "progress" in event and progress is not None:
                progress(float(event["progress"]))
            elif "status" in event:
                status = status_from(event["status"])
            elif "error" in event:
                raise error_from(event["error"], 0)
        if status is None:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled(f"Loading {model} was cancelled.")
            raise EngineError(f"The engine did not confirm loading {model}.")
        name = model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if status.embedding_model is not None and status.embedding_model == name:
            # An embedding model goes into its own slot beside the chat model: the chat model
            # loaded last is still the one to load again after a restart.
            self.last_embedding_load = model
            return status
        self.last_load = (model, ctx)
        self._model = status.model
        return status

    # -- generation --------------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        *,
        cancel: threading.Event | None = None,
        model: str | None = None,
    ) -> Iterator[Chunk]:
        body = {
            "model": model or self._default_model(),
            "messages": [_message(m) for m in messages],
            **_sampling(params),
        }
        if params.tools:
            body["tools"] = [t.to_openai() for t in params.tools]
        if params.continue_final_message:
            # vLLM's pair (it refuses the first without the second); a Cove host reads either.
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
        if params.thinking is not None:  # llama-server's and vLLM's form; a Cove host's too
            body["chat_template_kwargs"] = {THINKING_VARIABLE: params.thinking}
        return self._generate(f"{self.base_url}/chat/completions", body, cancel, chat=True)

    def complete(
        self,
        prompt: str,
        params: GenerationParams,
        *,
        cancel: threading.Event | None = None,
        model: str | None = None,
    ) -> Iterator[Chunk]:
        body = {"model": model or self._default_model(), "prompt": prompt, **_sampling(params)}
        return self._generate(f"{self.base_url}/completions", body, cancel, chat=False)

    def tokenize(self, text: str, *, model: str | None = None, special: bool = True) -> list[int]:
        """The model's tokens for ``text`` (with its beginning-of-sequence token where it adds
        one, unless ``special`` is False): a Cove host's or vLLM's ``/tokenize``."""
        body = {"model": model or self._default_model(), "prompt": text,
                "add_special_tokens": special}  # fmt: skip
        data = self._request("POST", f"{self._root}/tokenize", body)
        tokens = data.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise ProtocolError("The engine's /tokenize answer holds no token ids.")
        return tokens

    def score(self, prompts: Sequence[Sequence[int]], *, model: str | None = None) -> ScoredPrompts:
        """Each prompt's tokens' log-probabilities given the tokens before them (the first
        token's is None): the completions API's ``echo`` with ``logprobs``, nothing generated."""
        body = {
            "model": model or self._default_model(),
            "prompt": [list(p) for p in prompts],
            "echo": True,
            "max_tokens": 0,
            "logprobs": 0,
            "temperature": 0,
        }
        data = self._request("POST", f"{self.base_url}/completions", body)
        rows = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))
        scored: list[list[float | None]] = []
        for row in rows:
            values = (row.get("logprobs") or {}).get("token_logprobs")
            if not isinstance(values, list):
                raise ProtocolError("The engine did not score the prompt (no token_logprobs).")
            scored.append([None if v is None else float(v) for v in values])
        if len(scored) != len(prompts):
            raise ProtocolError(f"The engine scored {len(scored)} of {len(prompts)} prompts.")
        answered_by = data.get("model")
        return ScoredPrompts(scored, answered_by if isinstance(answered_by, str) else None)

    def embed(self, texts: Sequence[str], *, model: str | None = None) -> list[list[float]]:
        if not texts:
            return []
        body: dict[str, Any] = {"input": list(texts), "encoding_format": "float"}
        if model is not None:
            body["model"] = model
        data = self._request("POST", f"{self.base_url}/embeddings", body)
        rows = sorted(data.get("data", []), key=lambda d: d.get("index", 0))
        return [[float(x) for x in row["embedding"]] for row in rows]

    def _default_model(self) -> str:
        if self._model is None:
            models = self.list_models()
            if not models:
                raise errors.ModelNotFound("The engine has no model loaded.")
            self._model = models[0].id
        return self._model

    def _generate(
        self, url: str, body: dict[str, Any], cancel: threading.Event | None, *, chat: bool
    ) -> Iterator[Chunk]:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        clock = _Clock()
        finish: str | None = None
        extras: dict[str, Any] | None = None
        usage: dict[str, Any] | None = None
        calls = _Calls()
        try:
            for event in self._events(url, body, cancel):
                if "error" in event:
                    exc = error_from(event["error"], 0)
                    yield Chunk(
                        finish_reason="error",
                        error=str(exc),
                        stats=clock.stats(usage),
                        code=exc.code,
                    )
                    return
                usage = event.get("usage") or usage
                extras = event.get("cove") or extras
                for choice in event.get("choices") or ():
                    if chat:
                        calls.add(choice.get("delta"))
                        thought = _reasoning(choice.get("delta"))
                        if thought:
                            clock.token()
                            yield Chunk(reasoning=thought)
                    text = _choice_text(choice, chat)
                    if text:
                        clock.token()
                        yield Chunk(text=text)
                    finish = choice.get("finish_reason") or finish
        except EngineError as exc:
            if isinstance(exc, EngineCrashed | EngineUnreachable):
                raise
            yield Chunk(
                finish_reason="error", error=str(exc), stats=clock.stats(usage), code=exc.code
            )
            return
        if cancel is not None and cancel.is_set():
            yield Chunk(finish_reason="cancelled", stats=clock.stats(usage))
            return
        try:
            tool_calls = calls.whole()
        except ProtocolError as exc:
            yield Chunk(finish_reason="error", error=str(exc), stats=clock.stats(usage))
            return
        final = _final(finish, extras, clock.stats(usage, extras))
        yield dataclasses.replace(final, tool_calls=tool_calls)

    # -- HTTP --------------------------------------------------------------------------------------

    def _request(self, method: str, url: str, body: object | None = None) -> dict[str, Any]:
        assert self._http is not None
        try:
            response = self._http.request(method, url, json=body)
        except httpx.HTTPError as exc:
            raise self._broken(exc) from None
        data = _json(response)
        if response.status_code >= 400:
            raise error_from(data.get("error", data), response.status_code)
        return data

    def _events(
        self, url: str, body: dict[str, Any], cancel: threading.Event | None
    ) -> Iterator[dict[str, Any]]:
        """POST and yield each SSE ``data:`` object until ``[DONE]`` or the end of the stream.
        Returns early (without error) when ``cancel`` is set."""
        assert self._http is not None
        cancel = cancel or threading.Event()
        done = threading.Event()
        received = False
        try:
            with self._http.stream("POST", url, json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    data = _json(response)
                    raise error_from(data.get("error", data), response.status_code)
                _watch_cancel(response, cancel, done)
                for line in response.iter_lines():
                    if cancel.is_set():
                        return
                    if not line.startswith("data:"):
                        continue  # comments (heartbeats), event names, blank separators
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        return
                    try:
                        event = json.loads(payload)
                    except ValueError:
                        raise EngineError(
                            f"The engine sent a malformed event: {payload[:200]}"
                        ) from None
                    if isinstance(event, dict):
                        received = True
                        yield event
        except httpx.HTTPError as exc:
            if cancel.is_set():
                return
            raise self._broken(exc, midway=received) from None
        finally:
            done.set()

    def _broken(self, exc: Exception, *, midway: bool = False) -> EngineError:
        if self._crash_check is not None:
            crashed = self._crash_check()
            if crashed is not None:
                return EngineCrashed(crashed)
        if midway:  # the engine answered, then the connection went (another computer's, often)
            return EngineUnreachable(
                f"The connection to the engine at {urlsplit(self.base_url).netloc} broke "
                f"mid-reply ({type(exc).__name__}: {exc})."
            )
        return EngineUnreachable(
            f"Cannot reach the engine at {self.base_url} ({type(exc).__name__}: {exc}). "
            "Check that it is running and the address is right."
        )


def _watch_cancel(response: httpx.Response, cancel: threading.Event, done: threading.Event) -> None:
    """While a stream is open, a cancel must interrupt a read that is blocked (a long prompt on a
    server that sends nothing meanwhile): shutting the socket down wakes it at once."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if not isinstance(sock, socket.socket):
        return

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(_CANCEL_POLL_S):
                if not done.is_set():
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                return

    threading.Thread(target=watch, name="cove-cancel-watch", daemon=True).start()


def _sampling(p: GenerationParams) -> dict[str, Any]:
    body: dict[str, Any] = {
        "temperature": p.temperature,
        "top_p": p.top_p,
        "top_k": p.top_k,
        "min_p": p.min_p,
        "repeat_penalty": p.repeat_penalty,
    }
    if p.max_tokens is not None:
        body["max_tokens"] = p.max_tokens
    if p.seed is not None:
        body["seed"] = p.seed
    if p.stop:
        body["stop"] = list(p.stop)
    if p.speculation != "auto":
        body["speculation"] = p.speculation
    if p.conversation is not None:
        body["cove_conversation"] = p.conversation
    if p.logit_bias:  # -inf (forbidden) travels as OpenAI's -100, which the host reads back so
        body["logit_bias"] = {str(t): min(max(b, -100.0), 100.0) for t, b in p.logit_bias}
    if p.ignore_eos:
        body["ignore_eos"] = True
    return body


def _message(m: ChatMessage) -> dict[str, Any]:
    data: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.images:
        parts: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": image.data_url()}} for image in m.images
        ]
        data["content"] = [*parts, {"type": "text", "text": m.content}]
    if m.tool_calls:
        data["tool_calls"] = [c.to_openai() for c in m.tool_calls]
        data["content"] = m.content or None
    if m.tool_call_id is not None:
        data["tool_call_id"] = m.tool_call_id
    if m.name is not None:
        data["name"] = m.name
    return data


class _Calls:
    """A streamed reply's tool calls, joined from their deltas by ``index`` (OpenAI's rule: the
    first piece of a call carries its id and name, the arguments may come in pieces)."""

    def __init__(self) -> None:
        self._parts: dict[int, dict[str, str]] = {}

    def add(self, delta: object) -> None:
        if not isinstance(delta, dict):
            return
        for raw in delta.get("tool_calls") or ():
            if not isinstance(raw, dict):
                continue
            part = self._parts.setdefault(int(raw.get("index") or 0), {"arguments": ""})
            if isinstance(raw.get("id"), str):
                part["id"] = raw["id"]
            function = raw.get("function") or {}
            if isinstance(function.get("name"), str):
                part["name"] = part.get("name", "") + function["name"]
            if isinstance(function.get("arguments"), str):
                part["arguments"] += function["arguments"]

    def whole(self) -> tuple[ToolCall, ...]:
        calls = []
        for _index, part in sorted(self._parts.items()):
            try:
                arguments = json.loads(part["arguments"] or "{}")
            except ValueError:
                raise ProtocolError(
                    f"The engine sent a tool call whose arguments are not JSON: "
                    f"{part['arguments'][:200]}"
                ) from None
            if not isinstance(arguments, dict) or "name" not in part:
                raise ProtocolError("The engine sent a tool call without a name or arguments.")
            extra = {"id": part["id"]} if "id" in part else {}
            calls.append(ToolCall(part["name"], arguments, **extra))
        return tuple(calls)


def _reasoning(delta: object) -> str:
    """A reasoning model's thinking: ``reasoning_content`` (Cove, llama-server, DeepSeek) or
    ``reasoning`` (vLLM, Ollama's compatible API)."""
    if not isinstance(delta, dict):
        return ""
    value = delta.get("reasoning_content") or delta.get("reasoning")
    return value if isinstance(value, str) else ""


def _choice_text(choice: dict[str, Any], chat: bool) -> str:
    if chat:
        delta = choice.get("delta") or {}
        text = delta.get("content") if isinstance(delta, dict) else None
    else:
        text = choice.get("text")
    return text if isinstance(text, str) else ""


def _final(finish: str | None, extras: dict[str, Any] | None, stats: GenerationStats) -> Chunk:
    reason: FinishReason = "length" if finish == "length" else "stop"
    if extras and extras.get("finish_reason") in ("stop", "length", "cancelled"):
        reason = extras["finish_reason"]
    return Chunk(
        finish_reason=reason,
        stats=stats,
        truncation=truncation_from(extras.get("truncation")) if extras else None,
        context_full=bool(extras.get("context_full")) if extras else False,
        ignored_params=_names(extras.get("ignored_params")) if extras else (),
    )


def _names(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


class _Clock:
    """Timings measured on this side, for servers that report none of their own."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None
        self.last: float | None = None
        self.tokens = 0

    def token(self) -> None:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now
        self.tokens += 1

    def stats(
        self, usage: dict[str, Any] | None, extras: dict[str, Any] | None = None
    ) -> GenerationStats:
        timings = (extras or {}).get("timings") or {}
        end = time.perf_counter()
        completion = int((usage or {}).get("completion_tokens") or self.tokens)
        decode_s = (self.last or end) - (self.first or end)
        measured_rate = (self.tokens - 1) / decode_s if decode_s > 0 and self.tokens > 1 else 0.0
        return GenerationStats(
            prompt_tokens=int((usage or {}).get("prompt_tokens") or 0),
            cached_tokens=int(timings.get("cached_tokens") or 0),
            completion_tokens=completion,
            ttft_s=round(float(timings.get("ttft_s") or ((self.first or end) - self.started)), 6),
            prompt_tokens_per_s=float(timings.get("prompt_tokens_per_s") or 0.0),
            decode_tokens_per_s=round(
                float(timings.get("decode_tokens_per_s") or measured_rate), 2
            ),
            total_s=round(end - self.started, 6),
            draft_tokens=int(timings.get("draft_tokens") or 0),
            accepted_tokens=int(timings.get("accepted_tokens") or 0),
            batched_tokens=int(timings.get("batched_tokens") or 0),
        )


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        text = response.text[:200]
        data = {"error": {"message": text or f"HTTP {response.status_code}"}}
    return data if isinstance(data, dict) else {"data": data}

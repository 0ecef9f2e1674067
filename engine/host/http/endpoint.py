"""The error boundary every route sits behind: a handler's ``EngineError`` becomes an error
response in the shape of the route's protocol (OpenAI's by default; Ollama's and Anthropic's
routes pass their own), and anything unexpected is logged and answered as an internal error, so
that one bad request never takes the engine down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from typing import Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from engine.errors import EngineError
from engine.host.http.guards import HostConfig, error_response
from engine.host.http.leniency import HEADER, collecting, header_value

T = TypeVar("T")

log = logging.getLogger("cove.host")


class Host(Protocol):
    """What a route answers with (engine/host/state.py's ``HostState``): each request is
    answered as its client, and lets go of what it held when its handler returns."""

    def answering(
        self, headers: Mapping[str, str], address: str | None
    ) -> AbstractContextManager[None]: ...


H = TypeVar("H", bound=Host)
Handler = Callable[[Request, H, HostConfig], Awaitable[Response]]
# An error in a protocol's shape: the error, and the seconds a busy engine asks to wait.
ErrorShape = Callable[[EngineError, int], Response]

INTERNAL = "The engine hit an internal error; see its log."


def endpoint(
    state: H, config: HostConfig, handler: Handler[H], shape: ErrorShape = error_response
) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        address = request.client.host if request.client else None
        with state.answering(request.headers, address), collecting() as ignored:
            response = await answer(request)
        if ignored:
            response.headers[HEADER] = header_value(ignored)
        return response

    async def answer(request: Request) -> Response:
        try:
            return await handler(request, state, config)
        except EngineError as exc:
            return shape(exc, config.retry_after_s)
        except Exception:  # the process boundary: log it, answer in the protocol's shape, stay up
            log.exception("unexpected error in %s", request.url.path)
            return shape(EngineError(INTERNAL), config.retry_after_s)

    return run


async def in_daemon_thread(work: Callable[[], T]) -> T:
    """Run long work (a hardware measurement takes minutes the first time) in a thread the
    process does not wait for when it ends: ``asyncio.to_thread``'s pool is joined when the
    server stops, so a host told to stop would otherwise live on until the work is done."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = work()
        except BaseException as exc:  # handed to the awaiting request
            error = exc
        with contextlib.suppress(RuntimeError):  # the server stopped meanwhile: nobody waits
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="cove-long-work", daemon=True).start()
    return await done

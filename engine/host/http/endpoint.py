"""The error boundary every route sits behind: a handler's ``EngineError`` becomes an error
response in the shape of the route's protocol (OpenAI's by default; Ollama's and Anthropic's
routes pass their own), and anything unexpected is logged and answered as an internal error, so
that one bad request never takes the engine down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import Response

from engine.errors import EngineError
from engine.host.http.guards import HostConfig, error_response
from engine.host.http.leniency import HEADER, collecting, header_value
from engine.host.models.admission import CLIENT, client_key
from engine.host.models.residents import HELD, Resident
from engine.host.state import HostState

T = TypeVar("T")

log = logging.getLogger("cove.host")

Handler = Callable[[Request, HostState, HostConfig], Awaitable[Response]]
# An error in a protocol's shape: the error, and the seconds a busy engine asks to wait.
ErrorShape = Callable[[EngineError, int], Response]

INTERNAL = "The engine hit an internal error; see its log."


def endpoint(
    state: HostState, config: HostConfig, handler: Handler, shape: ErrorShape = error_response
) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        headers = request.headers
        CLIENT.set(
            client_key(
                {k: headers.get(k, "") for k in ("authorization", "x-api-key", "user-agent")},
                request.client.host if request.client else None,
            )
        )
        held: list[Resident] = []
        HELD.set(held)
        try:
            with collecting() as ignored:
                response = await answer(request)
        finally:
            for resident in held:  # a stream has its turn by now, which keeps the model
                state.release(resident)
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

"""A loaded GGUF model's tokenizer over HTTP, in the shape vLLM's server answers (and that
lm-evaluation-harness reads as its ``remote`` tokenizer, to count a question's tokens before it
asks for their log-probabilities): ``GET /tokenizer_info``, ``POST /tokenize`` and
``POST /detokenize``. llama-server's field names (``content``) are answered as well."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.backends.llama.model import LlamaModel
from engine.backends.llama.parallel import weights_of
from engine.errors import InvalidRequest
from engine.host.http.guards import HostConfig, read_json
from engine.host.protocols.params import flag, is_int
from engine.host.state import HostState

MAX_TOKENIZE_CHARS = 4 << 20


async def tokenizer_info(request: Request, state: HostState, config: HostConfig) -> Response:
    name = request.query_params.get("model")
    resident = await state.chat_for(name or None)
    model = _llama(resident.model)
    source = getattr(model.template, "source", None)
    return JSONResponse(
        {
            "model": resident.id,
            "tokenizer_class": "llama.cpp",
            "bos_token": model.bos_text or None,
            "eos_token": model.eos_text or None,
            "pad_token": None,
            "add_bos_token": model.adds_bos,
            "model_max_length": model.n_ctx,
            "chat_template": source if isinstance(source, str) else None,
        }
    )


async def tokenize(request: Request, state: HostState, config: HostConfig) -> Response:
    """``{"prompt": text, "add_special_tokens": bool}`` (or ``content``): the text's token ids;
    the beginning-of-sequence token where the model adds one, unless told not to."""
    body = await read_json(request, config.max_body)
    data = _object(body)
    text = data.get("prompt", data.get("content"))
    if not isinstance(text, str) or len(text) > MAX_TOKENIZE_CHARS:
        raise InvalidRequest("'prompt' must be a string (of at most 4 Mi characters).")
    special = flag(data, "add_special_tokens", True)
    resident = await state.chat_for(_name(data))
    model = _llama(resident.model)
    ids = await asyncio.to_thread(model.tokenize, text, add_bos=None if special else False)
    return JSONResponse({"tokens": ids, "count": len(ids), "max_model_len": model.n_ctx})


async def detokenize(request: Request, state: HostState, config: HostConfig) -> Response:
    """``{"tokens": [ids]}``: their text, as ``prompt`` (vLLM) and ``content`` (llama-server)."""
    data = _object(await read_json(request, config.max_body))
    ids = data.get("tokens")
    if not isinstance(ids, list) or not all(is_int(t) for t in ids):
        raise InvalidRequest("'tokens' must be a list of token ids.")
    resident = await state.chat_for(_name(data))
    text = await asyncio.to_thread(_llama(resident.model).detokenize, ids)
    return JSONResponse({"prompt": text, "content": text})


def _object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    return body


def _name(data: dict[str, Any]) -> str | None:
    name = data.get("model")
    if name is not None and not isinstance(name, str):
        raise InvalidRequest("'model' must be a model's name.")
    return name or None


def _llama(model: object) -> LlamaModel:
    weights = weights_of(model)
    if weights is None:
        raise InvalidRequest("The tokenizer endpoints answer for GGUF (llama.cpp) models.")
    return weights

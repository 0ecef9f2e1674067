"""Chat templates: choosing one for a model, and rendering it without trusting it.

A model file's chat template is Jinja source written by whoever made the file. It is rendered
only in an immutable sandbox, and because the sandbox bounds neither time nor memory, every
loop step, call, operator and value the template produces is counted against fixed limits.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NoReturn, TypeVar

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.parser import Parser
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.utils import Namespace, pass_context
from jinja2.visitor import NodeTransformer

from engine.errors import TemplateError
from engine.types import ChatMessage

__all__ = ["FALLBACK_NAMES", "MAX_OUTPUT_CHARS", "ChatTemplate", "choose", "fallback", "render"]

MAX_OUTPUT_CHARS = 16 * 1024 * 1024
_MAX_SOURCE_CHARS = 1024 * 1024
_MAX_VALUE = MAX_OUTPUT_CHARS  # characters (or items) in any one value, counted deep
_MAX_PRODUCED = 512 * 1024 * 1024  # bytes of new values and text over one render
_MAX_STEPS = 5_000_000
_MAX_SECONDS = 3.0
_MAX_RANGE = 100_000
_MAX_NUMBER = 1_000_000  # widths, counts and the like passed to functions and filters
_MAX_INT_BITS = 1 << 14
_MAX_JSON_INDENT = 16
_WIDE_FORMAT = re.compile(r"\d{7,}")  # a width or precision in a format string
# Methods on strings that real templates call; the rest (translate, expandtabs…) can only
# be used to blow up memory.
_STR_METHODS = frozenset(
    "capitalize casefold center count endswith find format format_map index isalnum isalpha "
    "isdecimal isdigit isidentifier islower isnumeric isspace istitle isupper join ljust lower "
    "lstrip partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit "
    "rstrip split splitlines startswith strip swapcase title upper zfill".split()
)

T = TypeVar("T")


@dataclass(slots=True)
class _Budget:
    deadline: float
    steps: int = 0
    produced: int = 0
    sizes: dict[int, tuple[object, int]] = field(default_factory=dict)


_BUDGET: ContextVar[_Budget | None] = ContextVar("cove_template_budget", default=None)


def _limit(what: str) -> TemplateError:
    return TemplateError(
        f"The chat template went over a safety limit ({what}) and was stopped; it is broken "
        "or hostile. Supply a different chat template for this model."
    )


def _step() -> None:
    budget = _BUDGET.get()
    if budget is None:  # constant folding while compiling: nothing to count yet
        return
    budget.steps += 1
    if budget.steps > _MAX_STEPS:
        raise _limit(f"more than {_MAX_STEPS:,} steps")
    if time.monotonic() > budget.deadline:
        raise _limit(f"more than {_MAX_SECONDS:g} seconds")


def _account(value: T) -> T:
    if isinstance(value, str | bytes | list | tuple | dict):
        if len(value) > _MAX_VALUE:
            raise _limit(f"a value of more than {_MAX_VALUE:,} items")
        budget = _BUDGET.get()
        if budget is not None:
            budget.produced += sys.getsizeof(value)
            if budget.produced > _MAX_PRODUCED:
                raise _limit(f"more than {_MAX_PRODUCED >> 20} MiB of data")
    elif isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        raise _limit("a number too large")
    return value


def _text_size(value: object, cache: dict[int, tuple[object, int]]) -> int:
    """About how long ``str(value)`` is, found without building it (shared items repeat)."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, int):
        return value.bit_length() // 3 + 1
    if isinstance(value, Namespace):  # mutable, so never cached
        attrs: dict[str, object] = value._Namespace__attrs
        return sum(_text_size(v, cache) + len(k) + 4 for k, v in attrs.items())
    if not isinstance(value, list | tuple | dict | set | frozenset):
        return 32
    hit = cache.get(id(value))
    if hit is not None:
        return hit[1]
    items: Iterable[object] = value.values() if isinstance(value, dict) else value
    keys: Iterable[object] = value.keys() if isinstance(value, dict) else ()
    total = 2
    for item in (*keys, *items) if keys else items:
        total += _text_size(item, cache) + 2
        if total > _MAX_VALUE:
            break
    cache[id(value)] = (value, total)  # keeps the object alive so its id stays unique
    return total


def _check_arguments(args: Sequence[Any], kwargs: dict[str, Any], *, numbers_from: int) -> None:
    budget = _BUDGET.get()
    cache = budget.sizes if budget is not None else {}
    for index, arg in enumerate((*args, *kwargs.values())):
        if _text_size(arg, cache) > _MAX_VALUE:
            raise _limit(f"a value of more than {_MAX_VALUE:,} characters")
        if index >= numbers_from and type(arg) is int and abs(arg) > _MAX_NUMBER:
            raise _limit(f"a number over {_MAX_NUMBER:,} passed to a function")


def _check_format(fmt: object) -> None:
    if isinstance(fmt, str) and _WIDE_FORMAT.search(fmt):
        raise _limit("a format width or precision over 999,999")


def _check_growth(text: object, unit: int, count: int) -> None:
    length = len(text) if isinstance(text, str) else _MAX_VALUE
    if length + unit * count > _MAX_VALUE:
        raise _limit(f"a string of more than {_MAX_VALUE:,} characters")


def _check_replace(text: object, old: object, new: object, count: object = -1) -> None:
    if not (isinstance(old, str) and isinstance(new, str)) or len(new) <= len(old):
        return
    hits = (text.count(old) if old else len(text) + 1) if isinstance(text, str) else 1
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    _check_growth(text, len(new) - len(old), hits)


def _check_filter(name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Filters whose output can be far larger than their input are checked before running."""
    value, rest = args[0], args[1:]
    if name == "replace" and len(rest) >= 2:
        _check_replace(value, *rest[:3])
    elif name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        unit = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        lines = value.count("\n") + 1 if isinstance(value, str) else 1
        _check_growth(value, unit, lines)
    elif name == "join":
        args[0] = items = list(value)
        sep = rest[0] if rest else kwargs.get("d", "")
        _check_growth("", len(str(sep)) + 1, len(items))
    elif name == "format":
        _check_format(value)
    elif name == "sum" and not isinstance(kwargs.get("start", rest[1] if len(rest) > 1 else 0), int | float):
        raise SecurityError("the sum filter only adds numbers")


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    skip = 0 if getattr(func, "jinja_pass_arg", None) is None else 1

    @functools.wraps(func)  # keeps jinja_pass_arg, so Jinja still passes the context
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _step()
        _check_arguments(args[skip:], kwargs, numbers_from=1)
        checked = list(args[skip:])
        _check_filter(name, checked, kwargs)
        return _account(func(*args[:skip], *checked, **kwargs))

    return guarded


@pass_context
def _emit(_: Context, value: object) -> str:
    budget = _BUDGET.get()
    if not isinstance(value, str):
        if _text_size(value, budget.sizes if budget is not None else {}) > _MAX_VALUE:
            raise _limit(f"a value of more than {_MAX_VALUE:,} characters")
        value = str(value)
    return _account(value)


@pass_context
def _iterate(_: Context, iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _step()
        yield item


@pass_context
def _concat(context: Context, parts: list[Any]) -> str:
    texts = [_emit(context, part) for part in parts]
    if sum(map(len, texts)) > _MAX_VALUE:
        raise _limit(f"a string of more than {_MAX_VALUE:,} characters")
    return _account("".join(texts))


def _wrap(expr: nodes.Expr, guard: str) -> nodes.Filter:
    return nodes.Filter(expr, guard, [], [], None, None, lineno=expr.lineno)


class _Guard(NodeTransformer):
    """Routes output, loop iteration and ``~`` through the counting guards."""

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [_wrap(child, "_cove_emit") for child in node.nodes]
        return node

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _wrap(node.iter, "_cove_iterate")  # type: ignore[arg-type]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _wrap(nodes.List(node.nodes, lineno=node.lineno), "_cove_concat")


class _GenerationTag(Extension):
    """``{% generation %}`` marks assistant text for training; for rendering it is a no-op."""

    tags = {"generation"}  # noqa: RUF012 - Jinja's own class attribute

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.Scope(body, lineno=lineno)


class _NoLoader(jinja2.BaseLoader):
    def get_source(self, environment: jinja2.Environment, template: str) -> NoReturn:
        raise SecurityError("chat templates may not include, import or extend other templates")


def _capped_range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > _MAX_RANGE:
        raise _limit(f"a range of more than {_MAX_RANGE:,} numbers")
    return numbers


def _raise_exception(message: object) -> NoReturn:
    raise TemplateError(f"The chat template refused this conversation: {message}")


def _strftime_now(fmt: str) -> str:
    if len(fmt) > 1000:
        raise _limit("a date format over 1000 characters")
    _check_format(fmt)  # glibc honours field widths such as %9999999Y
    return datetime.now().strftime(fmt)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    if len(str(indent or "")) > _MAX_JSON_INDENT or (isinstance(indent, int) and indent > 16):
        raise _limit("a JSON indent over 16")
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


class _Sandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self) -> None:
        super().__init__(
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
            loader=_NoLoader(),
            extensions=[loopcontrols, _GenerationTag],
        )
        self.globals.pop("lipsum", None)
        self.globals.update(
            range=_capped_range, raise_exception=_raise_exception, strftime_now=_strftime_now
        )
        self.filters["tojson"] = _tojson
        for unneeded in ("pprint", "urlize"):
            self.filters.pop(unneeded, None)
        self.filters = {name: _guard_filter(name, f) for name, f in self.filters.items()}
        self.filters.update(_cove_emit=_emit, _cove_iterate=_iterate, _cove_concat=_concat)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, str) and callable(value) and attr not in _STR_METHODS:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def unsafe_undefined(self, obj: Any, attribute: str) -> NoReturn:
        # The stock sandbox returns an Undefined that prints as "", hiding the attempt.
        raise SecurityError(
            f"access to attribute {attribute!r} of a {type(obj).__name__!r} object is not allowed"
        )

    def getitem(self, obj: Any, argument: Any) -> Any:
        value = super().getitem(obj, argument)
        return _account(value) if isinstance(argument, slice) else value

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        _step()
        target = getattr(obj, "__wrapped__", obj)  # str.format arrives wrapped by the sandbox
        owner = getattr(target, "__self__", None)
        if isinstance(owner, str):
            method = getattr(target, "__name__", "")
            if method in ("format", "format_map"):
                _check_format(owner)
            elif method == "replace" and len(args) >= 2:
                _check_replace(owner, *args[:3])
            elif method == "join" and args:
                args = (list(args[0]), *args[1:])
                _check_growth("", len(owner) + 1, len(args[0]))
        _check_arguments(args, kwargs, numbers_from=0)
        return _account(super().call(context, obj, *args, **kwargs))

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _step()
        sized = str | bytes | list | tuple
        if operator == "**" and type(left) is int and type(right) is int and right > 0:
            if left.bit_length() * right > _MAX_INT_BITS:
                raise _limit("a number too large")
        elif operator == "*":
            seq, times = (left, right) if isinstance(left, sized) else (right, left)
            if isinstance(seq, sized) and isinstance(times, int) and len(seq) * times > _MAX_VALUE:
                raise _limit(f"a value of more than {_MAX_VALUE:,} items")
        elif operator == "+" and isinstance(left, sized) and isinstance(right, sized):
            if len(left) + len(right) > _MAX_VALUE:
                raise _limit(f"a value of more than {_MAX_VALUE:,} items")
        elif operator == "%" and isinstance(left, str):
            _check_format(left)
            values = right if isinstance(right, tuple) else (right,)
            _check_arguments(values, {}, numbers_from=0)
        return _account(super().call_binop(context, operator, left, right))


_ENV = _Sandbox()


@functools.lru_cache(maxsize=32)
def _compile(source: str) -> jinja2.Template:
    if len(source) > _MAX_SOURCE_CHARS:
        raise _limit(f"a template of more than {_MAX_SOURCE_CHARS:,} characters")
    try:
        tree = _ENV.parse(source)
        _Guard().visit(tree)
        tree.set_environment(_ENV)
        return _ENV.from_string(tree)
    except jinja2.TemplateSyntaxError as e:
        raise TemplateError(
            f"The chat template has a syntax error on line {e.lineno}: {e.message}. "
            "Supply a corrected chat template for this model."
        ) from e
    except Exception as e:
        raise TemplateError(f"The chat template could not be compiled: {e}.") from e


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    name: str
    source: str
    origin: Literal["model", "fallback"]
    stop: tuple[str, ...]
    reason: str


def render(
    template: ChatTemplate,
    messages: Sequence[ChatMessage],
    *,
    add_generation_prompt: bool = True,
    bos_token: str = "",
    eos_token: str = "",
) -> str:
    """The prompt text for ``messages``; any failure of the template is a ``TemplateError``."""
    compiled = _compile(template.source)
    variables = {
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "add_generation_prompt": add_generation_prompt,
        "bos_token": bos_token,
        "eos_token": eos_token,
        "tools": None,
        "date_string": datetime.now().strftime("%d %b %Y"),
    }
    token = _BUDGET.set(_Budget(deadline=time.monotonic() + _MAX_SECONDS))
    try:
        text = str(compiled.render(variables))
    except TemplateError:
        raise
    except SecurityError as e:
        raise TemplateError(
            f"The chat template tried to do something templates may not do ({e}) and was "
            "stopped. Supply a different chat template for this model."
        ) from e
    except RecursionError as e:
        raise _limit("recursion too deep") from e
    except MemoryError as e:
        raise _limit("out of memory") from e
    except Exception as e:
        raise TemplateError(f"The chat template failed: {e} ({type(e).__name__}).") from e
    finally:
        _BUDGET.reset(token)
    if len(text) > MAX_OUTPUT_CHARS:
        raise _limit(f"a prompt of more than {MAX_OUTPUT_CHARS:,} characters")
    return text

"""The sandbox a chat template renders in. A model file's chat template is Jinja source written by
whoever made the file: it is rendered only in an immutable sandbox, and because the sandbox bounds
neither time nor memory, every loop step, call, operator and value the template produces is
counted against fixed limits.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import time
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Sequence, ValuesView
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn, TypeVar

import jinja2
from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.ext import Extension, loopcontrols
from jinja2.parser import Parser
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace, pass_context
from jinja2.visitor import NodeTransformer

from engine.errors import TemplateError

MAX_OUTPUT_CHARS = 16 * 1024 * 1024
_MAX_SOURCE_CHARS = 1024 * 1024
_MAX_VALUE = MAX_OUTPUT_CHARS  # characters (or items) in any one value, counted deep
_MAX_PRODUCED = 512 * 1024 * 1024  # bytes of new values and text over one render
_MAX_STEPS = 5_000_000
_MAX_SECONDS = 5.0
_MAX_RANGE = 100_000
_MAX_NUMBER = 1_000_000  # widths, counts and the like passed to functions and filters
_MAX_INT_BITS = 1 << 14
_WIDE_FORMAT = re.compile(r"\d{7,}")  # a width or precision in a format string
# Methods of str and int whose output can dwarf their input (or that make bytes, whose
# methods would need guarding too) and that no real template needs.
_BLOCKED_METHODS = frozenset({"encode", "expandtabs", "maketrans", "to_bytes", "translate"})
_JINJA_CALL_KWARGS = frozenset({"_loop_vars", "_block_vars"})
# Filters that never turn their arguments into text, so need not size them (which costs a
# walk over every item).
# fmt: off
_NO_TEXT = frozenset({
    "abs", "attr", "batch", "bool", "count", "d", "default", "dictsort", "first", "float",
    "groupby", "int", "items", "last", "length", "list", "map", "max", "min", "random",
    "reject", "rejectattr", "reverse", "round", "select", "selectattr", "slice", "sort", "sum",
    "unique",
})
# fmt: on
_SIZED = (str, bytes, list, tuple)
_CONTAINERS = (list, tuple, dict, set, frozenset, KeysView, ValuesView, ItemsView)

T = TypeVar("T")


@dataclass(slots=True)
class _Budget:
    deadline: float
    steps: int = 0
    produced: int = 0
    sizes: dict[int, tuple[object, int]] = field(default_factory=dict)

    def charge(self, size: int) -> None:
        self.produced += size
        if self.produced > _MAX_PRODUCED:
            raise _limit(f"more than {_MAX_PRODUCED >> 20} MiB of data")


# Unset while compiling, when Jinja folds constants: nothing is counted then.
_BUDGET: ContextVar[_Budget | None] = ContextVar("cove_template_budget", default=None)


def _limit(what: str) -> TemplateError:
    return TemplateError(
        f"The chat template went over a safety limit ({what}) and was stopped; it is broken "
        "or hostile. Supply a different chat template for this model."
    )


def _too_big(kind: str = "value") -> TemplateError:
    return _limit(f"a {kind} of more than {_MAX_VALUE:,} characters")


def _step() -> None:
    if (budget := _BUDGET.get()) is not None:
        budget.steps += 1
        if budget.steps > _MAX_STEPS:
            raise _limit(f"more than {_MAX_STEPS:,} steps")
        if time.monotonic() > budget.deadline:
            raise _limit(f"more than {_MAX_SECONDS:g} seconds")


def _account(value: T) -> T:
    if isinstance(value, str | bytes | list | tuple | dict):
        if len(value) > _MAX_VALUE:
            raise _too_big()
        if (budget := _BUDGET.get()) is not None:
            budget.charge(sys.getsizeof(value))
    elif isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        raise _limit("a number too large")
    return value


def _text_size(value: object) -> int:
    """About how long ``str(value)`` would be, found without building it.

    Containers can repeat one large item many times, so their text can be far larger than
    their memory; sizes are cached by identity, which the sandbox's immutability keeps valid.
    """
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, int):
        return value.bit_length() // 3 + 1
    if isinstance(value, Namespace):  # mutable, so never cached
        attrs: dict[str, object] = value._Namespace__attrs
        return sum(_text_size(v) + len(k) + 4 for k, v in attrs.items())
    if not isinstance(value, _CONTAINERS):
        return 32
    budget = _BUDGET.get()
    if budget is not None and (hit := budget.sizes.get(id(value))) is not None:
        return hit[1]
    total = 2
    for item in (*value.keys(), *value.values()) if isinstance(value, dict) else value:
        total += _text_size(item) + 2
        if total > _MAX_VALUE:
            break
    if budget is not None:
        budget.sizes[id(value)] = (value, total)  # holding it keeps the id unique
        budget.charge(128)
    return total


def _check_arguments(
    args: Sequence[Any], kwargs: dict[str, Any], *, numbers_from: int = 0, texts: bool = True
) -> None:
    values = (*args, *(v for k, v in kwargs.items() if k not in _JINJA_CALL_KWARGS))
    for index, arg in enumerate(values):
        if texts and _text_size(arg) > _MAX_VALUE:
            raise _too_big()
        if index >= numbers_from and type(arg) is int and abs(arg) > _MAX_NUMBER:
            raise _limit(f"a number over {_MAX_NUMBER:,} passed to a function")


def _check_format(fmt: object, *values: object) -> None:
    """Each field of a format string may repeat any of the values (``'{0}{0}{0}'``)."""
    if not isinstance(fmt, str):
        return
    fields = fmt.count("%") + fmt.count("{")
    if len(fmt) > 100_000 or _WIDE_FORMAT.search(fmt):
        raise _limit("a format string too long or too wide")
    if len(fmt) + fields * sum(map(_text_size, values)) > _MAX_VALUE:
        raise _too_big("string")


def _check_growth(text: str, unit: int, count: int) -> None:
    if len(text) + unit * count > _MAX_VALUE:
        raise _too_big("string")


def _check_replace(text: str, old: object, new: object, count: object = -1) -> None:
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        hits = text.count(old) if old else len(text) + 1
        if type(count) is int and count >= 0:  # a negative count means every occurrence
            hits = min(hits, count)
        _check_growth(text, len(new) - len(old), hits)


def _check_filter(name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Checks, before they run, the filters whose output can dwarf their input."""
    rest = args[1:]
    if name in ("replace", "indent"):
        args[0] = text = str(args[0])  # as the filter itself would
        if name == "replace" and len(rest) >= 2:
            _check_replace(text, rest[0], rest[1], rest[2] if len(rest) > 2 and rest[2] else -1)
        elif name == "indent":
            width = rest[0] if rest else kwargs.get("width", 4)
            unit = len(width) if isinstance(width, str) else width if type(width) is int else 0
            _check_growth(text, unit, text.count("\n") + 1)
    elif name == "join":
        args[0] = items = list(args[0])
        _check_growth("", len(str(rest[0] if rest else kwargs.get("d", ""))) + 1, len(items))
    elif name == "format":
        _check_format(args[0], *rest, *kwargs.values())
    elif name == "sum":
        start = kwargs.get("start", rest[1] if len(rest) > 1 else 0)
        if not isinstance(start, int | float):
            raise SecurityError("the sum filter only adds numbers")


def _guard_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    skip = 0 if getattr(func, "jinja_pass_arg", None) is None else 1

    @functools.wraps(func)  # keeps jinja_pass_arg, so Jinja still passes the context
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _step()
        _check_arguments(args[skip:], kwargs, numbers_from=1, texts=name not in _NO_TEXT)
        checked = list(args[skip:])
        _check_filter(name, checked, kwargs)
        return _account(func(*args[:skip], *checked, **kwargs))

    return guarded


def _to_text(value: object) -> str:
    if not isinstance(value, str):
        if _text_size(value) > _MAX_VALUE:
            raise _too_big()
        value = str(value)
    return _account(value)


@pass_context
def _emit(_: Context, value: object) -> str:
    return _to_text(value)


@pass_context
def _iterate(_: Context, iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _step()
        yield item


@pass_context
def _concat(_: Context, parts: list[Any]) -> str:
    texts = [_to_text(part) for part in parts]
    if sum(map(len, texts)) > _MAX_VALUE:
        raise _too_big("string")
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
    if len(numbers := range(*args)) > _MAX_RANGE:
        raise _limit(f"a range of more than {_MAX_RANGE:,} numbers")
    return numbers


def _raise_exception(message: object) -> NoReturn:
    raise TemplateError(f"The chat template refused this conversation: {_to_text(message)}")


def _strftime_now(fmt: str) -> str:
    _check_format(fmt)  # glibc honours field widths such as %9999999Y
    return datetime.now().strftime(fmt)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    if (len(indent) if isinstance(indent, str) else indent or 0) > 16:
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
        if isinstance(obj, str | int) and attr in _BLOCKED_METHODS:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def unsafe_undefined(self, obj: Any, attribute: str) -> NoReturn:
        # The stock sandbox returns an Undefined that prints as "", hiding the attempt.
        raise SecurityError(
            f"access to attribute {attribute!r} of {type(obj).__name__!r} objects is not allowed"
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
                _check_format(owner, *args, *kwargs.values())
            elif method == "replace" and len(args) >= 2:
                _check_replace(owner, *args[:3])
            elif method == "join" and args:
                args = (items := list(args[0]), *args[1:])
                _check_growth("", len(owner) + 1, len(items))
        if owner is not None:  # a built-in method; macros and globals guard themselves
            _check_arguments(args, kwargs)
        return _account(super().call(context, obj, *args, **kwargs))

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _step()
        if operator == "**" and type(left) is int and type(right) is int and right > 0:
            if left.bit_length() * right > _MAX_INT_BITS:
                raise _limit("a number too large")
        elif operator == "*":
            seq, times = (left, right) if isinstance(left, _SIZED) else (right, left)
            if isinstance(seq, _SIZED) and isinstance(times, int) and len(seq) * times > _MAX_VALUE:
                raise _limit(f"a value of more than {_MAX_VALUE:,} items")
        elif operator == "+" and isinstance(left, _SIZED) and isinstance(right, _SIZED):
            if len(left) + len(right) > _MAX_VALUE:
                raise _limit(f"a value of more than {_MAX_VALUE:,} items")
        elif operator == "%" and isinstance(left, str):
            _check_format(left, right)
            if "*" in left:  # widths taken from the values
                _check_arguments(right if isinstance(right, tuple) else (right,), {}, texts=False)
        return _account(super().call_binop(context, operator, left, right))


_ENV = _Sandbox()


def compile_source(source: str) -> jinja2.Template:
    """``source`` compiled in the sandbox, every output, loop and concatenation guarded; a
    template that is too long or does not compile is a ``TemplateError``."""
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


def render_compiled(compiled: jinja2.Template, variables: dict[str, Any]) -> str:
    """``compiled`` rendered within the limits (steps, time, memory, output); any failure of the
    template is a ``TemplateError``."""
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

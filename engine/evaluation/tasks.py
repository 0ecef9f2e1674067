"""Multiple-choice tasks read from local files: JSON lines of ``question``, ``choices`` and
``answer``, or a task file in lm-evaluation-harness's YAML (``output_type: multiple_choice`` over
local ``json`` data), its templates rendered by Jinja in a sandbox as the harness renders them.

Nothing is fetched: a task whose data lives on a hub is refused with what to give instead.
Every problem names the file and the line or field.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.errors import InvalidRequest
from engine.paths import assets_dir

# A JSON-lines task's question as the model reads it (the YAML files here use the same).
QUESTION_TEMPLATE = "Question: {{question}}\nAnswer:"
# The shipped task: everyday questions written for Cove (assets/eval/LICENSE.md).
EVERYDAY = "everyday.jsonl"
MAX_QUESTIONS = 100_000


@dataclass(frozen=True, slots=True)
class Question:
    """One question: the text before an answer, the answers to weigh, the right one's index."""

    context: str
    choices: tuple[str, ...]
    answer: int


@dataclass(frozen=True, slots=True)
class Task:
    name: str
    questions: tuple[Question, ...]
    source: Path
    # Between the question and each answer (lm-evaluation-harness's ``target_delimiter``).
    delimiter: str = " "

    def first(self, limit: int | None) -> Task:
        if limit is None or limit >= len(self.questions):
            return self
        return Task(self.name, self.questions[:limit], self.source, self.delimiter)


def shipped_task() -> Path:
    return assets_dir() / "eval" / EVERYDAY


def load_task(path: Path) -> Task:
    """Read a task file: ``.yaml``/``.yml`` as lm-evaluation-harness's, anything else as JSON
    lines. Raises InvalidRequest naming what is wrong."""
    if not path.is_file():
        raise InvalidRequest(f"No task file at {path}.")
    if path.suffix.lower() in (".yaml", ".yml"):
        return _yaml_task(path)
    docs = _json_lines(path)
    render = _Renderer(path)
    questions = tuple(
        _question(doc, render, QUESTION_TEMPLATE, "choices", "answer", f"{path}:{n}")
        for n, doc in docs
    )
    return Task(path.stem, _some(questions, path), path)


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    docs: list[tuple[int, dict[str, Any]]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InvalidRequest(f"{path} is not UTF-8 text: {exc.reason}.") from exc
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidRequest(f"{path}:{n}: not JSON ({exc.msg}).") from exc
        if not isinstance(doc, dict):
            raise InvalidRequest(f"{path}:{n}: each line must be a JSON object.")
        docs.append((n, doc))
        if len(docs) > MAX_QUESTIONS:
            raise InvalidRequest(f"{path} holds more than {MAX_QUESTIONS} questions.")
    return docs


def _yaml_task(path: Path) -> Task:
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.constructor.ConstructorError as exc:
        raise InvalidRequest(
            f"{path}: {exc.problem} (Python functions such as !function are not run; "
            "give the questions as data)."
        ) from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"{path} is not a YAML task file: {exc}") from exc
    if not isinstance(spec, dict):
        raise InvalidRequest(f"{path} is not a task: a YAML mapping was expected.")
    if "include" in spec:
        raise InvalidRequest(f"{path}: 'include' is not followed; write the task in one file.")
    kind = spec.get("output_type", "multiple_choice")
    if kind != "multiple_choice":
        raise InvalidRequest(
            f"{path}: output_type {kind!r}; cove eval scores multiple_choice tasks."
        )
    data = _data_file(path, spec)
    render = _Renderer(path)
    text = _template(spec, "doc_to_text", path)
    choice = _template(spec, "doc_to_choice", path)
    target = _template(spec, "doc_to_target", path)
    questions = tuple(
        _question(doc, render, text, choice, target, f"{data}:{n}") for n, doc in _json_lines(data)
    )
    delimiter = spec.get("target_delimiter", " ")
    if not isinstance(delimiter, str):
        raise InvalidRequest(f"{path}: target_delimiter must be a string.")
    name = spec.get("task") if isinstance(spec.get("task"), str) else path.stem
    return Task(str(name), _some(questions, path), path, delimiter)


def _data_file(path: Path, spec: Mapping[str, Any]) -> Path:
    if spec.get("dataset_path") != "json":
        raise InvalidRequest(
            f"{path}: dataset_path {spec.get('dataset_path')!r} would be fetched from a hub; "
            "cove eval reads local data: dataset_path: json with dataset_kwargs: data_files."
        )
    kwargs = spec.get("dataset_kwargs") or {}
    files = kwargs.get("data_files") if isinstance(kwargs, dict) else None
    split = next(
        (spec[k] for k in ("test_split", "validation_split", "train_split") if spec.get(k)),
        "test",
    )
    if isinstance(files, dict):
        files = files.get(split)
    if isinstance(files, list) and len(files) == 1:
        files = files[0]
    if not isinstance(files, str):
        raise InvalidRequest(
            f"{path}: dataset_kwargs.data_files must name one JSON-lines file for the "
            f"{split!r} split."
        )
    # Beside the task file first (where it travels with it), then from the working directory
    # (where lm-evaluation-harness resolves it).
    for candidate in (path.parent / files, Path(files)):
        if candidate.is_file():
            return candidate
    raise InvalidRequest(f"{path}: its data file {files} is neither beside it nor here.")


def _template(spec: Mapping[str, Any], key: str, path: Path) -> str | list[str]:
    value = spec.get(key)
    if isinstance(value, str) or (
        isinstance(value, list) and value and all(isinstance(v, str) for v in value)
    ):
        return value
    if isinstance(value, int) and key == "doc_to_target":
        return str(value)
    raise InvalidRequest(f"{path}: {key} must be a template (a string) or a list of strings.")


class _Renderer:
    """lm-evaluation-harness's reading of a template: a document's field by name, else Jinja."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # A field the document lacks is an error, not an empty string.
        self.env = ImmutableSandboxedEnvironment(autoescape=False, undefined=StrictUndefined)

    def __call__(self, template: str, doc: Mapping[str, Any], where: str) -> Any:
        if template in doc:
            return doc[template]
        try:
            return self.env.from_string(template).render(**doc)
        except TemplateError as exc:
            raise InvalidRequest(f"{where}: the template {template!r} failed: {exc}") from exc


def _question(
    doc: Mapping[str, Any],
    render: _Renderer,
    text: str | list[str],
    choice: str | list[str],
    target: str | list[str],
    where: str,
) -> Question:
    context = render(text, doc, where) if isinstance(text, str) else None
    if not isinstance(context, str) or not context:
        raise InvalidRequest(f"{where}: no question text (a 'question' field is expected).")
    choices = _choices(choice if isinstance(choice, list) else render(choice, doc, where), where)
    # A JSON line's answer may be a choice's text ("56"); a template's digits are an index, as
    # lm-evaluation-harness reads them.
    by_text = target == "answer" and text == QUESTION_TEMPLATE
    answer = _answer(
        render(target, doc, where) if isinstance(target, str) else None, choices, by_text
    )
    if answer is None:
        raise InvalidRequest(
            f"{where}: 'answer' must be the right choice's index (from 0) or its text."
        )
    return Question(context, choices, answer)


def _choices(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):  # a rendered list, as "{{choices}}" renders one
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            value = None
    if isinstance(value, Sequence) and not isinstance(value, str):
        # Numbers are answers too ("What is 7 times 8?"), read as the text they show.
        texts = [str(c) if isinstance(c, int | float) and not isinstance(c, bool) else c
                 for c in value]  # fmt: skip
        if len(texts) >= 2 and all(isinstance(c, str) and c for c in texts):
            return tuple(str(c) for c in texts)
    raise InvalidRequest(f"{where}: 'choices' must list at least two answers (text).")


def _answer(value: object, choices: Sequence[str], by_text: bool) -> int | None:
    if by_text and isinstance(value, str) and value in choices:
        return choices.index(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(choices) else None
    if isinstance(value, str) and value in choices:
        return choices.index(value)
    return None


def _some(questions: tuple[Question, ...], path: Path) -> tuple[Question, ...]:
    if not questions:
        raise InvalidRequest(f"{path} holds no questions.")
    return questions

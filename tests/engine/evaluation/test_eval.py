"""``cove eval``: multiple-choice tasks read from JSON lines and from lm-evaluation-harness's YAML,
scored through a real engine host on the real starter model, and checked against the same
log-likelihoods computed by llama-cpp-python directly, as lm-evaluation-harness computes them."""

from __future__ import annotations

import io
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import InvalidRequest
from engine.evaluation.metrics import Answered, mean_stderr, paired, score
from engine.evaluation.tasks import Task, load_task, shipped_task
from engine.launch import child_env

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "eval"


def cove(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(),
        timeout=600,
    )


# -- tasks ---------------------------------------------------------------------------------------


def test_json_lines_and_the_harness_yaml_read_the_same_questions() -> None:
    lines = load_task(FIXTURES / "tiny_mc.jsonl")
    harness = load_task(FIXTURES / "cove_tiny_mc.yaml")
    assert harness.name == "cove_tiny_mc" and lines.name == "tiny_mc"
    assert lines.questions == harness.questions and len(lines.questions) == 10
    first = lines.questions[0]
    assert first.context == "Question: Which planet is known as the red planet?\nAnswer:"
    assert first.choices == ("Mars", "Venus", "Jupiter", "Saturn") and first.answer == 0
    assert lines.delimiter == harness.delimiter == " "


def test_the_shipped_task_is_whole() -> None:
    task = load_task(shipped_task())
    assert len(task.questions) >= 100
    assert all(len(set(q.choices)) == len(q.choices) >= 2 for q in task.questions)
    answers = [q.answer for q in task.questions]
    # Every position is right about as often, so a model that prefers one wins nothing.
    assert max(answers.count(i) for i in range(4)) <= 2 * min(answers.count(i) for i in range(4))
    assert (shipped_task().parent / "LICENSE.md").is_file()


def test_answers_may_be_given_by_text_and_numbers_are_answers(tmp_path: Path) -> None:
    path = tmp_path / "sums.jsonl"
    rows = [
        {"question": "What is 7 times 8?", "choices": [54, 56, 58], "answer": "56"},
        {"question": "What is frozen water?", "choices": ["Ice", "Steam"], "answer": "Ice"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    task = load_task(path)
    assert [q.choices for q in task.questions] == [("54", "56", "58"), ("Ice", "Steam")]
    assert [q.answer for q in task.questions] == [1, 0]
    assert task.first(1).questions == task.questions[:1]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"question": "Q?", "choices": ["a", "b"], "answer": 2}\n', "index"),
        ('{"question": "Q?", "choices": ["a"], "answer": 0}\n', "at least two"),
        ('{"question": "Q?", "choices": ["a", "b"], "answer": 0}\n{"question": \n', ":2: not JSON"),
        ('["Q?", ["a", "b"], 0]\n', "JSON object"),
        ('{"choices": ["a", "b"], "answer": 0}\n', "'question' is undefined"),
        ("\n\n", "holds no questions"),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "task.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidRequest, match=says):
        load_task(path)


@pytest.mark.parametrize(
    ("yaml", "says"),
    [
        ("task: t\ndataset_path: cais/mmlu\noutput_type: multiple_choice\n", "local data"),
        ("task: t\noutput_type: generate_until\n", "multiple_choice"),
        ("task: t\nprocess_docs: !function utils.process\n", "not run"),
        ("include: base.yaml\n", "include"),
        ("- a\n- b\n", "mapping"),
        (
            "task: t\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: gone.jsonl\n"
            "doc_to_text: q\ndoc_to_choice: c\ndoc_to_target: a\n",
            "neither beside it",
        ),
        (
            "task: t\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: d.jsonl\n"
            "doc_to_text: '{{ question.__class__.__mro__ }}'\ndoc_to_choice: c\n"
            "doc_to_target: a\n",
            "template",
        ),
    ],
)
def test_a_task_that_cannot_run_here_says_why(tmp_path: Path, yaml: str, says: str) -> None:
    (tmp_path / "d.jsonl").write_text('{"q": "Q?", "c": ["a", "b"], "a": 0}\n', encoding="utf-8")
    path = tmp_path / "task.yaml"
    path.write_text(yaml, encoding="utf-8")
    with pytest.raises(InvalidRequest, match=says):
        load_task(path)


def test_yaml_fields_by_name_and_a_list_of_choices(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(
        '{"q": "Is ice cold?", "a": 0}\n{"q": "Is fire cold?", "a": 1}\n', encoding="utf-8"
    )
    path = tmp_path / "yes_no.yaml"
    path.write_text(
        "task: yes_no\ndataset_path: json\ndataset_kwargs:\n  data_files: d.jsonl\n"
        "test_split: train\ndoc_to_text: '{{q}}'\ndoc_to_choice: ['yes', 'no']\n"
        'doc_to_target: a\ntarget_delimiter: "\\n"\n',
        encoding="utf-8",
    )
    task = load_task(path)
    assert task.delimiter == "\n" and task.name == "yes_no"
    assert [(q.context, q.choices, q.answer) for q in task.questions] == [
        ("Is ice cold?", ("yes", "no"), 0),
        ("Is fire cold?", ("yes", "no"), 1),
    ]


# -- what is measured ----------------------------------------------------------------------------


def test_accuracy_and_its_standard_error_are_the_harness_s() -> None:
    answered = [
        Answered((-1.0, -2.0), (1, 1), 0),  # right
        Answered((-1.0, -2.0), (1, 1), 1),  # wrong
        Answered((-5.0, -6.0), (2, 10), 1),  # wrong, right per character
        Answered((-3.0, -0.5), (1, 1), 1),  # right
    ]
    s = score(answered)
    assert (s.questions, s.acc, s.acc_norm) == (4, 0.5, 0.75)
    assert math.isclose(s.acc_stderr, statistics.stdev([1, 0, 0, 1]) / 2)
    assert math.isclose(s.acc_norm_stderr, statistics.stdev([1, 0, 1, 1]) / 2)
    assert mean_stderr([1.0]) == 0.0


def test_two_runs_compared_question_by_question() -> None:
    a = [Answered((-1.0, -2.0), (1, 1), 0), Answered((-1.0, -2.0), (1, 1), 0)]
    b = [Answered((-2.0, -1.0), (1, 1), 0), Answered((-1.0, -2.0), (1, 1), 0)]
    p = paired(a, b)
    assert (p.same_answer, p.acc_difference) == (0.5, 0.5)
    assert math.isclose(p.acc_difference_stderr, statistics.stdev([1, 0]) / math.sqrt(2))
    with pytest.raises(ValueError):
        paired(a, b[:1])


# -- through the engine ----------------------------------------------------------------------------


def test_a_bad_task_fails_before_any_model_loads(tmp_path: Path) -> None:
    out = cove("eval", "starter", "--task", str(tmp_path / "none.jsonl"))
    assert out.returncode == 1
    assert out.stderr.strip() == f"cove: error: No task file at {tmp_path / 'none.jsonl'}."


def oracle(model: Path, task: Task, *, flash_attn: bool) -> list[list[float]]:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model), logits_all=True, n_ctx=512, verbose=False,
                          flash_attn=flash_attn)  # fmt: skip
    try:
        expected: list[list[float]] = []
        for q in task.questions:
            before = len(llm.tokenize(q.context.encode(), special=True))
            row = []
            for choice in q.choices:
                tokens = llm.tokenize(f"{q.context} {choice}".encode(), special=True)
                llm.reset()  # type: ignore[no-untyped-call]
                llm.eval(tokens)
                lp = llama_cpp.Llama.logits_to_logprobs(llm.scores[: len(tokens)])
                row.append(sum(float(lp[i - 1][tokens[i]]) for i in range(before, len(tokens))))
            expected.append(row)
    finally:
        llm.close()
    return expected


@pytest.mark.slow
def test_cove_eval_scores_as_llama_cpp_python_does(starter: Path) -> None:
    out = cove("eval", "starter", "starter", "--task", str(FIXTURES / "cove_tiny_mc.yaml"),
               "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["task"] == "cove_tiny_mc" and report["questions"] == 10
    first, second = report["models"]
    assert first["model"] == second["model"]
    (compared,) = report["compared"]
    assert compared["same_answer"] == 1.0 and compared["acc_difference"] == 0.0

    # The way it ran is said (flash attention moves the runtime's numbers by more than
    # rounding), and llama.cpp run that way gives lm-evaluation-harness's loglikelihood: the
    # answer's tokens are those of question and answer together past the question's own, each
    # scored from the logits before it.
    ran = first["ran_as"]
    assert ran["backend"] == "llama.cpp" and isinstance(ran["flash_attn"], bool)
    assert ran["prompts_a_request"] == 8 * 4 and ran["sequences"] >= 1
    assert ran["n_ubatch"] > 0 and ran["kv_type"]
    assert second["ran_as"] == ran and compared["ran_differently"] == []
    task = load_task(FIXTURES / "tiny_mc.jsonl")
    expected = oracle(starter, task, flash_attn=ran["flash_attn"])
    for ours, theirs in zip(first["logliks"], expected, strict=True):
        assert ours == pytest.approx(theirs, abs=1e-3)
    right = [
        max(range(len(row)), key=row.__getitem__) == q.answer
        for row, q in zip(expected, task.questions, strict=True)
    ]
    assert math.isclose(first["acc"], sum(right) / len(right))
    assert first["acc_stderr"] > 0 and 0 <= first["acc_norm"] <= 1


@pytest.mark.slow
def test_cove_eval_prints_the_builds_side_by_side() -> None:
    out = cove("eval", "starter", "--limit", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("everyday: 3 questions")
    assert lines[2].split()[:3] == ["Model", "Accuracy", "Normalised"]
    name, acc, _pm, err, *_rest = lines[3].split()
    assert name == "SmolLM2-135M-Instruct.Q4_1" and 0 <= float(acc) <= 1 and float(err) >= 0
    assert lines[5].startswith("How each ran")
    assert lines[6].split()[:3] == [name, "llama.cpp", "on"] and "flash attention" in lines[6]


def test_two_runs_that_ran_differently_are_told_apart() -> None:
    from dataclasses import replace

    from engine.cli.evaluate import _table, report
    from engine.client.protocol import ResidentModel
    from engine.evaluation.ran_as import RanAs, ran_as
    from engine.evaluation.run import Outcome

    resident = ResidentModel("m-Q8_0", backend="llama.cpp", device="CPU", flash_attn=True,
                             kv_type="f16", n_batch=512, n_ubatch=512, parallel=4)  # fmt: skip
    on = ran_as([ResidentModel("other"), resident], "m-Q8_0", 32)
    assert on == RanAs("llama.cpp", "CPU", True, "f16", 512, 512, 4, 32)
    assert ran_as([resident], "m-Q2_K", 32) is None  # not in memory: not said
    off = RanAs.of(replace(resident, flash_attn=False, parallel=1), 8)
    assert off.differences(on) == ["flash_attn"]  # sequences and list sizes move nothing
    # Only llama.cpp has the switch.
    assert RanAs.of(replace(resident, backend="onnxruntime-genai"), 8).flash_attn is None

    answered = (Answered((-1.0, -2.0), (1, 1), 0),)
    outcomes = [Outcome("m-Q8_0", score(answered), answered, 1.0, on),
                Outcome("m-Q2_K", score(answered), answered, 1.0, off),
                Outcome("m-Q4_0", score(answered), answered, 1.0, None)]  # fmt: skip
    task = Task("t", (), Path("t.jsonl"))
    compared = report(task, outcomes)["compared"]
    assert [c["ran_differently"] for c in compared] == [["flash_attn"], []]
    out = io.StringIO()
    _table(task, outcomes, out)
    text = out.getvalue()
    assert "m-Q8_0  llama.cpp on CPU, flash attention on, cache f16, batches of 512 tokens, " \
           "32 prompts a request in 4 sequences" in text  # fmt: skip
    assert "m-Q4_0  not told by the engine" in text
    assert text.count("They ran differently (flash attention)") == 1

"""Measuring a model's answers: multiple-choice tasks scored through an engine (cove eval)."""

# What the window uses, from the modules that hold it.
from engine.evaluation.metrics import paired
from engine.evaluation.ran_as import RanAs
from engine.evaluation.run import Outcome, Scorer, evaluate
from engine.evaluation.tasks import Task, load_task, shipped_task

__all__ = ["Outcome", "RanAs", "Scorer", "Task", "evaluate", "load_task", "paired", "shipped_task"]

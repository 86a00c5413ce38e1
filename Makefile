# Two commands for a fresh machine with Python 3.11 and make:
#   make run    creates .venv, installs, launches against the embedded sandbox
#   make test   creates .venv, installs the test extras, runs lint, types, import contracts and the suite offscreen

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The install stamps carry a hash of pyproject.toml, so a change of dependencies reinstalls.
DEPS   := $(shell cksum pyproject.toml | cut -d' ' -f1)
RUNTIME_STAMP := $(VENV)/.runtime-$(DEPS)
TEST_STAMP    := $(VENV)/.test-$(DEPS)
PYTEST_ARGS   ?=

.PHONY: run test lint check-format types contracts format clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(RUNTIME_STAMP)

run: $(RUNTIME_STAMP)
	$(BIN)/pos-terminal

# The GUI tests run one process each (tests/ui/isolated.py); everything else in one pytest run.
test: lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest --ignore=tests/ui $(PYTEST_ARGS)
	QT_QPA_PLATFORM=offscreen $(BIN)/python tests/ui/isolated.py $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(TEST_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis

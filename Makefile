# Two commands for a fresh machine with Python 3.11 and make:
#   make run    creates .venv, installs, launches against the embedded sandbox
#   make test   creates .venv, installs the test extras, runs lint, types, import contracts and the suite offscreen
#   (make soak  the GUI suite ten times and a long compressed shift; not part of CI)
#   (make test-browser  installs Debian's chromium when missing, then runs tests/browser)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The install stamps carry a hash of pyproject.toml, so a change of dependencies reinstalls.
DEPS   := $(shell cksum pyproject.toml | cut -d' ' -f1)
RUNTIME_STAMP := $(VENV)/.runtime-$(DEPS)
TEST_STAMP    := $(VENV)/.test-$(DEPS)
PYTEST_ARGS   ?=

.PHONY: run test test-browser minify soak lint check-format types contracts format clean

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

# One pytest run, GUI tests included, in random order; every test has a time limit (pyproject.toml).
test: lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PYTEST_ARGS)

# The real-browser tests (tests/browser, also part of `make test`, where they skip without Chromium):
# Debian's chromium, installed when missing; Playwright drives it and never downloads a browser of its own.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
test-browser: $(TEST_STAMP)
	command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/browser $(PYTEST_ARGS)

# The SDK's minified builds are committed; tests/sandbox/test_sdk.py checks each is rjsmin's output of its source.
SDK_RELEASES := $(wildcard pos_terminal/sandbox/static/sdk/v*)
minify: $(TEST_STAMP)
	for release in $(SDK_RELEASES); do \
		$(BIN)/python -m rjsmin -b < $$release/web-payments.js > $$release/web-payments.min.js || exit 1; \
	done

# The GUI suite ten times in a row (a new random order each time), then a long compressed shift
# (tests/soak) whose figures are printed and kept in soak-report.json.
SOAK_RUNS    ?= 10
SOAK_CHARGES ?= 2000
soak: $(TEST_STAMP)
	for run in $$(seq $(SOAK_RUNS)); do \
		echo "GUI suite, run $$run of $(SOAK_RUNS)"; \
		QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/ui -q $(PYTEST_ARGS) || exit 1; \
	done
	POS_SOAK_CHARGES=$(SOAK_CHARGES) POS_SOAK_REPORT=soak-report.json QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest tests/soak -q -s -p no:randomly $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(TEST_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis soak-report.json

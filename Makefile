# Two commands for a fresh machine with Python 3.11 and make:
#   make run    creates .venv, installs, launches against the embedded sandbox
#   make test   creates .venv, installs the test extras, runs lint, types, import contracts and the suite offscreen
#   (make soak  the GUI suite ten times and a long compressed shift; not part of CI)
#   (make bench  every benchmark in a measuring run, targets held, one table of ratios at the end; not part of CI,
#    whose ordinary run of tests/bench holds each benchmark's looser CI bound)
#   (make test-browser  installs Debian's chromium when missing, then runs tests/browser)
#   make dist        a one-folder bundle for this machine in dist/pos-terminal (PyInstaller, packaging/)
#   make dist-test   builds the bundle from a clean copy of the tree and drives it: setup, login, report, window
#   make desktop-tools  desktop-file-validate and appstreamcli from Debian, for the tests that check those files
#   make window-manager  Xvfb, openbox and xprop from Debian, for the tests that open the window under a window manager
#   (make fuzz  schemathesis, every phase including stateful, over the sandbox with a fixed seed; about 3 min)
#   (make interop-deps  installs the stock OAuth provider (npm) the interoperability tests start)
#   (make postgres-deps  installs Debian's PostgreSQL server when missing, for the store database tests)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The install stamps carry a hash of pyproject.toml, so a change of dependencies reinstalls.
DEPS   := $(shell cksum pyproject.toml | cut -d' ' -f1)
RUNTIME_STAMP := $(VENV)/.runtime-$(DEPS)
TEST_STAMP    := $(VENV)/.test-$(DEPS)
DIST_STAMP    := $(VENV)/.dist-$(DEPS)
PYTEST_ARGS   ?=
TEST_WORKERS  ?= 4

.PHONY: run test test-services test-warm bench test-browser minify soak fuzz interop-deps postgres-deps lint check-format types contracts format clean dist dist-test desktop-tools window-manager

# The packages are installed by uv (from PyPI, into the venv, with pip): a fresh install of the test extras
# takes 13 s with it and 46 s with pip alone, the same versions either way. Each module is byte-compiled as it
# is installed, as pip does, so no process compiles a library's source again. Where uv cannot be installed,
# pip installs everything.
UV_VERSION := 0.13.9
INSTALL = { $(BIN)/python -m pip install --quiet uv==$(UV_VERSION) && \
	UV_LINK_MODE=copy $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(1); } || \
	{ $(BIN)/python -m pip install --quiet --upgrade pip && $(BIN)/python -m pip install --quiet $(1); }
comma := ,

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# make run starts the embedded sandbox on a fresh machine: the runtime install has the sandbox extra.
$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(call INSTALL,-e '.[sandbox]')
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(call INSTALL,-e '.[test]')
	touch $@ $(RUNTIME_STAMP)

$(DIST_STAMP): pyproject.toml | $(BIN)/python
	$(call INSTALL,-e '.[test$(comma)dist]')
	touch $@ $(TEST_STAMP) $(RUNTIME_STAMP)

run: $(RUNTIME_STAMP)
	$(BIN)/pos-terminal

# One pytest run, GUI tests included, in random order, in TEST_WORKERS processes (pytest-xdist; 0: in this
# one), handed one test at a time with the slow ones first (tests/conftest.py); every test has a time limit
# (pyproject.toml).
test: $(TEST_STAMP)
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint test-services test-warm
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(TEST_WORKERS) --maxschedchunk=1 $(PYTEST_ARGS)

# What the suite's servers need, installed while lint runs.
test-services:
	@$(MAKE) --no-print-directory postgres-deps \
		|| echo "PostgreSQL could not be installed: the store database tests on PostgreSQL will skip"
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory interop-deps \
		|| echo "oidc-provider could not be installed: the interoperability tests with it will skip"; fi

# On the core mypy leaves free: the package byte-compiled, and pytest's assertion rewriting of the tests done once
# and kept (a pytest collection, writing bytecode even where PYTHONDONTWRITEBYTECODE is set). Without it each of
# the TEST_WORKERS processes rewrote every test module (9 of its 20 s of collection here), and every terminal a
# test started compiled the package again. Its failures are the suite's own, and the suite reports them.
test-warm: $(TEST_STAMP)
	@$(BIN)/python -m compileall -q pos_terminal >/dev/null || true
	@PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest --collect-only -q -p no:randomly \
		>/dev/null 2>&1 || true

# Every benchmark of tests/bench in a measuring run: more rounds, each target held, and one table of the ratios
# (each to a baseline measured in the same run) printed at the end. Needs PostgreSQL for the store's.
bench: $(TEST_STAMP)
	@$(MAKE) --no-print-directory postgres-deps \
		|| echo "PostgreSQL could not be installed: the store benchmark will skip"
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/bench --measure -p no:randomly -q $(PYTEST_ARGS)

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
# (tests/soak) whose figures are printed and kept in soak-report.json. The shift runs without pytest's
# log capture, which keeps every record of a test in memory: the soak measures the terminal's own.
SOAK_RUNS    ?= 10
SOAK_CHARGES ?= 2000
soak: $(TEST_STAMP)
	for run in $$(seq $(SOAK_RUNS)); do \
		echo "GUI suite, run $$run of $(SOAK_RUNS)"; \
		QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/ui -q $(PYTEST_ARGS) || exit 1; \
	done
	POS_SOAK_CHARGES=$(SOAK_CHARGES) POS_SOAK_REPORT=soak-report.json QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest tests/soak -q -s -p no:randomly -p no:logging $(PYTEST_ARGS)

# A stateful schemathesis run over /v1, /v4, /v5 and /sandbox (all but the faults): no 5xx, no answer
# outside the OpenAPI document; the last line gives the cases and the links covered.
fuzz: $(TEST_STAMP)
	$(BIN)/python -m tests.fuzz.run_fuzz

# The stock standards-compliant provider of tests/interop (oidc-provider, from npm, as pinned in its
# package-lock.json), into tests/interop/provider/node_modules. make test runs it when npm is there.
PROVIDER := tests/interop/provider
PROVIDER_STAMP := $(PROVIDER)/node_modules/.installed
interop-deps: $(PROVIDER_STAMP)
$(PROVIDER_STAMP): $(PROVIDER)/package.json $(PROVIDER)/package-lock.json
	npm ci --prefix $(PROVIDER) --no-audit --no-fund
	touch $@

# Debian's PostgreSQL server binaries, installed when missing: tests/store/postgres.py runs initdb and pg_ctl
# into a temporary folder on a free loopback port (no service is started or needed). make test runs it.
postgres-deps:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null || { \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql; }

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The bundle: dist/pos-terminal/pos-terminal is the window and every subcommand; install.sh beside it.
dist: $(DIST_STAMP)
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller \
		packaging/pos-terminal.spec
	cp packaging/linux/install.sh dist/pos-terminal/
	@du -sh dist/pos-terminal

# Not part of make test: a build takes minutes. Prints the bundle's size, build time and start-up figures.
dist-test: $(DIST_STAMP)
	rm -rf build/dist-test
	POS_DIST_TEST=1 POS_DIST_DIR=build/dist-test QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest tests/dist -q -s -p no:randomly $(PYTEST_ARGS)
	QT_QPA_PLATFORM=offscreen $(BIN)/python tests/bench/bench_startup.py 5 --bundle build/dist-test/pos-terminal/pos-terminal
	QT_QPA_PLATFORM=offscreen $(BIN)/python tests/bench/bench_startup.py 5

desktop-tools:
	command -v desktop-file-validate >/dev/null && command -v appstreamcli >/dev/null || \
		(apt-get update && apt-get install -y desktop-file-utils appstream)

window-manager:
	command -v Xvfb >/dev/null && command -v openbox >/dev/null && command -v xprop >/dev/null || \
		(apt-get update && apt-get install -y xvfb openbox x11-utils libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 \
			libxcb-shape0 libxcb-image0 libxcb-render-util0 libxkbcommon-x11-0)

format: $(TEST_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis soak-report.json $(PROVIDER)/node_modules

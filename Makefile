# The two commands the README starts with. Each installs what a fresh Debian machine lacks first.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo)

.PHONY: demo test bench bench-quick deps deps-sqlite deps-libpq deps-postgres deps-faketime lint api-check torture fuzz docs docs-preview docs-check docs-python docs-deps

## Run the demo: a sidebar whose customization persists in an embedded SQLite store. (It links
## libpq for `stored-demo --shared URL`, the same sidebar on a replica of a PostgreSQL namespace;
## `make demo` itself needs no server.)
demo: deps-sqlite deps-libpq
	$(SWIFT) run stored-demo

## Run every test (unit, CLI, multi-process, PostgreSQL). XDG_CONFIG_HOME points at a throwaway
## directory, so a test that reaches PreferenceStore.standard never writes the real ~/.config.
## A throwaway PostgreSQL server runs for the tests and is stopped after them, also when they fail.
## A run still going after TEST_DEADLINE seconds (a normal one takes 1-5 minutes) is a hang: it is
## stopped with every thread's backtrace printed (Scripts/with-deadline.sh), not left to run on.
TEST_DEADLINE ?= 1800
test: deps deps-faketime
	@config=$$(mktemp -d); pg=$$(mktemp -d); \
		trap 'Scripts/postgres-test-server.sh stop "$$pg"; rm -rf "$$config"' EXIT; \
		urls=$$(Scripts/postgres-test-server.sh start "$$pg") || exit 1; eval "$$urls"; \
		export STOREDKIT_POSTGRES_URL STOREDKIT_POSTGRES_SOCKET_URL; \
		echo "PostgreSQL test server: $$STOREDKIT_POSTGRES_URL"; \
		echo "XDG_CONFIG_HOME=$$config $(SWIFT) test"; \
		XDG_CONFIG_HOME="$$config" Scripts/with-deadline.sh $(TEST_DEADLINE) $(SWIFT) test

## Run the full benchmark (about 5 minutes) or a smoke run (under a minute).
bench: deps
	$(SWIFT) run -c release stored-bench
bench-quick: deps
	Scripts/with-deadline.sh 900 $(SWIFT) run -c release stored-bench --quick

## Reliability figures (RELIABILITY.md): every torture scenario at full size, PostgreSQL included
## (a throwaway server unless STOREDKIT_POSTGRES_URL names one), about 25 minutes.
torture: deps
	$(SWIFT) build -c release --product stored-torture
	.build/release/stored-torture all

## Fuzz each target for FUZZ_SECONDS (default 600) from the seeds in Fuzz/corpus; fails on any crash.
FUZZ_SECONDS ?= 600
fuzz: deps
	Fuzz/fuzz.sh all $(FUZZ_SECONDS)

## Documentation (DocC, Sources/*/*.docc): a static site in .build/docs, built from the debug
## build's symbol graphs (no second build); fails on any DocC warning or a public symbol no landing
## page curates. docs-preview serves it on http://127.0.0.1:$(DOCS_PORT)/; docs-check opens the
## landing pages and two articles in headless Chromium and fails on an empty page or a console error.
DOCS_PORT ?= 8000
docs: deps docs-python
	SWIFT="$(SWIFT)" Scripts/docs.sh
docs-preview: docs
	@echo "Serving .build/docs at http://127.0.0.1:$(DOCS_PORT)/ (Ctrl-C stops it)"
	python3 -m http.server $(DOCS_PORT) --bind 127.0.0.1 --directory .build/docs
docs-check: docs docs-deps
	Scripts/with-deadline.sh 900 Scripts/docs-check.py .build/docs

## The public API against the last release (RELEASE): fails on a break CHANGELOG.md does not announce.
## Builds the release once (kept in .build/api-baseline), then reuses the debug build.
api-check: deps
	SWIFT="$(SWIFT)" Scripts/api-check.sh

## Check formatting.
lint:
	$(SWIFT) format lint -r Sources Tests Benchmarks Fuzz/Targets Fuzz/Support

## Debian packages the build needs. StoredKit links SQLite only (libsqlite3-dev); StoredKitPostgres
## and everything built on it (the CLI, the tools, the tests) need libpq's headers (libpq-dev), and
## the tests a PostgreSQL server they start and stop themselves. `make demo` builds stored-demo,
## which imports StoredKit and StoredKitPostgres (for --shared) but needs no server, so it installs
## deps-sqlite and deps-libpq only; every other target builds the whole package and installs both.
deps: deps-sqlite deps-postgres
deps-sqlite:
	@if ! pkg-config --exists sqlite3 2>/dev/null; then \
		echo "Installing libsqlite3-dev and pkg-config..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libsqlite3-dev pkg-config sqlite3; \
	fi
deps-libpq:
	@if ! pkg-config --exists libpq 2>/dev/null; then \
		echo "Installing libpq-dev (the PostgreSQL client library)..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libpq-dev; \
	fi
deps-postgres:
	@if ! pkg-config --exists libpq 2>/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "Installing libpq-dev and postgresql (client library, and a server for the tests)..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libpq-dev postgresql; \
	fi

## libfaketime (Debian's faketime package), for the tests only: the tests of machines whose clocks
## disagree start children a day ahead or behind (SkewedClock in Tests/StoredKitTestSupport).
deps-faketime:
	@if ! command -v faketime >/dev/null 2>&1; then \
		echo "Installing faketime (a skewed clock for the tests' child processes)..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq faketime; \
	fi

## Python 3 (the docs scripts and the preview server) and Debian's Chromium (docs-check).
docs-python:
	@command -v python3 >/dev/null 2>&1 || { echo "Installing python3..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3; }
docs-deps:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "Installing chromium (headless, for make docs-check)..."; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; \
	fi

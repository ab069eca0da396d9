# Tickwire's commands. `make run` starts the whole stack with mock feeds (no network);
# `make test` runs every test. Both install what they need on a fresh Debian machine.
SWIFT ?= swift
PORT ?= 8080

.PHONY: deps test-deps build release run test bench clean

deps:
	@bash scripts/install-deps.sh

test-deps:
	@WITH_PYTHON=1 WITH_BROWSER=1 bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	@bash deploy/local/run-stack.sh "$$($(SWIFT) build -c release --show-bin-path)"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build

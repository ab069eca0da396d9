# Tickwire's commands. `make run` starts the whole stack with mock feeds (no network);
# `make test` runs every test. Both install what they need on a fresh Debian machine: Debian's packages with
# apt-get, the tests' Python tools with pip into the project's virtual environment .venv, never the system's.
SWIFT ?= swift
# `make run`'s dashboard: HOST and PORT of the presenter's HTTP listener (a HOST other than loopback needs
# the dashboard's login token, which run-stack.sh makes and says where to find); FEEDS=mock|live|test, or
# FEEDS=replay CAPTURE=path: the capture's feeds played at 1x (docs/capture.md), e.g. CAPTURE=captures/demo.ndjson.gz.
PORT ?= 8080
HOST ?= 127.0.0.1
FEEDS ?= mock
CAPTURE ?=
# Release builds link the Swift runtime and Foundation dynamically, from the toolchain's lib/swift/linux (which
# the binaries' RUNPATH names), so `make run` and the images (which carry those libraries once, in the layer all
# services share: README "Containers") use one release build. It costs resident memory, measured on one tree
# (2026-11-26, `make run`, 60 s idle, VmRSS in MiB, static -> dynamic): rates-fetcher 30.7 -> 37.5, converter
# 25.1 -> 31.3, portfolio 32.5 -> 40.5, presenter 32.8 -> 40.7, price-alerts 30.5 -> 35.8. The 5-8 MiB more are
# clean pages of the Swift libraries, which the services share: each one's proportional share (PSS) falls
# instead, 25.8 -> 17.9, 20.3 -> 12.9, 27.0 -> 20.5, 27.9 -> 21.3, 25.0 -> 15.8 (the stack's 126 -> 88 MiB).
# Issue 31's 30 MB a service: by VmRSS only the static converter was under it, no dynamic service is; by PSS all are.
# Each service also sets malloc up itself (README "Memory": 2 arenas, one NIO loop, one trim after start): measured
# 2026-11-27 as bench/services.py starts them (3 s idle, VmRSS in MB, median of 4 interleaved runs, before -> after):
# rates-fetcher 39.8 -> 40.2 (spread 0.2 / 2.5), converter 30.1 -> 30.3, portfolio 40.7 -> 38.3, presenter 41.1 -> 40.6;
# their anonymous memory 6.0 -> 6.0, 3.6 -> 3.5, 8.5 -> 6.2, 4.8 -> 4.5 (the rest is file pages of the binaries and libraries).
RELEASE_FLAGS = -c release
# The plugin built only on the library products, a package of its own.
PLUGIN = Examples/price-alerts
# The release stack, built from deploy/local's root package: the main package's executables and the
# plugin's in one build, so each shared dependency is compiled once (not once per package).
STACK = deploy/local
STACK_PRODUCTS = rates-fetcher converter portfolio presenter tickwire-keys tickwire-proxy tickwire-probe price-alerts \
    tickwire-recorder tickwire-replay exchange-feed
# OTLP=1: the stack built with the OTLP trait (swift-otel, a few minutes more: README, "Logs and traces") into
# $(STACK)/.build-otlp, so the plain build stays as it is; `make run OTLP=1` sends every service's spans to
# OTLP_ENDPOINT (an OTLP/HTTP collector; scripts/otlp_receiver.py is a tiny one).
OTLP ?=
OTLP_ENDPOINT ?= http://127.0.0.1:4318
WITH_OTLP = $(filter 1 yes true,$(OTLP))
STACK_BUILD = $(SWIFT) build $(RELEASE_FLAGS) --package-path $(STACK)$(if $(WITH_OTLP), --traits OTLP --scratch-path $(STACK)/.build-otlp)
RELEASE_BIN = $$($(STACK_BUILD) --show-bin-path)
# The tests' and scripts' python3 is the virtual environment's (scripts/install-deps.sh makes it): every
# recipe, and what it starts (swift test's end-to-end tests, chaos.py), finds it first on PATH.
VENV = $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
# podman's settings for this project (runc, no default ulimits), not the machine's /etc/containers.
CONTAINERS_CONF ?= $(CURDIR)/deploy/containers/containers.conf
export CONTAINERS_CONF
# Where `make run` keeps the portfolio's and price-alerts' databases and the coin list; `make reset` empties it.
DATA_DIR ?= $(or $(TICKWIRE_DATA_DIR),$(or $(XDG_DATA_HOME),$(HOME)/.local/share)/tickwire-demo)

.PHONY: deps test-deps build release run python-feed capture reset test bench clean

deps:
	@bash scripts/install-deps.sh

test-deps:
	@WITH_BROWSER=1 WITH_DEPLOY=1 WITH_POSTGRES=1 PYTHON_PACKAGES="pyzmq kubernetes-validate jsonschema" bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

# deploy/local builds the main package as a path dependency, whose build plan SwiftPM keeps until the root manifest
# changes: a source file added by a `git pull` would be left out (cannot find ... in scope). Touching the manifest
# makes it plan again (seconds).
release: deps
	@touch $(STACK)/Package.swift
	@for product in $(STACK_PRODUCTS); do \
	    echo "== $$product (release)"; $(STACK_BUILD) --product $$product || exit 1; done

run: release
	@TICKWIRE_DATA_DIR="$(DATA_DIR)" HOST="$(HOST)" PORT="$(PORT)" FEEDS="$(FEEDS)" CAPTURE="$(CAPTURE)" \
	    $(if $(WITH_OTLP),TICKWIRE_OTLP_ENDPOINT="$(OTLP_ENDPOINT)") \
	    bash deploy/local/run-stack.sh "$(RELEASE_BIN)" "$(RELEASE_BIN)"

# The example feed plugin (Examples/python-feed) against `make run`'s stack, in a second terminal: pyzmq into the
# project's .venv first (where missing), then the plugin; FEED_FLAGS passes it --ingest, --name or --interval.
FEED_FLAGS ?=
python-feed:
	@PYTHON_PACKAGES="pyzmq" bash scripts/install-deps.sh
	$(VENV)/bin/python3 Examples/python-feed/kraken_feed.py $(FEED_FLAGS)

# Records captures/demo.ndjson.gz again (scripts/make-capture.sh, docs/capture.md): 5.5 minutes of the exchange feeds'
# recorded sessions, Bitso's mock websocket market and the built-in feeds' mocks, from the debug build.
capture:
	@for product in rates-fetcher tickwire-recorder tickwire-feed exchange-feed; do $(SWIFT) build --product $$product || exit 1; done
	bash scripts/make-capture.sh "$$($(SWIFT) build --show-bin-path)" captures/demo.ndjson.gz

# Empties `make run`'s data directory: the demo portfolio's trades and watch list, price-alerts' rules,
# rates-fetcher's coin list, the dashboard's token.
reset:
	@TICKWIRE_DATA_DIR="$(DATA_DIR)" bash deploy/local/reset.sh

# The main package's tests, then the plugin's (whose end-to-end test runs the main package's binaries). The
# in-process tests run first and the end-to-end ones (dozens of child processes) after them, so the children's
# start-up never starves an in-process test's sockets on a 2-core machine. HEAVY_TESTS (seconds of CPU each, such
# as a 100,000-line import) run alone between them, so they never starve a test that waits against a deadline.
# TRANSPORT_TESTS (the bus's and libzmq wrapper's: resynchronisation, retraction, holding, each waiting on a
# subscription or a snapshot request within seconds) run first on their own: among 850 in-process tests on 2 cores
# they missed those deadlines (12 of them in one run), alone all 92 pass in 4 s.
HEAVY_TESTS = aHundredThousandLinesImport|fiveThousandMarketsJoinAndGo
TRANSPORT_TESTS = ^(BusTests|ZeroMQTests)\.
# The PostgreSQL store's tests (and the two-replica end-to-end test) use the throwaway server scripts/postgres-test.sh
# starts (Debian's postgresql on 127.0.0.1:25432); its URL reaches them in TICKWIRE_TEST_POSTGRES.
test: export TICKWIRE_TEST_POSTGRES = $(shell bash scripts/postgres-test.sh url)
test: test-deps
	kubernetes-validate --strict --quiet $(KUBE_MANIFESTS)
	bash scripts/postgres-test.sh >/dev/null
	python3 scripts/check-imports.py  # every import declared in Package.swift, no @_exported
	python3 scripts/check-imports.py --package-path $(PLUGIN)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(TRANSPORT_TESTS)'
	$(SWIFT) test --skip-build --skip '^EndToEndTests\.' --skip '$(TRANSPORT_TESTS)' --skip '$(HEAVY_TESTS)'
	$(SWIFT) test --skip-build --filter '$(HEAVY_TESTS)'
	$(SWIFT) test --skip-build --filter '^EndToEndTests\.'
	@touch $(PLUGIN)/Package.swift  # plan again: the main package, a path dependency here, may have new files (release)
	$(SWIFT) build --build-tests --package-path $(PLUGIN)
	$(SWIFT) test --skip-build --package-path $(PLUGIN)
	bash clients/python/test-installed.sh
	$(VENV)/bin/python3 -m unittest discover -s Examples/python-feed -p 'test_*.py'
	python3 scripts/chaos.py --seed 7 --faults 7 --seconds 120 --no-flood --best-effort \
	    --bin-dir "$$($(SWIFT) build --show-bin-path)" --plugin-bin-dir "$$($(SWIFT) build --package-path $(PLUGIN) --show-bin-path)"
	python3 scripts/chaos.py --postgres --seed 7 --faults 6 --seconds 120 --no-flood --best-effort \
	    --bin-dir "$$($(SWIFT) build --show-bin-path)" --plugin-bin-dir "$$($(SWIFT) build --package-path $(PLUGIN) --show-bin-path)"

clean:
	rm -rf .build .build-otlp $(PLUGIN)/.build $(STACK)/.build $(STACK)/.build-otlp

# Spans over OTLP/HTTP (issue 33): the converter built with the OTLP trait into .build-otlp, a local receiver
# (scripts/otlp_receiver.py) and a health call with a traceparent, whose trace id must arrive at /v1/traces.
OTLP_BUILD = $(SWIFT) build --traits OTLP --scratch-path .build-otlp
.PHONY: test-otlp
test-otlp: test-deps
	$(OTLP_BUILD) --product converter
	python3 scripts/test-otlp.py --bin-dir "$$($(OTLP_BUILD) --show-bin-path)"

# Benchmarks against the Python peers and raw libzmq (issue 6): builds Benchmarks/ in release,
# runs every benchmark and peer, prints the table and writes bench/RESULTS.md. The services are
# built in release inside Benchmarks/.build too (their own scratch path, so no lock on .build).
# BENCH_FLAGS=--quick for a shorter run; BENCH_FLAGS="--only bus,convert" for some. The import benchmark (9) also
# imports into the PostgreSQL of scripts/postgres-test.sh (installed where missing; stopped after unless it ran before).
# The bus, RPC and quote -> price targets (issue 31) are judged on paired rounds (Tickwire, its peer and the limit back to
# back, the median of 5 with the spread); where valgrind is installed the bus rows get callgrind's instructions per
# message beside them (BENCH_FLAGS=--no-callgrind skips them; without valgrind the run says why they are missing).
bench: deps
	@PYTHON_PACKAGES="pyzmq orjson" bash scripts/install-deps.sh
	@PYTHON_PACKAGES=babel bash scripts/install-deps.sh || echo "babel not installed: the formatting peer is skipped"
	@PYTHON_PACKAGES=order-book bash scripts/install-deps.sh || echo "order-book not installed: the book maintenance peer is skipped"
	@PYTHON_PACKAGES="psycopg psycopg-binary" bash scripts/install-deps.sh || echo "psycopg not installed: the PostgreSQL import's peer is skipped"
	cd Benchmarks && $(SWIFT) build $(RELEASE_FLAGS) --product tickwire-bench
	cd Benchmarks && for service in rates-fetcher converter portfolio presenter tickwire-recorder tickwire-replay; do \
	    $(SWIFT) build $(RELEASE_FLAGS) --product $$service || exit 1; done
	@running=0; bash scripts/postgres-test.sh status 2>/dev/null && running=1; \
	url=$$(bash scripts/postgres-test.sh start) || { echo "no PostgreSQL: the import into it is skipped"; url=; }; \
	Benchmarks/.build/release/tickwire-bench --bench-dir bench --results bench/RESULTS.md --services-bin Benchmarks/.build/release \
	    --command "make bench" $${url:+--postgres $$url} $(BENCH_FLAGS); status=$$?; \
	[ $$running = 1 ] || bash scripts/postgres-test.sh stop; exit $$status

# Deploy (issue 25; README "Deploy"). `make images`: one image per service, localhost/tickwire-<service>,
# from the release binaries (stripped, their debug information in .build/images/debug) on
# localhost/tickwire-runtime (the Swift libraries and tickwire-probe, shared), on a base made locally from
# Debian's packages (no registry needed).
# `make kube-up` / `make kube-down`: the Kubernetes manifests played by podman on this host (KUBE_OVERLAY=postgres:
# with the PostgreSQL overlay, one portfolio replica on PostgreSQL at 127.0.0.1:25435).
# `make test-deploy`: the images, the manifests validated and played (prices flow, the dashboard
# answers, kube down stops every pod), and compose where podman-compose is present; it prints each image's own
# layers and all images' distinct layers and fails above 40 MB and 400 MB.
KUBE_MANIFESTS = $(filter-out %/kustomization.yaml,$(wildcard deploy/kubernetes/base/*.yaml deploy/kubernetes/postgres/*.yaml))

.PHONY: podman-deps images kube-up kube-down test-deploy

podman-deps:
	@bash deploy/containers/setup-podman.sh

images: release podman-deps
	@bash deploy/containers/base-image.sh
	@bash deploy/containers/build-images.sh "$(RELEASE_BIN)" "$(RELEASE_BIN)"

kube-up: images
	@bash deploy/kubernetes/local/kube-play.sh up $(KUBE_OVERLAY)

kube-down: podman-deps
	@bash deploy/kubernetes/local/kube-play.sh down $(KUBE_OVERLAY)

test-deploy: images test-deps
	@bash deploy/test-deploy.sh $(KUBE_MANIFESTS)

# The README's quick start on a stock Debian 12 (issue 33): deploy/containers/test-stock-debian.sh debootstraps
# bookworm into .build-stock-debian (once), mounts the Swift toolchain read-only and a clean clone of HEAD, and
# there runs `make run` until the dashboard answers, then the Python client's tests under Debian's python3.
# Needs root. .ci/run runs it last; its first run builds the whole stack from nothing inside (README, Development).
.PHONY: test-stock-debian
test-stock-debian:
	@bash deploy/containers/test-stock-debian.sh

# Soak (issue 24): the release stack under steady load for DURATION (e.g. 10m, 1h), one CSV row a
# minute (RSS, quote -> price and request p99, subscriber lag and losses) and an SVG plot in bench/soak/.
DURATION ?= 1h
.PHONY: soak
soak: release
	@PYTHON_PACKAGES=pyzmq bash scripts/install-deps.sh
	python3 scripts/soak.py --duration $(DURATION) --out-dir bench/soak --report bench/CHAOS.md \
	    --command "make soak DURATION=$(DURATION)" \
	    --bin-dir "$(RELEASE_BIN)" --plugin-bin-dir "$(RELEASE_BIN)"

# Chaos (issue 24): the release stack under load while seeded faults hit it (scripts/chaos.py: kill -9,
# SIGSTOP, delay and loss, a cut link, a stalled subscriber, the portfolio's disk full and read-only),
# checking its invariants after each; prints `lost 0` and `duplicated 0` and writes bench/CHAOS.md.
# Runs as root (a network namespace, a loop-mounted disk). `make test` runs a short one on the debug build.
# Then a second run with the portfolio on PostgreSQL (chaos.py --postgres, issue 34: a server of the run's own,
# restarted mid-load by the pg-restart fault; no disk faults) for CHAOS_PG_SECONDS, CHAOS_PG_FAULTS faults.
CHAOS_SEED ?= 11
CHAOS_SECONDS ?= 1200
CHAOS_FAULTS ?= 56
CHAOS_PG_SECONDS ?= 400
CHAOS_PG_FAULTS ?= 24
# CHAOS_FLOOD: Bitso's mock poll period in seconds under load: 0.005 (200 polls, 1,200 quotes a second) by
# default, 0 flat out, `demo` its demo period (a poll a second).
CHAOS_FLOOD ?= 0.005
.PHONY: chaos
chaos: release
	@WITH_POSTGRES=1 PYTHON_PACKAGES=pyzmq bash scripts/install-deps.sh
	python3 scripts/chaos.py --seed $(CHAOS_SEED) --seconds $(CHAOS_SECONDS) --faults $(CHAOS_FAULTS) \
	    $(if $(filter demo,$(CHAOS_FLOOD)),--no-flood,--flood-period $(CHAOS_FLOOD)) \
	    --report bench/CHAOS.md --command "make chaos CHAOS_SEED=$(CHAOS_SEED)" \
	    --bin-dir "$(RELEASE_BIN)" --plugin-bin-dir "$(RELEASE_BIN)"
	python3 scripts/chaos.py --postgres --seed $(CHAOS_SEED) --seconds $(CHAOS_PG_SECONDS) --faults $(CHAOS_PG_FAULTS) \
	    $(if $(filter demo,$(CHAOS_FLOOD)),--no-flood,--flood-period $(CHAOS_FLOOD)) \
	    --report bench/CHAOS.md --command "make chaos CHAOS_SEED=$(CHAOS_SEED) (chaos.py --postgres)" \
	    --bin-dir "$(RELEASE_BIN)" --plugin-bin-dir "$(RELEASE_BIN)"

# libFuzzer targets (Fuzz/, issue 23): WireJSON against Foundation's decoder, every service's RPC
# methods, the Subscriber's frames. Builds them with -sanitize=fuzzer,address in release into
# .build-fuzz, then runs each for FUZZ_SECONDS from its seed corpus Fuzz/corpus/<target>/ (what it
# finds goes to .build-fuzz/corpus/<target>/, crashes to .build-fuzz/findings/: copy a crash into
# Fuzz/regressions/<target>/, where FuzzReplayTests replay it in `make test`).
# FUZZ_ARGS passes libFuzzer flags, e.g. FUZZ_ARGS=-runs=10000000; FUZZ_TARGETS picks targets.
# Leak detection is off (ASAN_OPTIONS=detect_leaks=0): LeakSanitizer does not see the pointers Swift stores with tag
# bits in their spare bits (Data's storage in an enum payload, side tables), so it reports reachable
# objects as leaked (swiftlang/swift-corelibs-xctest#342, llvm/llvm-project#56751); AddressSanitizer's
# memory errors are all still caught. No allocation stacks are recorded (malloc_context_size=0): their capture took
# about a quarter of each input's time (2,142 -> 2,855 inputs/s for WireJSONFuzzer); a use-after-free or overflow still
# stops the run and saves its input, and replaying that input without the option prints where the memory came from.
# Never pause a run (SIGSTOP): libFuzzer counts the pause against -timeout and reports a false hang.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= WireJSONFuzzer RPCMethodsFuzzer SubscriberFuzzer
# lld: gold fails with an internal error on the instrumented link.
FUZZ_BUILD = $(SWIFT) build --package-path Fuzz --scratch-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

.PHONY: fuzz
fuzz: deps
	$(FUZZ_BUILD)
	@mkdir -p .build-fuzz/findings
	@bin="$$($(FUZZ_BUILD) --show-bin-path)"; for target in $(FUZZ_TARGETS); do \
	    mkdir -p .build-fuzz/corpus/$$target; \
	    echo "== $$target for $(FUZZ_SECONDS) s"; \
	    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:malloc_context_size=0 "$$bin/$$target" .build-fuzz/corpus/$$target Fuzz/corpus/$$target -max_total_time=$(FUZZ_SECONDS) \
	        -timeout=20 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings/$$target- $(FUZZ_ARGS) || exit 1; \
	done

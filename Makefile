# PassConsole — the two commands that matter: `make run` and `make test`. Both install what they need first.
SHELL := /bin/bash
SWIFT ?= swift
PORT ?= 8080
BACKEND_PORT ?= 8081
CONFIG ?= Config/demo.json
# Debian packages the build and the tests need: nginx with its ssl and http2 modules (ReverseProxyTests runs the
# committed Config/deploy/passconsole-nginx.conf; the benchmarks use it too), postgresql (the throwaway cluster the
# PostgreSQL history's tests start, see PassTestSupport's PostgresCluster); the benchmarks add wrk.
APT_PACKAGES := libmicrohttpd-dev libsqlite3-dev pkg-config curl openssl nginx chromium chromium-driver postgresql
BENCH_PACKAGES := wrk
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps bench-deps axe build run backend test screenshots bench fuzz soak sanitize lint clean

deps:
	@missing=""; for p in $(APT_PACKAGES) $(EXTRA_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

bench-deps:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(BENCH_PACKAGES)"

build: deps
	$(SWIFT) build

# axe-core for the accessibility browser tests: axe.min.js from PyPI's axe-selenium-python wheel (pinned, checked),
# into .build/axe/ when it is not there yet. Fails saying so when PyPI cannot be reached.
axe:
	@Tests/fetch-axe.sh

# The demo: the local entitlement backend with its MVPD login pages on 127.0.0.1, demo data from Config/.
run: build
	$(SWIFT) run passconsole serve --port $(PORT) --backend-port $(BACKEND_PORT) --config $(CONFIG)

# The log is kept; on failure the failing tests and any crash report are printed again at the end, where a CI
# summary that shows only the tail will see them.
# At most TEST_WIDTH test cases run at once (Swift Testing starts every one at once otherwise: ~900 tasks on the
# two concurrency threads, and the servers the tests start answered 20-30 s late, failing timeouts at random).
# Measured on this 2-core machine, loaded: width 8 took 142 s and passed; unbounded 182 s with 3 timeouts.
TEST_WIDTH ?= 8
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH := $(TEST_WIDTH)
test: deps axe
	@mkdir -p .build; set -o pipefail; $(SWIFT) test 2>&1 | tee .build/test.log || { \
	  echo "==> make test failed; what failed:"; \
	  grep -E "✘|Fatal error|Program crashed|crashed:|error:" .build/test.log | grep -v "^\s*$$" | head -40; \
	  grep -A12 -E "^Thread [0-9]+ .*crashed:" .build/test.log | head -40; exit 1; }

# The screenshots of docs/console.md's "Working a ticket", taken again by the one browser test that works that ticket
# (TicketWalkthroughBrowserTests, a fixed 1280×800 window) and shrunk losslessly with optipng (installed if missing).
screenshots:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES=optipng
	$(SWIFT) build --build-tests
	PASS_DOC_SCREENSHOTS=docs/images $(SWIFT) test --skip-build --filter TicketWalkthroughBrowserTests
	optipng -quiet -o2 -strip all docs/images/ticket-*.png

# The servers under test are the product (`passconsole`); the benchmarks themselves are their own executable
# (`passconsole-bench`: bench-flow, bench-console, bench-live, bench-fleet), both built in release.
bench: bench-deps
	$(SWIFT) build -c release --product passconsole
	$(SWIFT) build -c release --product passconsole-bench
	Benchmarks/run.sh

# Ten minutes of one `passconsole serve` under a team's mixed load (flows, ingest, live feeds, page reads, clears,
# imports), RSS sampled each minute; fails unless every request succeeded and RSS stayed flat. SOAK_SECONDS=… to vary.
soak: deps
	$(SWIFT) build -c release
	PASSCONSOLE_BINARY=.build/release/passconsole python3 Benchmarks/soak.py

# The whole suite under ThreadSanitizer, then AddressSanitizer, each in a build folder of its own; fails on a failed
# test or any sanitizer report. SANITIZERS="address" runs one. The ThreadSanitizer build locks with pthread mutexes
# (-DPASS_TSAN, see Sources/Locking/Mutex.swift): Synchronization.Mutex's futex calls are invisible to it on Linux.
SANITIZERS ?= thread address
sanitize: deps
	@stray=$$(grep -rl '^import Synchronization$$' Sources Tests | grep -v '^Sources/Locking/' | xargs -r grep -l 'Mutex'); \
	if [ -n "$$stray" ]; then echo "==> lock through Locking, not Synchronization: $$stray"; exit 1; fi
	@set -e; for s in $(SANITIZERS); do \
	  flags=""; [ $$s = thread ] && flags="-Xswiftc -DPASS_TSAN"; \
	  echo "==> swift test --sanitize=$$s"; \
	  $(SWIFT) build --build-tests --sanitize=$$s $$flags --scratch-path .build-$$s; \
	  set -o pipefail; PASS_TEST_TIME_SCALE=5 TSAN_OPTIONS="second_deadlock_stack=1" ASAN_OPTIONS="detect_leaks=0" \
	    $(SWIFT) test --skip-build --sanitize=$$s $$flags --scratch-path .build-$$s 2>&1 | tee .build-$$s/sanitize.log; \
	  if grep -q -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" .build-$$s/sanitize.log; then \
	    echo "==> $$s sanitizer reports:"; grep -c -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" .build-$$s/sanitize.log; exit 1; fi; \
	done

# Not part of `make test`: libFuzzer targets (Fuzz/) and schemathesis against the console's OpenAPI, FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Fuzz/run.sh

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build

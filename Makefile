# sattrack: make run | make test | make test-unit | make build | make snapshot | make bench
# Bun comes from the npm registry (package "bun"), so a machine with only
# Node.js and npm can run every target.

BUN_VERSION := 1.4.5
BUN := .tools/node_modules/.bin/bun
# Older CelesTrak snapshots a few tests compare against (they skip, saying so, when the folder is absent).
SHARED_SNAPSHOTS ?= ../shared/data/celestrak
export SHARED_SNAPSHOTS
PYTHON_REF := /usr/bin/python3
PORT ?= 3000

.PHONY: run test test-unit build build-arm64 dist snapshot install deps-test deps-bench bench bench-refresh typecheck clean

# The commit compiled into builds (--version, sattrack_build_info): short hash, -dirty for a changed tree.
BUILD_COMMIT = $(shell $(BUN) scripts/dist.ts --print-commit 2>/dev/null || echo unknown)

$(BUN):
	npm install --prefix .tools --no-save --no-audit --no-fund --loglevel=error bun@$(BUN_VERSION)

node_modules/.installed: package.json bun.lock | $(BUN)
	$(BUN) install --frozen-lockfile
	@touch $@

install: node_modules/.installed

# The snapshot the build embeds: the group files committed in data/ (as published) and data/SOURCE, bundled.
SNAPSHOT_FILES := data/SOURCE $(wildcard data/*.tle data/*.csv) $(filter-out data/snapshot.json data/prepared.json,$(wildcard data/*.json))
data/snapshot.json: $(SNAPSHOT_FILES) scripts/snapshot.ts | node_modules/.installed
	$(BUN) scripts/snapshot.ts --bundle

# The snapshot parsed and validated at build time (what the executable embeds).
data/prepared.bin: data/snapshot.json scripts/prepare.ts $(wildcard src/domain/catalog/*.ts)
	$(BUN) scripts/prepare.ts

# Replaces data/: from CelesTrak (online), or with FROM=PATH from a folder or file of TLE/3LE/OMM (offline).
snapshot: node_modules/.installed
	$(BUN) scripts/snapshot.ts $(if $(FROM),--from "$(FROM)",--download)
	$(BUN) scripts/prepare.ts

run: node_modules/.installed data/prepared.bin
	$(BUN) run src/main.ts --port $(PORT)

build: dist/sattrack

# The executable starts with the JIT's tier-up thresholds this many times higher (its start-up code runs once);
# src/main.ts sets the normal policy once it listens. scripts/dist.ts builds with the same.
JIT_POLICY := 8

# A stamp per commit, so a new commit rebuilds what carries the commit (--version).
COMMIT_STAMP = dist/.commit-$(shell git rev-parse --short=12 HEAD 2>/dev/null || echo none)
$(COMMIT_STAMP):
	@mkdir -p dist && rm -f dist/.commit-* && touch $@

dist/sattrack: node_modules/.installed data/prepared.bin $(shell find src -type f) package.json $(COMMIT_STAMP)
	$(BUN) build src/main.ts --compile --minify --bytecode --format=esm --compile-jit-policy=$(JIT_POLICY) \
		--no-compile-autoload-dotenv --no-compile-autoload-bunfig \
		--define SATTRACK_BUILD_COMMIT='"$(BUILD_COMMIT)"' --outfile dist/sattrack

# 64-bit Raspberry Pi OS; Bun fetches the arm64 runtime from the npm registry.
build-arm64: node_modules/.installed data/prepared.bin
	$(BUN) scripts/dist.ts --only linux-arm64

# Release builds for every target (linux-x64, linux-arm64, darwin-arm64, windows-x64) and SHA256SUMS.
dist: dist/SHA256SUMS

dist/SHA256SUMS: node_modules/.installed data/prepared.bin $(shell find src -type f) package.json scripts/dist.ts $(COMMIT_STAMP)
	$(BUN) scripts/dist.ts

# Test dependencies from Debian: independent astronomy references (Skyfield,
# PyEphem, python-sgp4), a calendar library (python3-icalendar), the HTTP
# libraries the N2YO/Open Notify/wheretheiss.at clients use (requests, aiohttp,
# dacite: test/reference/compat_clients.py) and Chromium for the browser tests
# (driven by playwright-core; no browser download).
deps-test:
	@missing=""; \
	$(PYTHON_REF) -c 'import skyfield, ephem, sgp4' 2>/dev/null || missing="$$missing python3-skyfield python3-ephem python3-sgp4"; \
	$(PYTHON_REF) -c 'import icalendar' 2>/dev/null || missing="$$missing python3-icalendar"; \
	$(PYTHON_REF) -c 'import requests, aiohttp, dacite' 2>/dev/null || missing="$$missing python3-requests python3-aiohttp python3-dacite"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium fonts-liberation"; \
	command -v promtool >/dev/null || missing="$$missing prometheus"; \
	command -v qemu-aarch64 >/dev/null || missing="$$missing qemu-user"; \
	[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing="$$missing libc6-arm64-cross"; \
	[ -x /usr/sbin/nginx ] || missing="$$missing nginx"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v file >/dev/null || missing="$$missing file"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# Benchmark tools from Debian.
deps-bench:
	@command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

# Synthetic catalogues derived from the embedded snapshot's orbits.
bench/data/30k/synthetic.tle: node_modules/.installed data/prepared.bin bench/generate.ts
	$(BUN) bench/generate.ts 30000 bench/data/30k

bench/data/100k/synthetic.tle: node_modules/.installed data/prepared.bin bench/generate.ts
	$(BUN) bench/generate.ts 100000 bench/data/100k

# Throughput, latency, startup and memory of dist/sattrack (not part of make test).
bench: deps-bench dist/sattrack bench/data/30k/synthetic.tle bench/data/100k/synthetic.tle
	$(BUN) bench/run.ts

# What a refresh round costs in memory, on dist/sattrack against the loopback stand-in (docs/operations.md quotes it).
bench-refresh: dist/sattrack
	$(BUN) bench/refresh-memory.ts

typecheck: node_modules/.installed
	$(BUN) x tsc -p tsconfig.json

test: node_modules/.installed data/prepared.bin deps-test dist/sattrack dist/SHA256SUMS
	$(BUN) test --timeout 120000

# The fast loop: the in-process tests (domain, HTTP through app.handle, I/O, the docs' examples), one worker per core,
# each keeping its modules across the files it runs (--no-isolate: the app's modules and the embedded catalogue are
# loaded once per worker, not once per file: 43 s instead of 66 on the loaded 2-core machine, 35 s on a quiet one);
# no build, no executable, no Python. The property-based fuzz tests (test/fuzz, ~30 s alone) run in make test.
UNIT_TESTS := test/architecture.test.ts test/app.test.ts test/config.test.ts test/docs test/domain test/http test/io test/web
test-unit: node_modules/.installed data/prepared.bin
	$(BUN) test --parallel --no-isolate --timeout 120000 $(UNIT_TESTS)

clean:
	rm -rf dist node_modules .tools data/snapshot.json data/prepared.bin data/prepared.json

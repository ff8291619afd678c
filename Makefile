# sattrack: make run | make test | make build | make snapshot | make bench
# Bun comes from the npm registry (package "bun"), so a machine with only
# Node.js and npm can run every target.

BUN_VERSION := 1.4.5
BUN := .tools/node_modules/.bin/bun
SHARED_SNAPSHOTS ?= ../shared/data/celestrak
PYTHON_REF := /usr/bin/python3
PORT ?= 3000

.PHONY: run test build build-arm64 snapshot install deps-test typecheck clean

$(BUN):
	npm install --prefix .tools --no-save --no-audit --no-fund --loglevel=error bun@$(BUN_VERSION)

node_modules/.installed: package.json bun.lock | $(BUN)
	$(BUN) install --frozen-lockfile
	@touch $@

install: node_modules/.installed

# The snapshot the build embeds: taken from $(SHARED_SNAPSHOTS) when data/ is empty.
data/snapshot.json: | node_modules/.installed
	$(BUN) scripts/snapshot.ts --local-only --shared $(SHARED_SNAPSHOTS)

# Refills data/: the newest shared snapshot, or a download from CelesTrak when there is none.
snapshot: node_modules/.installed
	$(BUN) scripts/snapshot.ts --shared $(SHARED_SNAPSHOTS)

run: node_modules/.installed data/snapshot.json
	$(BUN) run src/main.ts --port $(PORT)

build: dist/sattrack

dist/sattrack: node_modules/.installed data/snapshot.json $(shell find src -type f) package.json
	$(BUN) build src/main.ts --compile --minify --bytecode --format=esm \
		--no-compile-autoload-dotenv --no-compile-autoload-bunfig --outfile dist/sattrack

# 64-bit Raspberry Pi OS; Bun fetches the arm64 runtime from the npm registry.
build-arm64: node_modules/.installed data/snapshot.json
	$(BUN) build src/main.ts --compile --target=bun-linux-arm64 --minify --bytecode --format=esm \
		--no-compile-autoload-dotenv --no-compile-autoload-bunfig --outfile dist/sattrack-linux-arm64

# Independent astronomy references (Skyfield, PyEphem, python-sgp4) from Debian.
deps-test:
	@$(PYTHON_REF) -c 'import skyfield, ephem, sgp4' 2>/dev/null || { \
		echo "installing python3-skyfield python3-ephem python3-sgp4"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-skyfield python3-ephem python3-sgp4 >/dev/null; }

typecheck: node_modules/.installed
	$(BUN) x tsc -p tsconfig.json

test: node_modules/.installed data/snapshot.json deps-test dist/sattrack
	$(BUN) test --timeout 120000

clean:
	rm -rf dist node_modules .tools data/*.tle data/snapshot.json

# Two commands set everything up: `make run` and `make test`.
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.installed

.PHONY: run test bench build deps clean

$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(NODE_MODULES_STAMP)
	@bash scripts/ensure-system-deps.sh

build: deps
	npx tsc -b

run: build
	node dist/src/cli/main.js serve $(ARGS)

test: build
	npx mocha

bench: build
	node dist/bench/main.js

clean:
	rm -rf dist

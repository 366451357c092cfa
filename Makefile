# Two commands set everything up: `make run` and `make test`.
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.installed

.PHONY: run test imports bench soak build deps crds manifests chart-check control-plane control-plane-stop s3 s3-stop image clean

$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(NODE_MODULES_STAMP)
	@bash scripts/ensure-system-deps.sh

# tsc, then the pod agent bundled (package.json's bundle:pod-agent: an entry and one chunk): pods start faster with it.
build: deps
	npx tsc -b
	@npm run --silent bundle:pod-agent

# `browserfn serve` with the embedded store; ARGS="--port 8080" passes flags through.
run: build
	node dist/src/cli/main.js serve $(ARGS)

# Every test. The Kubernetes suites need the test control plane and the artifact-store suites an
# S3 server: both are built from Go modules when missing (cached in .cache/controlplane and
# .cache/versitygw), started here and stopped afterwards. The image test needs `make image` (about
# 5 minutes cold, 20 s with its base cached): a failed image build stops `make test`.
test: build imports image
	@bash scripts/controlplane/start.sh || echo "make test: the test control plane did not start; the Kubernetes suites will say why"
	@bash scripts/s3/start.sh || echo "make test: the test S3 server did not start; the S3 suites will say why"
	@status=0; bash scripts/chart/check.sh || status=$$?; npx mocha || status=$$?; bash scripts/s3/stop.sh || true; bash scripts/controlplane/stop.sh || true; exit $$status

# The import rules of docs/architecture.md, checked by dependency-cruiser (.dependency-cruiser.cjs).
imports: deps
	@npx depcruise --config .dependency-cruiser.cjs --output-type err-long src bench scripts || { echo "make: an import breaks the rules in docs/architecture.md (\"Import rules\"); fix the import or move the shared code below both folders"; exit 1; }

bench: build
	node dist/bench/main.js $(ARGS)

# An hour of mixed publish, invoke and fetch against `serve`, reporting every 5 minutes (not part of
# `make test`); ARGS="--minutes 10 --report-minutes 1" for a shorter one.
soak: build
	node dist/bench/soak.js $(ARGS)

# Regenerates crds/*.yaml from the JSON Schemas in src/schemas (a test checks they match), and the
# chart's copy in charts/browserfn/crds (make chart-check fails when it differs).
crds: deps
	npx esbuild scripts/generate-crds.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/scripts/generate-crds.mjs --log-level=warning
	node dist/scripts/generate-crds.mjs
	node dist/scripts/generate-crds.mjs charts/browserfn/crds

# Renders deploy/manifests/ from the chart's default values (helm built by scripts/chart/build.sh).
manifests:
	bash scripts/chart/manifests.sh

# The chart checked on the test control plane (scripts/chart/check.sh: lint, render, kubeconform,
# bad values, dry-run, install and `kubectl auth can-i` of each ServiceAccount); make test runs it too.
chart-check: deps
	@bash scripts/controlplane/start.sh
	bash scripts/chart/check.sh

control-plane:
	bash scripts/controlplane/start.sh

control-plane-stop:
	bash scripts/controlplane/stop.sh

# The test S3 server (versitygw) on 127.0.0.1; credentials in .cache/versitygw/run/s3.env.
s3:
	bash scripts/s3/start.sh

s3-stop:
	bash scripts/s3/stop.sh

# The image of deploy/Dockerfile without a Docker daemon: .cache/image/browserfn-<version>.oci.tar
# (docs/image.md). Debian's mmdebstrap, umoci, skopeo and runc are installed when missing.
image: build
	@bash scripts/image/ensure-tools.sh
	bash scripts/image/build.sh

clean:
	rm -rf dist

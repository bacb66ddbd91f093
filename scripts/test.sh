#!/usr/bin/env bash
# The test command: vet and the linters, then every test, the Docker
# integration tests included (GATEWAYBENCH_DOCKER=1 makes them fail, not
# skip, when no engine answers).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
go vet ./...
scripts/lint.sh
# -p 1: packages run one at a time, so the timing tests (stream gaps, the
# coordinated-omission stall) never share the 2 cores with a Docker run.
GATEWAYBENCH_DOCKER=1 go test -p 1 -count=1 -timeout 25m ./...

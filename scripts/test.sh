#!/usr/bin/env bash
# The test command: vet, then every test, the Docker integration tests included
# (GATEWAYBENCH_DOCKER=1 makes them fail, not skip, when no engine answers).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
go vet ./...
GATEWAYBENCH_DOCKER=1 go test -count=1 -timeout 15m ./...

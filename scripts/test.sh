#!/usr/bin/env bash
# The test command: vet, then every test, the Docker integration tests included
# (GATEWAYBENCH_DOCKER=1 makes them fail, not skip, when no engine answers).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/sbin/nginx ]; then
  # The Docker integration tests build the nginx stack from Debian's nginx.
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null
fi
source scripts/docker-up.sh
go vet ./...
GATEWAYBENCH_DOCKER=1 go test -count=1 -timeout 15m ./...

#!/usr/bin/env bash
# Make sure a Docker engine answers: install Debian's docker.io when dockerd is
# missing, start dockerd in the background when nothing answers, and wait for
# it. Sourced by scripts/test.sh and scripts/run.sh; when this script started
# dockerd it stops it again on exit, so nothing is left running.
set -euo pipefail

engine_answers() { docker version >/dev/null 2>&1; }

if ! engine_answers; then
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "docker-up: installing Debian's docker.io" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq docker.io >/dev/null
  fi
  echo "docker-up: starting dockerd" >&2
  dockerd >"${TMPDIR:-/tmp}/gatewaybench-dockerd.log" 2>&1 &
  GATEWAYBENCH_DOCKERD_PID=$!
  trap 'kill "$GATEWAYBENCH_DOCKERD_PID" 2>/dev/null; wait "$GATEWAYBENCH_DOCKERD_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 120); do
    engine_answers && break
    if ! kill -0 "$GATEWAYBENCH_DOCKERD_PID" 2>/dev/null; then
      echo "docker-up: dockerd exited; its log:" >&2
      tail -20 "${TMPDIR:-/tmp}/gatewaybench-dockerd.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  engine_answers || { echo "docker-up: dockerd did not answer within 60s" >&2; exit 1; }
fi
echo "docker-up: engine $(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})')" >&2

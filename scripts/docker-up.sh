#!/usr/bin/env bash
# Make sure a Docker engine answers: install Debian's docker.io when dockerd is
# missing, start dockerd in the background when nothing answers, and wait for
# it. Sourced by scripts/test.sh and scripts/bench.sh; when this script started
# dockerd it stops it again on exit, so nothing is left running.
set -euo pipefail

engine_answers() { docker version >/dev/null 2>&1; }

# The gateways' system calls are counted on the tracepoint
# raw_syscalls:sys_enter (runner/usage/work.go), which needs tracefs; a
# fresh machine may not have it mounted. Left mounted: a mount is no
# process, and a later run needs it again.
if ! mountpoint -q /sys/kernel/tracing 2>/dev/null && [ -d /sys/kernel/tracing ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    echo "docker-up: tracefs could not be mounted: the gateways' system calls will not be counted" >&2
fi
# docker_down stops the engine this script started (none: nothing to do); a
# script that sets its own EXIT trap after sourcing this one calls it.
docker_down() { :; }

if ! engine_answers; then
  "$(dirname "${BASH_SOURCE[0]}")/docker-install.sh"
  echo "docker-up: starting dockerd" >&2
  dockerd >"${TMPDIR:-/tmp}/gatewaybench-dockerd.log" 2>&1 &
  GATEWAYBENCH_DOCKERD_PID=$!
  docker_down() { kill "$GATEWAYBENCH_DOCKERD_PID" 2>/dev/null || true; wait "$GATEWAYBENCH_DOCKERD_PID" 2>/dev/null || true; }
  trap docker_down EXIT
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

#!/usr/bin/env bash
# Install Debian's docker.io when dockerd is missing (a fresh machine), and
# nothing else: scripts/docker-up.sh starts the engine. scripts/test.sh runs
# this in the background while the Go code compiles, since on a fresh
# machine it is mostly downloads.
set -euo pipefail
command -v dockerd >/dev/null 2>&1 && exit 0
echo "docker-install: installing Debian's docker.io" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq docker.io >/dev/null

#!/usr/bin/env bash
# The main job on a fresh machine: install what the stacks need (Docker engine,
# Debian's nginx for the nginx stack), start dockerd if nothing answers, then
# run `runner apply` on benchmarks.hcl (or the file and flags given).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/sbin/nginx ]; then
  echo "bench: installing Debian's nginx-light (the nginx stack is built from it)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null
fi
source scripts/docker-up.sh
if [ $# -eq 0 ]; then
  set -- benchmarks.hcl
fi
go run ./runner apply "$@"

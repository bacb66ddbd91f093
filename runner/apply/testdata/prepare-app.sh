#!/usr/bin/env bash
# Build testdata/NAME as a static binary into a FROM scratch build context.
set -euo pipefail
cd "$(dirname "$0")"
name=$1
mkdir -p "ctx/$name"
CGO_ENABLED=0 go build -o "ctx/$name/app" "./$name"
printf 'FROM scratch\nCOPY app /app\nENTRYPOINT ["/app"]\n' >"ctx/$name/Dockerfile"

#!/usr/bin/env bash
# golangci-lint, at the version pinned in tools/go.mod (its own module, so
# the linter's dependencies stay out of ours), with .golangci.yml: the
# Docker SDK kept inside runner/stack/docker, govet, staticcheck, errcheck,
# unused, gofmt. The test command runs it; so does CI.
set -euo pipefail
cd "$(dirname "$0")/.."
go tool -modfile=tools/go.mod golangci-lint run ./...

#!/usr/bin/env bash
# The test command: the linters (golangci-lint's govet runs go vet's
# analyzers, so go vet is not run twice), then every test, the Docker
# integration tests included (GATEWAYBENCH_DOCKER=1 makes them fail, not
# skip, when no engine answers).
#
# On a fresh machine most of the time is installs and builds, so what does
# not wait on the other runs side by side: Docker is installed while the Go
# code compiles, and the images the Docker tests use are built (runner
# build, the code apply runs first) while the linters run. A
# broken build recipe fails here. The tests start when both are done, so
# nothing they measure shares the cores with a build.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
say() { echo "test.sh: $* ($((SECONDS - t0))s)" >&2; }

scripts/docker-install.sh &
install=$!
go build ./...
wait "$install"
source scripts/docker-up.sh
say "Go code compiled, Docker engine up"

# The images of the Docker tests' files; the others use these too. In a
# session of its own, so a failure here stops the whole build.
log=$(mktemp)
setsid bash -c 'for f in docker ai litellm; do go run ./runner build "runner/apply/testdata/$f.hcl" || exit 1; done' >"$log" 2>&1 &
builds=$!
cleanup() {
  kill -- -"$builds" 2>/dev/null || true
  wait "$builds" 2>/dev/null || true
  rm -f "$log"
  docker_down
}
trap cleanup EXIT

scripts/lint.sh
say "linters passed"
if ! wait "$builds"; then
  cat "$log" >&2
  say "an image the tests use did not build (above)"
  exit 1
fi
grep -E "built image|image\(s\) (ready|built)" "$log" | sed 's/^/test.sh: /' >&2 || true
say "the tests' images ready"

# -p 1: packages run one at a time, so the timing tests (stream gaps, the
# coordinated-omission stall) never share the 2 cores with a Docker run.
GATEWAYBENCH_DOCKER=1 go test -p 1 -count=1 -timeout 25m ./...
# Every parser fuzzed briefly on every run, from the committed corpora
# (testdata/fuzz) plus what the fuzzer finds in 5 s; a longer hunt is
# `go test -run '^$' -fuzz '^FuzzOpen$' -fuzztime 10m ./runner/plan` (README, "Tests").
# A failing target's output is shown: a CI run once exited 1 here with
# nothing said, the output having gone to /dev/null.
# Go's fuzzer can end a time-bounded run with "context deadline exceeded"
# and no failing input (seen on FuzzParseCPUs on a clean clone, 2026-12-06):
# that target gets one more run; a failing input, or a second failure,
# fails the script.
fuzzlog=$(mktemp)
fuzz() { go test -run '^$' -fuzz "^${1#*:}\$" -fuzztime 5s "${1%%:*}" >"$fuzzlog" 2>&1; }
for target in ./mock/script:FuzzParse ./runner/config:FuzzParse ./runner/load/httpc:FuzzSSE ./runner/usage:FuzzParseCPUs ./runner/plan:FuzzOpen ./runner/work:FuzzParse; do
  if ! fuzz "$target" && { ! grep -q 'context deadline exceeded' "$fuzzlog" || grep -q 'Failing input written' "$fuzzlog" || ! fuzz "$target"; }; then
    cat "$fuzzlog" >&2
    say "fuzzing ${target#*:} in ${target%%:*} failed (above)"
    exit 1
  fi
done
rm -f "$fuzzlog"
say "all tests passed, every parser fuzzed"

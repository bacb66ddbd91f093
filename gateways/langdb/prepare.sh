#!/usr/bin/env bash
# The LangDB AI gateway image's build context, from the Rust crate registry
# and Debian only: the crate's `ai-gateway` binary built by `cargo install`
# at one pinned version with its own Cargo.lock (--locked) and the
# RUSTFLAGS its README gives, into build/ (kept: a second run finds it
# installed and returns at once), then the binary and its library closure
# FROM scratch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/build" version=0.3.2
if ! command -v cargo >/dev/null; then
  echo "prepare: ai-gateway $version needs cargo (e.g. from rustup); none is on PATH" >&2
  exit 1
fi
mkdir -p "$build"
# The two cfg flags are the crate README's install command: its tracing and
# AWS SDK dependencies compile unstable APIs it uses only behind them.
RUSTFLAGS="--cfg tracing_unstable --cfg aws_sdk_unstable" CARGO_TARGET_DIR="$build/target" \
  cargo install ai-gateway --version "$version" --locked --root "$build" --quiet
"$here/../debian-closure.sh" "$here/context" - "$build/bin/ai-gateway:/ai-gateway"

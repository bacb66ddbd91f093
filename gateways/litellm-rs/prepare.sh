#!/usr/bin/env bash
# The litellm-rs image's build context, from the Rust crate registry and
# Debian only: the crate's `gateway` binary built by `cargo install` at one
# pinned version with its own Cargo.lock (--locked), SQLite storage feature
# (the binary requires a storage feature; this arm runs with the database
# off), into build/ (kept: a second run finds it installed and returns at
# once), then the binary and its library closure FROM scratch. The first
# build takes about 17 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/build" version=0.9.0
if ! command -v cargo >/dev/null; then
  echo "prepare: litellm-rs $version needs cargo (Rust 1.91.1 or later, e.g. from rustup); none is on PATH" >&2
  exit 1
fi
mkdir -p "$build"
CARGO_TARGET_DIR="$build/target" cargo install litellm-rs --version "$version" --locked \
  --bin gateway --features sqlite --root "$build" --quiet
"$here/../debian-closure.sh" "$here/context" - "$build/bin/gateway:/gateway"

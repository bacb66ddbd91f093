#!/usr/bin/env bash
# Usage: gateways/cargo-closure.sh DIR CRATE VERSION BINARY [CARGO-INSTALL-ARG...]
#
# A gateway's image build context from the Rust crate registry and Debian
# only: CRATE's BINARY built by `cargo install` at VERSION with the crate's
# own Cargo.lock (--locked) into DIR/build (kept: a second run finds it
# installed and returns at once), then the binary and its library closure
# FROM scratch in DIR/context (debian-closure.sh), entrypoint /BINARY. The
# further arguments go to cargo install; RUSTFLAGS comes from the caller.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 DIR CRATE VERSION BINARY [CARGO-INSTALL-ARG...]" >&2
  exit 2
fi
dir=$1 crate=$2 version=$3 bin=$4
shift 4
if ! command -v cargo >/dev/null; then
  echo "prepare: $crate $version needs cargo (e.g. from rustup); none is on PATH" >&2
  exit 1
fi
mkdir -p "$dir/build"
CARGO_TARGET_DIR="$dir/build/target" cargo install "$crate" --version "$version" --locked "$@" --root "$dir/build" --quiet
"$(dirname "$0")/debian-closure.sh" "$dir/context" - "$dir/build/bin/$bin:/$bin"

#!/usr/bin/env bash
# Runs every test of ptxas-rs: formatting, lints, unit, corpus, snapshot, generated-form,
# robustness and CLI tests, and a build of the fuzz target. Needs only Rust (rustup's stable
# toolchain with rustfmt and clippy) and the reference material in ../shared.
set -euo pipefail
cd "$(dirname "$0")"

shared="${PTXAS_SHARED:-../shared}"
if [ ! -d "$shared/corpus" ]; then
    echo "test-all: the reference corpus is missing: $shared/corpus (set PTXAS_SHARED)" >&2
    exit 1
fi
for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
        rustup component add "$component"
    fi
done

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# The fuzz target is built by cargo-fuzz, outside the workspace; keep it compiling.
cargo check --manifest-path fuzz/Cargo.toml

# Library, binary and integration tests (there are no doc tests; benches run by hand).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --lib --bins --tests 2>&1 | tee "$log"
passed=$(grep -o '[0-9]* passed' "$log" | awk '{n += $1} END {print n + 0}')
failed=$(grep -o '[0-9]* failed' "$log" | awk '{n += $1} END {print n + 0}')
echo "test-all: $passed passed, $failed failed"

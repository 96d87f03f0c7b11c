#!/usr/bin/env bash
# Runs every test of ptxas-rs: formatting, lints, generated-file drift, RTL lint, unit,
# corpus, snapshot, generated-form, robustness and CLI tests, and a build of the fuzz target.
# Needs Rust (rustup's stable toolchain with rustfmt and clippy), the reference material in
# ../shared, Verilator, g++ and make (for the RTL tests), yosys (which must read the RTL too)
# with python3 (its area report) and nextpnr-ice40 (the clock estimate), and clang-16 (for
# `ptxas-rs cuda`), which it installs with apt-get when they are missing.
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

# The RTL tests build with Verilator, which compiles its C++ with g++ and make; yosys reads
# the same RTL (python3 reports its coarse netlist, and nextpnr-ice40 places and routes a
# unit for its clock); tests/cuda.rs compiles CUDA C with Debian's clang-16.
missing=()
for tool in verilator:verilator g++:g++ make:make yosys:yosys python3:python3 \
    nextpnr-ice40:nextpnr-ice40 clang-16:clang-16; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "test-all: installing ${missing[*]}" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "test-all: ${missing[*]} missing, and installing needs root (apt-get install ${missing[*]})" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# What the checkout holds before the tests, to check that they leave it as it was.
checkout_before=$(git status --porcelain 2>/dev/null || true)

cargo fmt --all --check
# The Verilator libraries of hw/ (the core in 8 configurations and its gate-level netlist,
# two units, Verilator's runtime) come first, on their own, so that their progress shows:
# cargo shows a build script's output only with -vv, of which this keeps the build
# script's lines. They are minutes of g++ whenever the RTL or the harness's C++ changed
# (through ccache when it is installed), and nothing otherwise: every profile and clippy
# take them from $target/sgpu-models, kept by content hash.
target="${CARGO_TARGET_DIR:-target}"
echo "test-all: the Verilator models of hw/: reused from $target/sgpu-models, or built if the RTL changed (about 13 minutes on 2 cores)" >&2
models_log=$(mktemp)
trap 'rm -f "$models_log"' EXIT
started=$SECONDS
if ! cargo build -p rtl-tests --lib -vv 2>&1 | tee "$models_log" \
    | sed -un 's/^\[rtl-tests [^]]*\] \(building\|built\|synthesising\)/test-all:   \1/p' >&2; then
    tail -n 60 "$models_log" >&2
    echo "test-all: building the Verilator models failed (the lines above)" >&2
    exit 1
fi
echo "test-all: the Verilator models are ready ($((SECONDS - started)) s)" >&2
cargo clippy --workspace --all-targets -- -D warnings
# Files generated from the ISA table must match it.
cargo xtask codegen --check
# The RTL, lint-clean under -Wall (narrow waivers in hw/lint/verilator_waiver.vlt), and read
# by yosys alike.
hw/lint.sh
hw/synth/yosys_check.sh
# The area and clock tools keep working (the whole core's area takes minutes, a unit's
# clock most of one: by hand).
hw/synth/coarse.sh --top sgpu_atom_alu --rows 3 > /dev/null
hw/synth/fmax.sh --top sgpu_tid_step > /dev/null
# The fuzz target is built by cargo-fuzz, outside the workspace; keep it compiling.
cargo check --manifest-path fuzz/Cargo.toml

# Library, binary and integration tests (there are no doc tests; benches run by hand).
log=$(mktemp)
trap 'rm -f "$log" "$models_log"' EXIT
cargo test --workspace --lib --bins --tests 2>&1 | tee "$log"
passed=$(grep -o '[0-9]* passed' "$log" | awk '{n += $1} END {print n + 0}')
failed=$(grep -o '[0-9]* failed' "$log" | awk '{n += $1} END {print n + 0}')
echo "test-all: $passed passed, $failed failed"
# The tests and the builds write only into the target folder and temporary folders.
checkout_after=$(git status --porcelain 2>/dev/null || true)
if [ "$checkout_before" != "$checkout_after" ]; then
    echo "test-all: the run changed the checkout:" >&2
    diff <(echo "$checkout_before") <(echo "$checkout_after") >&2 || true
    exit 1
fi

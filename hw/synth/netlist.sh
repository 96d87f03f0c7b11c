#!/usr/bin/env bash
# Writes the core's gate-level netlist, with its retirement port, for the gate-level
# co-simulation (docs/cosim.md, "Gate level"): yosys reads the RTL as synthesis does, with
# SGPU_COSIM defined, flattens it, maps the logic to generic gates and flip-flops ($_AND_,
# $_MUX_, $_DFFE_PP_...) through ABC, and writes it as Verilog that Verilator builds in place
# of the RTL. A netlist that runs differently from the RTL is yosys reading the RTL otherwise
# than Verilator does.
#
#   synth/netlist.sh OUT.v [--top MODULE] [PARAMETER=VALUE ...] [-- SOURCE ...]
#   synth/netlist.sh /tmp/core.v LANES=1 WARPS=1
#   synth/netlist.sh /tmp/alu.v --top sgpu_int_alu
#
# MODULE is sgpu_core unless given.
# The memories (code, registers, reconvergence stacks) stay memories (`memory -nomap`), as a
# vendor flow maps them to block RAM: as flip-flops and multiplexers they would be millions
# of gates. The sources are those of files.f unless given (rtl-tests' build gives its
# snapshot of them). About two minutes for the smallest core, one yosys process.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUT.v [--top MODULE] [PARAMETER=VALUE ...] [-- SOURCE ...]" >&2; exit 2; }
out=$(realpath "$1")
shift
params=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    params+=("$1")
    shift
done
[ $# -eq 0 ] || shift
given=("$@")
cd "$(dirname "$0")/.."
source synth/common.sh
command -v yosys >/dev/null || { echo "$0: needs yosys 0.23 or later (apt-get install -y yosys)" >&2; exit 1; }
if [ ${#given[@]} -gt 0 ]; then
    # Given sources in files.f's order: the packages are those that declare one.
    packages=()
    sources=()
    for f in "${given[@]}"; do
        if grep -q '^package ' "$f"; then packages+=("$f"); else sources+=("$f"); fi
    done
fi
top=sgpu_core
top_and_params "${params[@]}"
[ ${#rest[@]} -eq 0 ] || { echo "$0: not --top or PARAMETER=VALUE: ${rest[*]}" >&2; exit 2; }
chparam=""
[ -z "$setparams" ] || chparam="chparam$setparams $top;"

log=$(mktemp)
trap 'rm -f "$log" "$out.tmp"' EXIT
# synth's script up to its fine-grained mapping, then that mapping without memory_map.
if ! yosys -q -l "$log" -p "
    $read -DSGPU_COSIM ${packages[*]} ${sources[*]}
    $chparam
    synth -flatten -top $top -run begin:fine
    opt -fast -full; techmap; opt -fast; abc -fast; opt -fast
    rename -top $top
    hierarchy -check; check -assert
    write_verilog -noattr $out.tmp" >/dev/null 2>&1; then
    echo "$0: yosys failed: $(first_error "$log")" >&2
    exit 1
fi
mv "$out.tmp" "$out"

#!/usr/bin/env bash
# Where a module's LUTs come from, before they are LUTs: synthesises MODULE to yosys's coarse
# netlist (`synth -run begin:fine`: word-level multiplexers, comparisons, adders, flip-flops,
# not yet mapped to cells) and prints two tables from it (coarse_report.py): the multiplexer
# bits in front of each register, and the cells of each source line, weighted by a rough
# count of the LUTs they become. The big rows name what to rewrite (hw/README.md has the two
# rules this found); area.sh measures the result.
#
#   synth/coarse.sh [--top MODULE] [--rows N] [PARAMETER=VALUE ...]
#
# MODULE is sgpu_core unless given; its submodules stay cells of their own. Seconds for a
# leaf module, about two minutes for the default core. Needs yosys 0.23 or later and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

usage() {
    echo "usage: $0 [--top MODULE] [--rows N] [PARAMETER=VALUE ...]" >&2
    exit 2
}

top=sgpu_core
rows=25
top_and_params "$@" || usage
set -- "${rest[@]}"
while [ $# -gt 0 ]; do
    case $1 in
        --rows)
            [ $# -ge 2 ] || usage
            rows=$2
            shift 2
            ;;
        *) usage ;;
    esac
done

readable_sources
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! yosys -q -l "$work/log" -p "$read ${packages[*]} ${readable[*]};
        $(elaborate_cmd "$top" "$setparams"); synth -run begin:fine -top $top;
        write_json $work/coarse.json" > /dev/null 2>&1; then
    echo "coarse: yosys failed on $top: $(first_error "$work/log")" >&2
    exit 1
fi
python3 synth/coarse_report.py "$work/coarse.json" "$top" "$rows"

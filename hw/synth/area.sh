#!/usr/bin/env bash
# Synthesises a module of files.f with yosys for an FPGA family and prints its cells: LUTs,
# flip-flops, block RAM and DSP blocks, each with the cell types counted, then the rest.
#
#   synth/area.sh ice40|xilinx|ecp5 [--top MODULE] [--hier] [PARAMETER=VALUE ...]
#   synth/area.sh ice40 LANES=1 WARPS=1
#   synth/area.sh xilinx --top sgpu_int_alu
#   synth/area.sh ecp5 --top sgpu_int_alu SHARED_OPS=0
#   synth/area.sh ice40 --hier
#
# MODULE is sgpu_core unless given; parameters override the top's defaults. --hier
# synthesises each module on its own (not flattened: a module instantiated several times,
# such as a lane's ALU, is synthesised once) and adds a row per module, its LUTs and
# flip-flops for one instance and the instances; the totals count every instance. The
# default core needs it: flattened, its netlist (over 500,000 gates) keeps ABC busy for
# longer than an hour here, while hierarchically it takes minutes. ice40 is
# `synth_ice40 -dsp`: multipliers into SB_MAC16, which the iCE40 UltraPlus parts have.
# xilinx is `synth_xilinx` for 7-series (LUT6, DSP48E1, RAMB18E1/RAMB36E1), flattened and
# without I/O buffers, as for a block inside a larger design. ecp5 is `synth_ecp5` for the
# ECP5 (LUT4, TRELLIS_FF, DP16KD block RAM and TRELLIS_DPR16X4 LUT RAM, MULT18X18D; the rest
# counts the carry cells, CCU2C, and the wide-LUT multiplexers PFUMX and L6MUX21, which take
# no LUT), with a last row, LUT+cy, of every LUT4 of the slices: a CCU2C is two. It runs
# YoWASP's yosys, which synth/ecp5-tools.sh installs on first use. Needs yosys 0.23 or later
# (ice40, xilinx), or python3 and PyPI (ecp5); one yosys process (with ABC), seconds for a
# leaf module, minutes for the core (hw/README.md, "The ECP5 flow", has ecp5's times).
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

usage() {
    echo "usage: $0 ice40|xilinx|ecp5 [--top MODULE] [--hier] [PARAMETER=VALUE ...]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
target=$1
shift
top=sgpu_core
hier=""
top_and_params "$@" || usage
for arg in "${rest[@]}"; do
    case $arg in
        --hier) hier=1 ;;
        *) usage ;;
    esac
done
given="${hier:+ --hier}$given"

# The synthesis command, and the cell types of each row of the table (shell patterns).
case $target in
    ice40)
        synth="synth_ice40 -dsp${hier:+ -noflatten} -top $top"
        lut=('SB_LUT4')
        ff=('SB_DFF*')
        bram=('SB_RAM40_4K*')
        dsp=('SB_MAC16')
        ;;
    xilinx)
        synth="synth_xilinx$([ -n "$hier" ] || echo ' -flatten') -noiopad -noclkbuf -top $top"
        lut=('LUT[1-6]')
        ff=('FD*')
        # Block RAM, and the LUT RAM (RAM32M, RAM64X1D and the like) of small memories.
        bram=('RAMB18E1' 'RAMB36E1' 'RAM*')
        dsp=('DSP48E1')
        ;;
    ecp5)
        use_ecp5_tools
        synth="synth_ecp5${hier:+ -noflatten} -top $top"
        lut=('LUT4')
        ff=('TRELLIS_FF')
        # Block RAM, and the LUT RAM of small memories.
        bram=('DP16KD' 'TRELLIS_DPR16X4')
        dsp=('MULT18X18D' 'ALU54B')
        ;;
    *) usage ;;
esac

readable_sources
for f in "${!unreadable[@]}"; do
    echo "area: left out $f, which yosys cannot read: ${unreadable[$f]}" >&2
done

elaborate=$(elaborate_cmd "$top" "$setparams")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$EPOCHREALTIME
if ! "$yosys" -q -l "$work/log" -p "$read ${packages[*]} ${readable[*]};
        $elaborate; $synth; tee -q -o $work/stat stat" >/dev/null 2>&1; then
    echo "area: yosys failed on $top for $target:" >&2
    grep 'ERROR' "$work/log" >&2 || tail -20 "$work/log" >&2
    exit 1
fi
seconds=$(since "$start")

# The cell counts of the whole design, from the last list of cells (the flattened top's, or
# with --hier the design hierarchy's, which counts every instance). yosys 0.23 writes
# "Number of cells: 1234" and a line "SB_LUT4 1000" a type; later ones "1234 cells" and
# "1000 LUT4", then their submodules after a line "2 submodules", and they keep a $scopeinfo
# cell (no logic: the name of a flattened instance) that is left out here.
# shellcheck disable=SC2016  # awk's $1 and $2
stat_awk='
    function pair() {
        if (NF != 2) return 0
        if ($2 ~ /^[0-9]+$/) { name = $1; n = $2; return 1 }
        if ($1 ~ /^[0-9]+$/) { name = $2; n = $1; return 1 }
        return 0
    }
    /Number of cells/ || (pair() && name == "cells") { cells = 1; begin_cells(); next }
    cells && (/^[[:space:]]*$/ || (pair() && name == "submodules")) { cells = 0 }
    cells && pair() && name != "$scopeinfo" { cell(name, n) }'
awk "$stat_awk"'
    function begin_cells() { k = 0 }
    function cell(name, n) { line[++k] = name " " n }
    END { for (i = 1; i <= k; i++) print line[i] }' "$work/stat" > "$work/cells"

echo "$top$given on $target (${synth% -top *}): $seconds s"
declare -A counted=()
# One row: the cells of the given types not counted in an earlier row, their total and each.
row() {
    local name=$1 total=0 detail="" cell n pattern
    shift
    while read -r cell n; do
        for pattern in "$@"; do
            # shellcheck disable=SC2053  # a pattern, to match
            if [[ $cell == $pattern && -z ${counted[$cell]:-} ]]; then
                counted[$cell]=1
                total=$((total + n))
                detail+="  $cell $n"
            fi
        done
    done < "$work/cells"
    printf '  %-6s %7d%s\n' "$name" "$total" "$detail"
}
row LUT "${lut[@]}"
row FF "${ff[@]}"
row BRAM "${bram[@]}"
row DSP "${dsp[@]}"
row other '*'
# On ECP5, every LUT4 of the slices: a CCU2C is two, with their carry logic, and nextpnr
# counts each half as a TRELLIS_COMB, as it does a LUT4.
if [ "$target" = ecp5 ]; then
    awk '$1 == "LUT4" { l = $2 } $1 == "CCU2C" { c = $2 }
         END { printf "  %-6s %7d  LUT4 %d + 2 x CCU2C %d (TRELLIS_COMB)\n",
                      "LUT+cy", l + 2 * c, l, c }' \
        "$work/cells"
fi

# With --hier, a row per module: its instances, and one instance's LUTs, flip-flops and block
# RAM (a parameterised module's name without yosys's $paramod prefix and parameters). A
# module's instances are counted from its parents' lists of cells (yosys 0.23 lists a
# submodule among the cell types) or of submodules (later ones).
[ -n "$hier" ] || exit 0
glob_re() {
    local p re=""
    for p in "$@"; do re+="${re:+|}^${p//\*/.*}\$"; done
    echo "$re"
}
echo "  per module (instances: LUT FF BRAM each)"
awk -v lut="$(glob_re "${lut[@]}")" -v ff="$(glob_re "${ff[@]}")" \
    -v bram="$(glob_re "${bram[@]}")" "$stat_awk"'
    function short(m) { sub(/^\$paramod[^\\]*\\/, "", m); sub(/\\.*/, "", m); return m }
    /^=== design hierarchy ===/ { module = ""; done = 1; next }
    /^=== / && !done { module = $2; order[++nm] = module; next }
    module != "" && !cells && pair() && name != "submodules" { cell(name, n) }
    function begin_cells() { }
    function cell(name, n) {
        if (module == "") return
        if (name ~ lut) l[module] += n
        else if (name ~ ff) f[module] += n
        else if (name ~ bram) b[module] += n
        else { inside[module, name] = n; child[name] = 1 }
    }
    function instances(m,    i, total) {
        if (!(m in child)) return 1
        total = 0
        for (i = 1; i <= nm; i++)
            if ((order[i], m) in inside) total += instances(order[i]) * inside[order[i], m]
        return total
    }
    END {
        for (i = 1; i <= nm; i++) {
            m = order[i]
            printf "    %-18s %3d: %7d %6d %5d\n", short(m), instances(m), l[m], f[m], b[m]
        }
    }' "$work/stat"

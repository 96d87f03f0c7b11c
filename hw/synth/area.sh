#!/usr/bin/env bash
# Synthesises a module of files.f with yosys for an FPGA family and prints its cells: LUTs,
# flip-flops, block RAM and DSP blocks, each with the cell types counted, then the rest.
#
#   synth/area.sh ice40|xilinx [--top MODULE] [--hier] [PARAMETER=VALUE ...]
#   synth/area.sh ice40 LANES=1 WARPS=1
#   synth/area.sh xilinx --top sgpu_int_alu
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
# without I/O buffers, as for a block inside a larger design. Needs yosys 0.23 or later; one
# yosys process (with ABC), seconds for a leaf module, minutes for the core.
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

usage() {
    echo "usage: $0 ice40|xilinx [--top MODULE] [--hier] [PARAMETER=VALUE ...]" >&2
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
if ! yosys -q -l "$work/log" -p "$read ${packages[*]} ${readable[*]};
        $elaborate; $synth; tee -q -o $work/stat stat" >/dev/null 2>&1; then
    echo "area: yosys failed on $top for $target:" >&2
    grep 'ERROR' "$work/log" >&2 || tail -20 "$work/log" >&2
    exit 1
fi
seconds=$(since "$start")

# The cell counts of the whole design: "     SB_LUT4     1234" after the last "Number of
# cells" (the flattened top's, or with --hier the design hierarchy's, which counts every
# instance).
awk '/Number of cells/ { n = 0; on = 1; next }
     on && NF == 2 && $2 ~ /^[0-9]+$/ { cell[++n] = $1 " " $2 }
     END { for (i = 1; i <= n; i++) print cell[i] }' "$work/stat" > "$work/cells"

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

# With --hier, a row per module: its instances, and one instance's LUTs, flip-flops and block
# RAM (a parameterised module's name without yosys's $paramod prefix and parameters).
[ -n "$hier" ] || exit 0
glob_re() {
    local p re=""
    for p in "$@"; do re+="${re:+|}^${p//\*/.*}\$"; done
    echo "$re"
}
echo "  per module (instances: LUT FF BRAM each)"
awk -v lut="$(glob_re "${lut[@]}")" -v ff="$(glob_re "${ff[@]}")" \
    -v bram="$(glob_re "${bram[@]}")" '
    function short(m) { sub(/^\$paramod[^\\]*\\/, "", m); sub(/\\.*/, "", m); return m }
    /^=== design hierarchy ===/ { listing = 1; module = ""; next }
    /^=== / { module = $2; order[++n] = module; next }
    listing && /Number of wires/ { listing = 0 }
    listing && NF == 2 && $2 ~ /^[0-9]+$/ { count[$1] = $2 }
    module != "" && NF == 2 && $2 ~ /^[0-9]+$/ {
        if ($1 ~ lut) l[module] += $2
        else if ($1 ~ ff) f[module] += $2
        else if ($1 ~ bram) b[module] += $2
    }
    END {
        for (i = 1; i <= n; i++) {
            m = order[i]
            printf "    %-18s %3d: %7d %6d %5d\n", short(m), count[m] ? count[m] : 1, l[m], f[m], b[m]
        }
    }' "$work/stat"

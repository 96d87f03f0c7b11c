#!/usr/bin/env bash
# Estimates the maximum clock frequency of a combinational module of files.f on an iCE40
# UltraPlus (up5k, the family with the DSP blocks area.sh's ice40 counts use): yosys
# `synth_ice40 -dsp` and nextpnr-ice40's place and route, with the module between registers
# (fmax_wrap.py writes the wrapper), and prints nextpnr's figure.
#
#   synth/fmax.sh [--top MODULE] [--seed N] [--no-dsp] [--tie PORT]... [PARAMETER=VALUE ...]
#   synth/fmax.sh --top sgpu_video_alu
#   synth/fmax.sh --top sgpu_int_alu SHARED_OPS=0
#   synth/fmax.sh --top sgpu_surface_unit --tie comp_i
#
# The up5k has 5,280 logic cells and 8 DSP blocks. A module too large for it with the
# wrapper (a flip-flop per input and output bit) is measured in parts: --tie PORT ties an
# input port to zero, which leaves out the logic only it drives (the surface unit without
# sust.p's formats, whose sgpu_surface_pack is then measured as a module of its own).
# --no-dsp measures on the larger hx8k (7,680 cells, no DSP blocks, multipliers built of
# LUTs and carry chains), whose figures compare only with other hx8k figures.
#
# MODULE is sgpu_video_alu unless given. The figure moves by a few percent with the placer's
# seed (--seed, 1 unless given): compare modules at the same seed, or over several. Needs
# yosys 0.23 or later, nextpnr-ice40 (Debian's package) and python3; about a minute for a
# lane's ALU.
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

usage() {
    echo "usage: $0 [--top MODULE] [--seed N] [--no-dsp] [--tie PORT]... [PARAMETER=VALUE ...]" >&2
    exit 2
}

top=sgpu_video_alu
seed=1
dsp=-dsp
device=(--up5k --package sg48)
tied=()
top_and_params "$@" || usage
set -- "${rest[@]}"
while [ $# -gt 0 ]; do
    case $1 in
        --seed)
            [ $# -ge 2 ] || usage
            seed=$2
            shift 2
            ;;
        --tie)
            [ $# -ge 2 ] || usage
            tied+=("$2")
            shift 2
            ;;
        --no-dsp)
            dsp=
            device=(--hx8k --package ct256)
            shift
            ;;
        *) usage ;;
    esac
done
for tool in yosys nextpnr-ice40 python3; do
    command -v "$tool" >/dev/null || {
        echo "fmax: $tool is missing (apt-get install -y yosys nextpnr-ice40 python3)" >&2
        exit 1
    }
done

work=$(mktemp -d)
if [ -n "${FMAX_KEEP:-}" ]; then echo "fmax: keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
readable_sources
# The module's ports, elaborated with the parameters given, for the wrapper.
yosys -q -l "$work/ports.log" -p "$read ${packages[*]} ${readable[*]}; \
    $(elaborate_cmd "$top" "$setparams"); proc; write_json $work/ports.json" >/dev/null 2>&1 \
    || { first_error "$work/ports.log" >&2; exit 1; }
python3 synth/fmax_wrap.py "$work/ports.json" "$top" "${tied[@]}" > "$work/fmax_top.sv"
start=$EPOCHREALTIME
yosys -q -l "$work/synth.log" -p "$read ${packages[*]} ${readable[*]} $work/fmax_top.sv; \
    ${setparams:+chparam$setparams $top;} synth_ice40 $dsp -top fmax_top -json $work/top.json" \
    >/dev/null 2>&1 \
    || { first_error "$work/synth.log" >&2; exit 1; }
nextpnr-ice40 "${device[@]}" --json "$work/top.json" --seed "$seed" --freq 12 \
    --timing-allow-fail -l "$work/pnr.log" >/dev/null 2>&1 \
    || { tail -5 "$work/pnr.log" >&2; exit 1; }
# nextpnr 0.4 times a combinational SB_MAC16 as a register clocked by its grounded clock pin
# ($PACKER_GND_NET): a path through a multiplier is reported as two, into the DSP and out of
# it, and the figure counts their longest ones end to end (an upper bound on such a path).
python3 - "$work/pnr.log" "$top" "$seed" "$(since "$start")" <<'PY'
import re, sys
log, top, seed, secs = sys.argv[1:]
text = open(log).read()
def last(pattern):
    found = re.findall(pattern, text)
    return float(found[-1]) if found else None
mhz = last(r"frequency for clock\s+'clk_i[^']*': ([0-9.]+) MHz")
into = last(r"Max delay posedge clk_i\S*\s*-> posedge \$PACKER_GND_NET\S*\s*: ([0-9.]+) ns")
out = last(r"Max delay posedge \$PACKER_GND_NET\S*\s*-> posedge clk_i\S*\s*: ([0-9.]+) ns")
lcs = re.search(r"ICESTORM_LC:\s+(\d+)/", text).group(1)
line = f"{top} on up5k (seed {seed}): between registers {mhz:.1f} MHz"
if into is not None and out is not None:
    dsp = 1000.0 / (into + out)
    line += f", through a multiplier {dsp:.1f} MHz ({into:.1f} + {out:.1f} ns)"
    mhz = min(mhz, dsp)
print(f"{line}: Fmax {mhz:.1f} MHz; {lcs} logic cells ({secs} s)")
PY

#!/usr/bin/env bash
# Estimates the maximum clock frequency of a combinational or pipelined module of files.f
# after place and route, with the module between registers (fmax_wrap.py writes the
# wrapper), and prints nextpnr's figure for the wrapper's clock: on an iCE40 UltraPlus (up5k,
# the family with the DSP blocks area.sh's ice40 counts use) with yosys `synth_ice40 -dsp`
# and nextpnr-ice40, or with --family ecp5 on an ECP5 LFE5U-85F, speed grade 6, CABGA381
# (the ULX3S board's part) with YoWASP's yosys `synth_ecp5` and nextpnr-ecp5.
#
#   synth/fmax.sh [--family ice40|ecp5] [--top MODULE] [--seed N | --seeds N] [--no-dsp]
#                 [--tie PORT]... [PARAMETER=VALUE ...]
#   synth/fmax.sh --top sgpu_video_alu
#   synth/fmax.sh --top sgpu_int_alu SHARED_OPS=0
#   synth/fmax.sh --top sgpu_surface_unit --tie comp_i
#   synth/fmax.sh --family ecp5 --top sgpu_fma --seeds 3
#
# The up5k has 5,280 logic cells and 8 DSP blocks. A module too large for it with the
# wrapper (a flip-flop per input and output bit) is measured in parts: --tie PORT ties an
# input port to zero, which leaves out the logic only it drives (the surface unit without
# sust.p's formats, whose sgpu_surface_pack is then measured as a module of its own).
# --no-dsp measures on the larger hx8k (7,680 cells, no DSP blocks, multipliers built of
# LUTs and carry chains), whose figures compare only with other hx8k figures; with ecp5 it
# builds the multipliers of LUTs and carry chains on the same part (`synth_ecp5 -nodsp`).
# The LFE5U-85F has 83,640 LUT4 (41,820 slices) and 156 MULT18X18D; the module is placed
# out of context, its pins wherever nextpnr puts them.
#
# MODULE is sgpu_video_alu unless given; parameters are set on the wrapper's instance of
# it. The figure moves by a few percent with the placer's seed (--seed N, 1 unless given):
# compare modules at the same seed, or over several: --seeds N places and routes the one
# synthesis with seeds 1 to N one after another, prints each figure, and then their
# minimum, median and maximum. The figure is nextpnr's for a target of 12 MHz (failing it is
# no error). Needs python3, and for ice40 yosys 0.23 or later and nextpnr-ice40 (Debian's
# packages), for ecp5 PyPI on first use (synth/ecp5-tools.sh installs YoWASP's tools). One
# process at a time: a lane's ALU takes under a minute a seed on iCE40; on ECP5 a lane's
# unit 15 to 30 s of synthesis and 20 to 40 s a seed, the smallest core (LANES=1 WARPS=1)
# 2 minutes and 6 to 7 minutes a seed (hw/README.md, "The ECP5 flow").
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

usage() {
    echo "usage: $0 [--family ice40|ecp5] [--top MODULE] [--seed N | --seeds N] [--no-dsp]" \
        "[--tie PORT]... [PARAMETER=VALUE ...]" >&2
    exit 2
}

top=sgpu_video_alu
family=ice40
seeds=(1)
no_dsp=""
tied=()
top_and_params "$@" || usage
set -- "${rest[@]}"
while [ $# -gt 0 ]; do
    case $1 in
        --family)
            [ $# -ge 2 ] || usage
            family=$2
            shift 2
            ;;
        --seed)
            [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage
            seeds=("$2")
            shift 2
            ;;
        --seeds)
            [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage
            mapfile -t seeds < <(seq 1 "$2")
            shift 2
            ;;
        --tie)
            [ $# -ge 2 ] || usage
            tied+=("$2")
            shift 2
            ;;
        --no-dsp)
            no_dsp=1
            shift
            ;;
        *) usage ;;
    esac
done

# The synthesis command (less its -top), the place-and-route command (less its netlist,
# seed and log) and the part's name.
case $family in
    ice40)
        for tool in yosys nextpnr-ice40 python3; do
            command -v "$tool" >/dev/null || {
                echo "fmax: $tool is missing (apt-get install -y yosys nextpnr-ice40 python3)" >&2
                exit 1
            }
        done
        if [ -n "$no_dsp" ]; then
            synth="synth_ice40"
            part=hx8k
            pnr=(nextpnr-ice40 --hx8k --package ct256)
        else
            synth="synth_ice40 -dsp"
            part=up5k
            pnr=(nextpnr-ice40 --up5k --package sg48)
        fi
        ;;
    ecp5)
        command -v python3 >/dev/null || { echo "fmax: python3 is missing" >&2; exit 1; }
        use_ecp5_tools
        synth="synth_ecp5${no_dsp:+ -nodsp}"
        part=LFE5U-85F-6${no_dsp:+" (no DSP)"}
        # No constraints file: the wrapper's three pins go wherever nextpnr puts them.
        pnr=("$nextpnr_ecp5" --85k --package CABGA381 --speed 6 --lpf-allow-unconstrained)
        ;;
    *) usage ;;
esac

work=$(mktemp -d)
if [ -n "${FMAX_KEEP:-}" ]; then echo "fmax: keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
readable_sources
# The module's ports, elaborated with the parameters given, for the wrapper.
"$yosys" -q -l "$work/ports.log" -p "$read ${packages[*]} ${readable[*]}; \
    $(elaborate_cmd "$top" "$setparams"); proc; write_json $work/ports.json" >/dev/null 2>&1 \
    || { first_error "$work/ports.log" >&2; exit 1; }
python3 synth/fmax_wrap.py "$work/ports.json" "$top" "${params[@]}" "${tied[@]}" \
    > "$work/fmax_top.sv"
start=$EPOCHREALTIME
"$yosys" -q -l "$work/synth.log" -p "$read ${packages[*]} ${readable[*]} $work/fmax_top.sv; \
    $synth -top fmax_top -json $work/top.json" >/dev/null 2>&1 \
    || { first_error "$work/synth.log" >&2; exit 1; }
echo "$top$given on $part: synthesised in $(since "$start") s;" \
    "$(tool_version "$yosys" -V), $(tool_version "${pnr[0]}" --version)"

# Each seed's place and route, and its figure.
figures=()
failed=0
for seed in "${seeds[@]}"; do
    start=$EPOCHREALTIME
    if ! "${pnr[@]}" --json "$work/top.json" --seed "$seed" --freq 12 --timing-allow-fail \
        -l "$work/pnr-$seed.log" >/dev/null 2>&1; then
        echo "fmax: ${pnr[0]##*/} failed at seed $seed:" >&2
        tail -5 "$work/pnr-$seed.log" >&2
        failed=1
        continue
    fi
    # nextpnr 0.4 times a combinational SB_MAC16 as a register clocked by its grounded clock
    # pin ($PACKER_GND_NET): a path through a multiplier is reported as two, into the DSP and
    # out of it, and the figure counts their longest ones end to end (an upper bound on such
    # a path). nextpnr-ecp5 times a MULT18X18D without registers as logic.
    secs=$(since "$start")
    line=$(python3 - "$work/pnr-$seed.log" "$family" "$top$given" "$part" "$seed" "$secs" <<'PY'
import re, sys
log, family, top, part, seed, secs = sys.argv[1:]
text = open(log).read()
def last(pattern):
    found = re.findall(pattern, text)
    return float(found[-1]) if found else None
# The wrapper's clock, under the name the pin's buffer and the global network give it
# ('clk_i$SB_IO_IN_$glb_clk', '$glbnet$clk_i$TRELLIS_IO_IN').
mhz = last(r"frequency for clock\s+'[^']*clk_i[^']*': ([0-9.]+) MHz")
if mhz is None:
    sys.exit(f"fmax: no figure for clk_i in {log}")
line = f"{top} on {part} (seed {seed})"
if family == "ice40":
    line += f": between registers {mhz:.1f} MHz"
    into = last(r"Max delay posedge clk_i\S*\s*-> posedge \$PACKER_GND_NET\S*\s*: ([0-9.]+) ns")
    out = last(r"Max delay posedge \$PACKER_GND_NET\S*\s*-> posedge clk_i\S*\s*: ([0-9.]+) ns")
    if into is not None and out is not None:
        dsp = 1000.0 / (into + out)
        line += f", through a multiplier {dsp:.1f} MHz ({into:.1f} + {out:.1f} ns)"
        mhz = min(mhz, dsp)
    cells = re.search(r"ICESTORM_LC:\s+(\d+)/", text).group(1) + " logic cells"
else:
    # The wrapper's own cells are counted: a flip-flop a port bit, an exclusive-or of the
    # outputs.
    used = lambda cell: re.findall(cell + r":\s+(\d+)/", text)[-1]
    cells = ", ".join(f"{used(c)} {c}"
                      for c in ("TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "MULT18X18D"))
print(f"{line}: Fmax {mhz:.1f} MHz; {cells} ({secs} s)")
PY
) || { failed=1; continue; }
    echo "$line"
    figure=${line##*: Fmax }
    figures+=("${figure%% MHz*}")
done

if [ ${#figures[@]} -gt 1 ]; then
    printf '%s\n' "${figures[@]}" | sort -n | awk -v top="$top$given" -v part="$part" '
        { v[NR] = $1 }
        END {
            median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%s on %s: Fmax over %d seeds: min %.1f, median %.1f, max %.1f MHz\n",
                top, part, NR, v[1], median, v[NR]
        }'
fi
exit $failed

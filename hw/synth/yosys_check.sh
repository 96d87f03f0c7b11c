#!/usr/bin/env bash
# Reads the RTL with yosys as lint.sh does with Verilator: every module of files.f in turn as
# the top, elaborated with its parameters' defaults (read_verilog -sv, hierarchy, proc), so
# that one source serves both tools. Prints each module's result, with yosys's first error
# for those that fail, and exits non-zero if any does. Needs yosys 0.23 or later. The
# sources are read once and every module elaborated from that reading in one yosys (the
# core's `proc` on its one large sequential process is most of it); only when that fails
# does each module run in a yosys of its own, every source read again (seconds a module,
# minutes in all), to say which.
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

readable_sources
log=$(mktemp)
trap 'rm -f "$log"' EXIT
tops=()
for f in "${sources[@]}"; do
    top=$(module_of "$f")
    [ -n "$top" ] && [ -z "${unreadable[$f]:-}" ] && tops+=("$top")
done
if [ ${#unreadable[@]} -eq 0 ]; then
    script="$read ${packages[*]} ${readable[*]}; design -save sources"
    for top in "${tops[@]}"; do
        script+="; design -load sources; hierarchy -check -top $top; proc"
    done
    start=$EPOCHREALTIME
    if yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
        printf 'ok      %s\n' "${tops[@]}"
        echo "yosys reads all ${#tops[@]} modules ($(since "$start") s)"
        exit 0
    fi
fi
failed=()
for f in "${sources[@]}"; do
    top=$(module_of "$f")
    [ -n "$top" ] || continue
    start=$EPOCHREALTIME
    if [ -n "${unreadable[$f]:-}" ]; then
        printf 'FAILED  %-18s %s\n' "$top" "${unreadable[$f]}"
        failed+=("$top")
    elif yosys -q -l "$log" -p "$read ${packages[*]} ${readable[*]}; hierarchy -check -top $top; proc" \
        >/dev/null 2>&1; then
        printf 'ok      %-18s %s s\n' "$top" "$(since "$start")"
    else
        printf 'FAILED  %-18s %s\n' "$top" "$(first_error "$log")"
        failed+=("$top")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "yosys rejects ${#failed[@]} of the modules: ${failed[*]}" >&2
    exit 1
fi

#!/usr/bin/env bash
# Reads the RTL with yosys as lint.sh does with Verilator: every module of files.f in turn as
# the top, elaborated with its parameters' defaults (read_verilog -sv, hierarchy, proc), so
# that one source serves both tools. Prints each module's result, with yosys's first error
# for those that fail, and exits non-zero if any does. Needs yosys 0.23 or later; one yosys
# runs at a time: seconds for a leaf module (every source is read), minutes for the core,
# most of them in `proc` on its one large sequential process.
set -euo pipefail
cd "$(dirname "$0")/.."
source synth/common.sh

readable_sources
log=$(mktemp)
trap 'rm -f "$log"' EXIT
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
